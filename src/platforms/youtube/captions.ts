/**
 * Caption tracks: which one to read for a requested language, and the three body formats YouTube
 * serves for a track URL (legacy timedtext XML, srv3 XML, json3).
 */
export interface CaptionTrack {
  languageCode: string;
  name: string;
  /** 'asr' for automatic speech recognition tracks. */
  kind?: string;
  baseUrl: string;
  isTranslatable: boolean;
}

export interface CaptionCue {
  text: string;
  startMs: number;
  durationMs: number;
}

const isAuto = (track: CaptionTrack) => track.kind === 'asr';
const base = (code: string) => code.toLowerCase().split(/[-_]/)[0];

/**
 * The track for `lang`: an exact language match, else the same base language (en for en-GB), a
 * manual track before an automatic one at each step. No match, or no `lang`, gives the video's
 * default track (or the first manual one).
 */
export function pickTrack(tracks: CaptionTrack[], lang: string | undefined, defaultIndex?: number): { track: CaptionTrack; matched: boolean } | undefined {
  if (tracks.length === 0) return undefined;
  const manualFirst = [...tracks.filter((t) => !isAuto(t)), ...tracks.filter(isAuto)];
  if (lang) {
    const wanted = lang.toLowerCase();
    const found =
      manualFirst.find((t) => t.languageCode.toLowerCase() === wanted) ?? manualFirst.find((t) => base(t.languageCode) === base(wanted));
    if (found) return { track: found, matched: true };
  }
  const preferred = defaultIndex !== undefined ? tracks[defaultIndex] : undefined;
  if (preferred) {
    // The default may be the automatic track of a language that also has a manual one.
    const manual = tracks.find((t) => !isAuto(t) && t.languageCode === preferred.languageCode);
    return { track: manual ?? preferred, matched: !lang };
  }
  return { track: manualFirst[0], matched: !lang };
}

/** The URL of a track's body: legacy XML (no fmt), optionally translated by YouTube (tlang). */
export function trackBodyUrl(track: CaptionTrack, translateTo?: string): string {
  const url = new URL(track.baseUrl, 'https://www.youtube.com');
  url.searchParams.delete('fmt');
  url.searchParams.delete('tlang');
  if (translateTo) url.searchParams.set('tlang', translateTo);
  return url.toString();
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[entity.toLowerCase()] ?? whole;
  });
}

/** Text of an XML element's content: tags dropped, entities decoded, whitespace folded. */
function xmlText(inner: string): string {
  // Caption text is XML-escaped markup (e.g. "&lt;i>not&lt;/i>"): decode, then drop the markup.
  const decoded = decodeEntities(inner.replace(/<[^>]*>/g, ''));
  return decodeEntities(decoded.replace(/<\/?[a-z][^>]*>/gi, ''))
    .replace(/\s+/g, ' ')
    .trim();
}

function attr(attributes: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
}

/** Parses a caption body in any of YouTube's formats; cues without text are dropped. */
export function parseCaptionBody(body: string): CaptionCue[] {
  const text = body.replace(/^\uFEFF/, '').trim();
  const cues: CaptionCue[] = [];
  if (text.startsWith('{')) {
    const json = JSON.parse(text) as { events?: Array<{ tStartMs?: number; dDurationMs?: number; segs?: Array<{ utf8?: string }> }> };
    for (const event of json.events ?? []) {
      if (!event.segs) continue;
      const content = event.segs.map((s) => s.utf8 ?? '').join('').replace(/\s+/g, ' ').trim();
      cues.push({ text: content, startMs: Math.round(event.tStartMs ?? 0), durationMs: Math.round(event.dDurationMs ?? 0) });
    }
  } else if (/<timedtext[^>]*format="3"/.test(text) || /<p\s[^>]*\bt="\d/.test(text)) {
    for (const match of text.matchAll(/<p\b([^>]*?)(?:\/>|>([\s\S]*?)<\/p>)/g)) {
      const start = Number(attr(match[1], 't') ?? 0);
      const duration = Number(attr(match[1], 'd') ?? 0);
      cues.push({ text: xmlText(match[2] ?? ''), startMs: Math.round(start), durationMs: Math.round(duration) });
    }
  } else {
    for (const match of text.matchAll(/<text\b([^>]*?)(?:\/>|>([\s\S]*?)<\/text>)/g)) {
      const start = Number(attr(match[1], 'start') ?? 0);
      const duration = Number(attr(match[1], 'dur') ?? 0);
      cues.push({ text: xmlText(match[2] ?? ''), startMs: Math.round(start * 1000), durationMs: Math.round(duration * 1000) });
    }
  }
  return cues.filter((cue) => cue.text !== '');
}
