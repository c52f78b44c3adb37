/**
 * A video's transcript from its native captions: ask the InnerTube clients in turn (clients.ts),
 * pick the track on the first that lists captions, optionally let YouTube translate it (tlang), add
 * a PO token where the URL wants one and a provider is configured, read the body, keep the result in
 * the store. A client whose track wants a token it cannot get, or whose body comes back empty, is
 * passed over. Where no client lists captions a `fallback` (speech to text from a direct audio URL)
 * may produce one; without it the answer is TRANSCRIPT_UNAVAILABLE.
 */
import { GleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import type { Store } from '../../store/store.js';
import type { TranscriptResponse } from '../types.js';
import type { YT } from 'youtubei.js';
import { parseCaptionBody, pickTrack, trackBodyUrl } from './captions.js';
import { innertube } from './client.js';
import { throughClients, youtubeClients, type InnerTubeClient, type PlayerOutcome } from './clients.js';
import { fetchPoToken, needsPoToken, withPoToken } from './potoken.js';
import { botCheckError, changedError, htmlRefusal, poTokenError } from './refusals.js';
import { audioStreamUrl, captionTracks, durationSeconds } from './video.js';

export interface StoredSegment {
  text: string;
  offset: number;
  duration: number;
}

/** What is cached: everything needed to render any reply format. */
export interface StoredTranscript {
  videoId: string;
  /** Language of the segments (the translation's when translated). */
  lang: string;
  translatedTo?: string;
  /** Who translated: YouTube's caption translation, or a language model. */
  translatedBy?: 'youtube' | 'ai';
  aiGenerated: boolean;
  durationSeconds: number;
  availableLangs: string[];
  segments: StoredSegment[];
}

export interface TranscriptRequest {
  videoId: string;
  lang?: string;
  translate?: string;
}

/** Produces a transcript when the video has no captions (speech-to-text). Undefined: none either. */
export type TranscriptFallback = (video: { videoId: string; durationSeconds: number; lang?: string; audioUrl?: string }) => Promise<StoredTranscript | undefined>;

/** Translates segments with a language model, keeping their timing (where YouTube offers no translation). */
export type SegmentTranslator = (segments: StoredSegment[], targetLang: string) => Promise<StoredSegment[]>;

export interface TranscriptDeps {
  http: HttpClient;
  store: Store;
  fallback?: TranscriptFallback;
  translator?: SegmentTranslator;
  /** How long a transcript is kept (default a day). */
  ttlMs?: number;
  /** GLEANER_YOUTUBE_CLIENTS and GLEANER_YOUTUBE_POT_PROVIDER_URL. */
  youtube?: { clients?: string; poTokenProvider?: string };
}

/** The clientName each InnerTube client sends (the `c` a caption URL carries). */
const INNERTUBE_CLIENT_NAMES: Partial<Record<InnerTubeClient, string>> = { IOS: 'IOS', TV: 'TVHTML5', YTMUSIC: 'WEB_REMIX', WEB_EMBEDDED: 'WEB_EMBEDDED_PLAYER' };

const DAY_MS = 24 * 60 * 60 * 1000;

export function transcriptCacheKey(request: TranscriptRequest): string {
  return `youtube:transcript:${request.videoId}:${request.lang?.toLowerCase() ?? '-'}:${request.translate?.toLowerCase() ?? '-'}`;
}

export async function youtubeTranscript(deps: TranscriptDeps, request: TranscriptRequest): Promise<{ transcript: StoredTranscript; cached: boolean }> {
  const key = transcriptCacheKey(request);
  const stored = await deps.store.get<StoredTranscript>(key);
  if (stored) return { transcript: stored, cached: true };
  const transcript = await fetchTranscript(deps, request);
  await deps.store.set(key, transcript, deps.ttlMs ?? DAY_MS);
  return { transcript, cached: false };
}

/** Where a caption body came from, for the error when none could be read. */
interface ClientFailures {
  /** Clients whose chosen track wanted a PO token (exp=xpe) none could be added to. */
  poToken: string[];
  /** Clients whose chosen track answered an empty body (with or without a token). */
  empty: string[];
}

async function fetchTranscript(deps: TranscriptDeps, request: TranscriptRequest): Promise<StoredTranscript> {
  const yt = await innertube(deps.http);
  const clients = youtubeClients(deps.youtube?.clients);
  const failures: ClientFailures = { poToken: [], empty: [] };
  const { result, outcomes, exits } = await throughClients(deps.http, yt, request.videoId, clients, async ({ client, info }) => {
    const captions = captionTracks(info);
    // No captions on this client: another may list them (missing tracks are one of YouTube's refusals).
    if (captions.tracks.length === 0) return undefined;
    return fromTracks(deps, request, client, info, captions, failures);
  });
  if (result) return result;

  const playable = outcomes.filter((o): o is Extract<PlayerOutcome, { kind: 'playable' }> => o.kind === 'playable');
  if (playable.length === 0) {
    // Nobody would play it: the video's own refusal (private, age-restricted) says more than a block of this server.
    const refused = outcomes.find((o) => o.kind === 'refused');
    if (refused && refused.kind === 'refused') throw refused.error;
    // A consent wall has its own way out (cookies); any other block is the bot check's.
    const consent = outcomes.find((o) => o.kind === 'blocked' && /consent/i.test(o.error.message));
    if (consent && consent.kind === 'blocked') throw consent.error;
    const failed = outcomes.find((o) => o.kind === 'failed');
    if (failed && failed.kind === 'failed' && !outcomes.some((o) => o.kind === 'blocked')) throw failed.error;
    throw botCheckError(`the video ${request.videoId}`, { clients, exits });
  }
  // Captions exist but none could be read: YouTube wants a PO token.
  if (failures.poToken.length > 0 || failures.empty.length > 0) {
    throw poTokenError(request.videoId, [...new Set([...failures.poToken, ...failures.empty])], Boolean(deps.youtube?.poTokenProvider));
  }
  return withoutCaptions(deps, request, playable.map((o) => o.info));
}

/**
 * A transcript from one client's tracks, or undefined to try the next client (the chosen track
 * wants a PO token none can be added to, or its body came back empty).
 */
async function fromTracks(
  deps: TranscriptDeps,
  request: TranscriptRequest,
  client: InnerTubeClient,
  info: YT.VideoInfo,
  captions: ReturnType<typeof captionTracks>,
  failures: ClientFailures,
): Promise<StoredTranscript | undefined> {
  const { tracks, defaultIndex, translationLanguages } = captions;
  const availableLangs = [...new Set(tracks.map((t) => t.languageCode))];
  const { track } = pickTrack(tracks, request.lang, defaultIndex)!;
  let translateTo = request.translate;
  if (translateTo && translateTo.toLowerCase() === track.languageCode.toLowerCase()) translateTo = undefined;
  const base = { videoId: request.videoId, aiGenerated: false, durationSeconds: durationSeconds(info), availableLangs };
  const offered = translateTo ? translationLanguages.find((code) => code.toLowerCase() === translateTo!.toLowerCase()) : undefined;
  if (translateTo && (!track.isTranslatable || !offered) && !deps.translator) {
    throw new GleanerError(
      'TRANSCRIPT_UNAVAILABLE',
      `YouTube offers no translation of the ${track.languageCode} captions of ${request.videoId} into "${translateTo}"` +
        (track.isTranslatable && translationLanguages.length > 0 ? ` (it offers: ${translationLanguages.join(', ')})` : '') +
        '. The youtube_transcript_translate operation translates with a language model where YouTube cannot.',
    );
  }
  const byYoutube = translateTo && track.isTranslatable && offered ? offered : undefined;
  const url = await signedUrl(deps, client, request.videoId, trackBodyUrl(track, byYoutube), failures);
  if (!url) return undefined;
  const segments = await readTrack(deps.http, request.videoId, url);
  if (!segments) {
    failures.empty.push(client);
    return undefined;
  }
  if (translateTo && !byYoutube) {
    const translated = await deps.translator!(segments, translateTo);
    return { ...base, lang: translateTo, translatedTo: translateTo, translatedBy: 'ai', segments: translated };
  }
  return {
    ...base,
    lang: byYoutube ?? track.languageCode,
    ...(byYoutube ? { translatedTo: byYoutube, translatedBy: 'youtube' as const } : {}),
    segments,
  };
}

/** The caption URL ready to fetch: with a PO token where it wants one and a provider is configured, else undefined. */
async function signedUrl(deps: TranscriptDeps, client: InnerTubeClient, videoId: string, url: string, failures: ClientFailures): Promise<string | undefined> {
  if (!needsPoToken(url)) return url;
  const provider = deps.youtube?.poTokenProvider;
  if (!provider) {
    failures.poToken.push(client);
    return undefined;
  }
  const token = await fetchPoToken(deps.http, provider, videoId, deps.http.egress.currentProxy('youtube'));
  return withPoToken(url, token, INNERTUBE_CLIENT_NAMES[client] ?? client);
}

/** A video no client lists captions for: speech to text from a direct audio URL, where a provider is configured. */
async function withoutCaptions(deps: TranscriptDeps, request: TranscriptRequest, infos: YT.VideoInfo[]): Promise<StoredTranscript> {
  if (!deps.fallback) {
    throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `The YouTube video ${request.videoId} has no captions, and no speech-to-text fallback is available.`);
  }
  // Speech to text gives the spoken language; another one needs a model, known before paying for the audio.
  if (request.translate && !deps.translator) {
    throw new GleanerError(
      'TRANSCRIPT_UNAVAILABLE',
      `The YouTube video ${request.videoId} has no captions to translate into "${request.translate}"; youtube_transcript_translate translates its speech-to-text transcript with a language model.`,
    );
  }
  const audioUrl = infos.map(audioStreamUrl).find(Boolean);
  if (!audioUrl) {
    throw new GleanerError(
      'UPSTREAM_BLOCKED',
      `The YouTube video ${request.videoId} has no captions, and no InnerTube client tried gave a direct audio URL for speech to text (WEB streams need a PO token and YouTube's player script): put VISIONOS, ANDROID or IOS in GLEANER_YOUTUBE_CLIENTS.`,
    );
  }
  const produced = await deps.fallback({ videoId: request.videoId, durationSeconds: durationSeconds(infos[0]), lang: request.lang, audioUrl });
  if (!produced) throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `The YouTube video ${request.videoId} has no captions, and speech to text produced nothing.`);
  if (request.translate && deps.translator && request.translate.toLowerCase() !== produced.lang.toLowerCase()) {
    const segments = await deps.translator(produced.segments, request.translate);
    return { ...produced, lang: request.translate, translatedTo: request.translate, translatedBy: 'ai', segments };
  }
  return produced;
}

