/**
 * A video's transcript from its native captions: ask the InnerTube clients in turn (clients.ts),
 * pick the track on the first that lists captions, optionally let YouTube translate it (tlang), add
 * a PO token where the URL wants one and a provider is configured, read the body, keep the result in
 * the store. A client whose track wants a token it cannot get, or whose body comes back empty, is
 * passed over; a refused download (429 or 403 on the caption URL) is tried again from the next exit
 * of the proxy pool on a fresh connection, then left for the next client. Where no client lists
 * captions a `fallback` (speech to text from a direct audio URL, the clients of the profile's audio
 * order in turn, refused downloads handled the same way) may produce one; without it the answer is
 * TRANSCRIPT_UNAVAILABLE.
 */
import { GleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import type { Store } from '../../store/store.js';
import type { Logger } from '../../log.js';
import type { Chapter, TranscriptResponse } from '../../model/content.js';
import { transcriptChapters, watchPageChapters } from './chapters.js';
import type { Innertube, YT } from 'youtubei.js';
import { parseCaptionBody, pickTrack, trackBodyUrl } from './captions.js';
import { innertube } from './client.js';
import { ASK_AGAIN, askPlayer, ExitBudget, noPlayerError, throughClients, youtubeClients, type InnerTubeClient, type PlayerOutcome } from './clients.js';
import { profileOf } from '../profile.js';
import { fetchPoToken, needsPoToken, withPoToken } from './potoken.js';
import { botCheckError, changedError, htmlRefusal, poTokenError } from './refusals.js';
import { audioStreamUrl, captionTracks, durationSeconds } from './video.js';

export interface StoredSegment {
  text: string;
  offset: number;
  duration: number;
  speaker?: string;
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
  /** The video's title, where the player reply gave it (kept transcripts show it). */
  title?: string;
  /** From the description's timestamps, else the watch reply's player-bar markers (auto-chapters). */
  chapters?: Chapter[];
}

export interface TranscriptRequest {
  videoId: string;
  lang?: string;
  translate?: string;
  /** Speech to text even where captions exist (mode=generate): captions are not read. */
  generate?: boolean;
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
  /**
   * GLEANER_YOUTUBE_POT_PROVIDER_URL, and a client order for captions and audio overriding the
   * platform profile's (a comma list; the service passes none: the profile already holds
   * GLEANER_YOUTUBE_CLIENTS).
   */
  youtube?: { clients?: string; poTokenProvider?: string };
  /** The watch reply's markers when the caller already has (or is loading) that reply in this call; else one watch request. */
  markers?: () => Promise<Chapter[]>;
  log?: Logger;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function transcriptCacheKey(request: TranscriptRequest): string {
  const base = `youtube:transcript:${request.videoId}:${request.lang?.toLowerCase() ?? '-'}:${request.translate?.toLowerCase() ?? '-'}`;
  return request.generate ? `${base}:generated` : base;
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
  /** Clients whose caption download was refused (429/403) from every exit tried. */
  refused: string[];
}

/** The orders of the call: the deps' own (tests, a caller's choice) or the platform profile's. */
function clientOrders(deps: TranscriptDeps): { captions: InnerTubeClient[]; audio: InnerTubeClient[] } {
  if (deps.youtube?.clients) {
    const clients = youtubeClients(deps.youtube.clients);
    return { captions: clients, audio: clients };
  }
  const order = profileOf(deps.http).youtube.order;
  return { captions: order.captions as InnerTubeClient[], audio: order.audio as InnerTubeClient[] };
}

async function fetchTranscript(deps: TranscriptDeps, request: TranscriptRequest): Promise<StoredTranscript> {
  const yt = await innertube(deps.http);
  const orders = clientOrders(deps);
  const budget = new ExitBudget(deps.http);
  // mode=generate: speech to text whatever captions exist, so the caption clients are not asked.
  if (request.generate) return withoutCaptions(deps, request, yt, orders.audio, [], budget);
  const failures: ClientFailures = { poToken: [], empty: [], refused: [] };
  const chapters = transcriptChapters(request.videoId, deps.markers ?? (() => watchPageChapters(yt, request.videoId)), deps.log);
  const { result, outcomes, exits } = await throughClients(
    deps.http,
    yt,
    request.videoId,
    orders.captions,
    async ({ client, info }) => {
      const captions = captionTracks(info);
      // No captions on this client: another may list them (missing tracks are one of YouTube's refusals).
      if (captions.tracks.length === 0) return undefined;
      return fromTracks(deps, request, client, info, captions, failures, budget, chapters);
    },
    budget,
  );
  if (result) return result;

  const playable = outcomes.filter((o): o is Extract<PlayerOutcome, { kind: 'playable' }> => o.kind === 'playable');
  // Nobody would play it: the video's own refusal (private, age-restricted) says more than a block of this server.
  if (playable.length === 0) throw noPlayerError(outcomes, () => botCheckError(`the video ${request.videoId}`, { clients: orders.captions, exits }));
  // Captions exist but none could be read: YouTube wants a PO token (the more actionable word where some were refused too).
  if (failures.poToken.length > 0 || failures.empty.length > 0) {
    throw poTokenError(request.videoId, [...new Set([...failures.poToken, ...failures.empty])], Boolean(deps.youtube?.poTokenProvider));
  }
  // Captions exist but every download of them was refused, from every exit: this server is refused, not the video.
  if (failures.refused.length > 0) throw botCheckError(`the caption download for ${request.videoId}`, { clients: failures.refused, exits });
  return withoutCaptions(deps, request, yt, orders.audio, outcomes, budget);
}

/** A caption or media download YouTube refused to this exit (429, 403): another exit or client may get it. */
class RefusedDownload extends Error {}

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
  exits: ExitBudget,
  chaptersOf: (info: YT.VideoInfo) => Promise<Chapter[]>,
): Promise<StoredTranscript | typeof ASK_AGAIN | undefined> {
  const { tracks, defaultIndex, translationLanguages } = captions;
  const availableLangs = [...new Set(tracks.map((t) => t.languageCode))];
  const { track } = pickTrack(tracks, request.lang, defaultIndex)!;
  let translateTo = request.translate;
  if (translateTo && translateTo.toLowerCase() === track.languageCode.toLowerCase()) translateTo = undefined;
  const title = info.basic_info.title;
  const base = { videoId: request.videoId, aiGenerated: false, durationSeconds: durationSeconds(info), availableLangs, ...(title ? { title } : {}) };
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
  let segments: StoredSegment[] | undefined;
  try {
    segments = await readTrack(deps.http, request.videoId, url);
  } catch (error) {
    if (!(error instanceof RefusedDownload)) throw error;
    // Refused to this exit: the same client from the next exit of the pool (fresh connection, fresh URLs), else the next client.
    if (exits.next()) return ASK_AGAIN;
    failures.refused.push(client);
    return undefined;
  }
  if (!segments) {
    failures.empty.push(client);
    return undefined;
  }
  // Asked only once a transcript is certain: a client whose captions fail costs no watch request.
  const chapters = await chaptersOf(info);
  const described = { ...base, ...(chapters.length ? { chapters } : {}) };
  if (translateTo && !byYoutube) {
    const translated = await deps.translator!(segments, translateTo);
    return { ...described, lang: translateTo, translatedTo: translateTo, translatedBy: 'ai', segments: translated };
  }
  return {
    ...described,
    lang: byYoutube ?? track.languageCode,
    ...(byYoutube ? { translatedTo: byYoutube, translatedBy: 'youtube' as const } : {}),
    segments,
  };
}

/** The caption URL ready to fetch: with a PO token where it wants one and a provider is configured, else undefined. */
async function signedUrl(deps: TranscriptDeps, client: InnerTubeClient, videoId: string, url: string, failures: ClientFailures): Promise<string | undefined> {
  const provider = deps.youtube?.poTokenProvider;
  const profiled = profileOf(deps.http).youtube.clients[client];
  // A client whose captions the profile says want a token gets one whenever a provider can mint it, marked or not.
  if (!needsPoToken(url) && !(provider && profiled?.poToken.captions && !new URL(url, 'https://www.youtube.com').searchParams.get('pot'))) return url;
  if (!provider) {
    failures.poToken.push(client);
    return undefined;
  }
  const token = await fetchPoToken(deps.http, provider, videoId, deps.http.egress.currentProxy('youtube'));
  // The c= of the URL is the name the client really sends (IOS, not youtubei.js's iOS).
  return withPoToken(url, token, profiled?.urlClientName ?? client);
}

/**
 * The direct audio URL of each client of the audio order that has one (asking those the caption
 * order did not), in that order; then any other playable client's. Clients whose streams want a PO
 * token in the profile come after those whose streams do not.
 */
async function audioCandidates(
  deps: TranscriptDeps,
  yt: Innertube,
  videoId: string,
  order: InnerTubeClient[],
  outcomes: PlayerOutcome[],
): Promise<Array<{ client: InnerTubeClient; url: string; info: YT.VideoInfo }>> {
  const clients = profileOf(deps.http).youtube.clients;
  const byClient = new Map(outcomes.map((o) => [o.client, o] as const));
  const candidates: Array<{ client: InnerTubeClient; url: string; info: YT.VideoInfo }> = [];
  for (const client of [...order, ...outcomes.map((o) => o.client)]) {
    if (candidates.some((c) => c.client === client)) continue;
    let outcome = byClient.get(client);
    if (!outcome) {
      outcome = await askPlayer(yt, videoId, client);
      byClient.set(client, outcome);
    }
    if (outcome.kind !== 'playable') continue;
    const url = audioStreamUrl(outcome.info);
    if (url) candidates.push({ client, url, info: outcome.info });
  }
  const wantsToken = (client: InnerTubeClient) => (clients[client]?.poToken.streams ? 1 : 0);
  return candidates.sort((a, b) => wantsToken(a.client) - wantsToken(b.client));
}

/** A download the media pipeline gave up on because YouTube refused it (403 or 429), not because the file is bad. */
function isRefusal(error: unknown): boolean {
  if (!(error instanceof GleanerError)) return false;
  return error.code === 'CONTENT_UNAVAILABLE' || error.code === 'UPSTREAM_BLOCKED' || (error.code === 'UPSTREAM_ERROR' && /answered 429/.test(error.message));
}

/** A video no client lists captions for: speech to text from a direct audio URL, where a provider is configured. */
async function withoutCaptions(
  deps: TranscriptDeps,
  request: TranscriptRequest,
  yt: Innertube,
  audioOrder: InnerTubeClient[],
  outcomes: PlayerOutcome[],
  exits: ExitBudget,
): Promise<StoredTranscript> {
  if (!deps.fallback) {
    if (request.generate) throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `mode=generate transcribes speech, and this server has no speech-to-text provider (GLEANER_STT_URL).`);
    throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `The YouTube video ${request.videoId} has no captions, and no speech-to-text fallback is available.`);
  }
  // Speech to text gives the spoken language; another one needs a model, known before paying for the audio.
  if (request.translate && !deps.translator) {
    throw new GleanerError(
      'TRANSCRIPT_UNAVAILABLE',
      `The YouTube video ${request.videoId} has no captions to translate into "${request.translate}"; youtube_transcript_translate translates its speech-to-text transcript with a language model.`,
    );
  }
  const candidates = await audioCandidates(deps, yt, request.videoId, audioOrder, outcomes);
  if (candidates.length === 0) {
    throw new GleanerError(
      'UPSTREAM_BLOCKED',
      `The YouTube video ${request.videoId} has no captions, and no InnerTube client tried gave a direct audio URL for speech to text (WEB streams need a PO token and YouTube's player script): put VISIONOS, ANDROID or IOS in GLEANER_YOUTUBE_CLIENTS.`,
    );
  }
  const refused: string[] = [];
  let produced: StoredTranscript | undefined;
  let done = false;
  for (const first of candidates) {
    let candidate: typeof first | undefined = first;
    while (candidate && !done) {
      try {
        produced = await deps.fallback({ videoId: request.videoId, durationSeconds: durationSeconds(candidate.info), lang: request.lang, audioUrl: candidate.url });
        done = true;
      } catch (error) {
        if (!isRefusal(error)) throw error;
        if (!exits.next()) {
          refused.push(candidate.client);
          break;
        }
        // The next exit of the pool (a fresh connection) asks this client again: its stream URLs are bound to the address that asked.
        const again = await askPlayer(yt, request.videoId, candidate.client);
        const url = again.kind === 'playable' ? audioStreamUrl(again.info) : undefined;
        candidate = again.kind === 'playable' && url ? { client: candidate.client, url, info: again.info } : undefined;
      }
    }
    if (done) break;
  }
  if (!done) throw botCheckError(`the audio download for ${request.videoId}`, { clients: refused, exits: exits.pool });
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
  if (reply.status === 429 || reply.status === 403) throw new RefusedDownload(`YouTube answered ${what} with HTTP ${reply.status}.`);
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
    : transcript.segments.map((s) => ({ text: s.text, ...(options.timestamps ? { offset: s.offset, duration: s.duration } : {}), lang, ...(s.speaker ? { speaker: s.speaker } : {}) }));
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
    ...(transcript.chapters?.length ? { chapters: transcript.chapters } : {}),
  };
}
