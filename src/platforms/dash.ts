/**
 * The one thing Gleaner takes from a DASH manifest (MPD): the single-file audio-only
 * representation, whose BaseURL Gleaner then downloads itself. ffmpeg never reads a manifest: a
 * manifest may point anywhere (file:///etc/…, other hosts), and only URLs that went through
 * Gleaner's HTTP client (its SSRF guard and caps) are fetched.
 */
import * as cheerio from 'cheerio';
import { GleanerError } from '../errors.js';

export interface DashAudio {
  url: string;
  bandwidth: number;
  codecs?: string;
}

export interface DashManifest {
  /** Single-file audio-only representations with a web URL, lightest first. */
  audio: DashAudio[];
  durationSeconds?: number;
}

/** Starts like an MPD document (after an optional XML declaration and comments)? */
export function looksLikeDash(start: string, contentType?: string): boolean {
  if (contentType && /dash\+xml/i.test(contentType)) return true;
  return /^(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<MPD[\s>]/.test(start);
}

/** ISO 8601 durations as MPDs write them ("PT7.405715S", "PT1H2M3S"). */
export function isoSeconds(value: string | undefined): number | undefined {
  const match = /^P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(value ?? '');
  if (!match) return undefined;
  return Number(match[1] ?? 0) * 86400 + Number(match[2] ?? 0) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0);
}

/** A cheerio selection (the element types live in a package Gleaner does not depend on directly). */
type Selection = ReturnType<ReturnType<typeof cheerio.load>>;

const NOT_WEB = new GleanerError('UNSUPPORTED_CONTENT', 'The DASH manifest points at media outside the web (not http or https); it is not read.');

export function parseDashManifest(xml: string, manifestUrl: string): DashManifest {
  const $ = cheerio.load(xml, { xml: true });
  const mpd = $('MPD').first();
  if (!mpd.length) throw new GleanerError('UNSUPPORTED_CONTENT', 'The DASH manifest could not be read.');
  if (mpd.attr('type') === 'dynamic') throw new GleanerError('UNSUPPORTED_CONTENT', 'The DASH manifest is a live stream; only finished media can be transcribed.');
  // BaseURLs nest: each level resolves against the one above it, the top one against the manifest's own URL.
  const base = (element: Selection, parent: string): string => {
    const own = element.children('BaseURL').first().text().trim();
    if (!own) return parent;
    let resolved: URL;
    try {
      resolved = new URL(own, parent);
    } catch {
      throw NOT_WEB;
    }
    if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') throw NOT_WEB;
    return resolved.toString();
  };
  const audio: DashAudio[] = [];
  const mpdBase = base(mpd, manifestUrl);
  mpd.children('Period').each((_, period) => {
    const periodBase = base($(period), mpdBase);
    $(period)
      .children('AdaptationSet')
      .each((_, set) => {
        const $set = $(set);
        const setAudio = $set.attr('contentType') === 'audio' || ($set.attr('mimeType') ?? '').startsWith('audio/');
        const setBase = base($set, periodBase);
        $set.children('Representation').each((_, rep) => {
          const $rep = $(rep);
          const isAudio = setAudio || ($rep.attr('mimeType') ?? '').startsWith('audio/');
          // Segment lists and templates are many files; a single file (BaseURL + SegmentBase) is what is fetched whole.
          const segmented = $rep.children('SegmentTemplate, SegmentList').length > 0 || $set.children('SegmentTemplate, SegmentList').length > 0;
          if (!isAudio || segmented || !$rep.children('BaseURL').length) return;
          audio.push({ url: base($rep, setBase), bandwidth: Number($rep.attr('bandwidth')) || 0, codecs: $rep.attr('codecs') });
        });
      });
  });
  audio.sort((a, b) => a.bandwidth - b.bandwidth);
  return { audio, durationSeconds: isoSeconds(mpd.attr('mediaPresentationDuration')) };
}