/** Downloads and parses one caption body; undefined when YouTube sent an empty one (it wants a PO token). */
async function readTrack(http: HttpClient, videoId: string, url: string): Promise<StoredSegment[] | undefined> {
  const reply = await http.fetch(url, { maxBytes: 8 * 1024 * 1024, retryRateLimited: false, credentials: true });
  const what = `the caption request for ${videoId}`;
  if (reply.status === 429 || reply.status === 403) throw botCheckError(what, { clients: ['timedtext'], exits: http.egress.poolSize('youtube') });
  if (reply.status !== 200) {
    throw new GleanerError('UPSTREAM_ERROR', `YouTube answered ${what} with HTTP ${reply.status}.`);
  }
  const text = reply.text();
  if (text.trim() === '') return undefined;
  if (/^\s*<(!doctype|html)/i.test(text)) throw htmlRefusal(what, reply.url, text);
  let cues;
  try {
    cues = parseCaptionBody(text);
  } catch (error) {
    throw changedError(what, error);
  }
  return cues.map((cue) => ({ text: cue.text, offset: cue.startMs, duration: cue.durationMs }));
}

/** The reply: segments with or without timing, or one plain string. */
export function renderTranscript(
  transcript: StoredTranscript,
  options: { timestamps: boolean; text?: boolean; cached: boolean },
): TranscriptResponse {
  const { lang } = transcript;
  const content = options.text
    ? transcript.segments.map((s) => s.text).join(' ')
    : transcript.segments.map((s) => (options.timestamps ? { text: s.text, offset: s.offset, duration: s.duration, lang } : { text: s.text, lang }));
  return {
    lang,
    aiGenerated: transcript.aiGenerated,
    durationMinutes: transcript.durationSeconds / 60,
    cached: options.cached,
    content,
    availableLangs: transcript.availableLangs,
    ...(transcript.translatedTo ? { translatedTo: transcript.translatedTo, translatedBy: transcript.translatedBy ?? 'youtube' } : {}),
    platform: 'youtube',
    videoId: transcript.videoId,
  };
}
