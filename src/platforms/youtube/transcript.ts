/**
 * A video's transcript from its native captions: pick the track, optionally let YouTube translate
 * it (tlang), read the body, keep the result in the store. Where a video has no captions a
 * `fallback` (speech-to-text, later) may produce one; without it the answer is TRANSCRIPT_UNAVAILABLE.
 */
import { GleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import type { Store } from '../../store/store.js';
import type { TranscriptResponse } from '../types.js';
import { parseCaptionBody, pickTrack, trackBodyUrl } from './captions.js';
import { innertube } from './client.js';
import { audioStreamUrl, captionTracks, durationSeconds, loadPlayer } from './video.js';

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
}

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

async function fetchTranscript(deps: TranscriptDeps, request: TranscriptRequest): Promise<StoredTranscript> {
  const yt = await innertube(deps.http);
  const info = await loadPlayer(yt, request.videoId);
  const seconds = durationSeconds(info);
  const { tracks, defaultIndex, translationLanguages } = captionTracks(info);
  const availableLangs = [...new Set(tracks.map((t) => t.languageCode))];
  const picked = pickTrack(tracks, request.lang, defaultIndex);
  if (!picked) {
    // Speech to text gives the spoken language; another one needs a model, known before paying for the audio.
    if (request.translate && deps.fallback && !deps.translator) {
      throw new GleanerError(
        'TRANSCRIPT_UNAVAILABLE',
        `The YouTube video ${request.videoId} has no captions to translate into "${request.translate}"; youtube_transcript_translate translates its speech-to-text transcript with a language model.`,
      );
    }
    const produced = await deps.fallback?.({ videoId: request.videoId, durationSeconds: seconds, lang: request.lang, audioUrl: audioStreamUrl(info) });
    if (produced && request.translate && deps.translator && request.translate.toLowerCase() !== produced.lang.toLowerCase()) {
      const segments = await deps.translator(produced.segments, request.translate);
      return { ...produced, lang: request.translate, translatedTo: request.translate, translatedBy: 'ai', segments };
    }
    if (produced) return produced;
    throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `The YouTube video ${request.videoId} has no captions, and no speech-to-text fallback is available.`);
  }
  const { track } = picked;
  let translateTo = request.translate;
  if (translateTo && translateTo.toLowerCase() === track.languageCode.toLowerCase()) translateTo = undefined;
  const base = { videoId: request.videoId, aiGenerated: false, durationSeconds: seconds, availableLangs };
  if (translateTo) {
    const offered = translationLanguages.find((code) => code.toLowerCase() === translateTo!.toLowerCase());
    if (!track.isTranslatable || !offered) {
      if (deps.translator) {
        const original = await readTrack(deps.http, request.videoId, trackBodyUrl(track, undefined));
        const segments = await deps.translator(original, translateTo);
        return { ...base, lang: translateTo, translatedTo: translateTo, translatedBy: 'ai', segments };
      }
      throw new GleanerError(
        'TRANSCRIPT_UNAVAILABLE',
        `YouTube offers no translation of the ${track.languageCode} captions of ${request.videoId} into "${translateTo}"` +
          (track.isTranslatable && translationLanguages.length > 0 ? ` (it offers: ${translationLanguages.join(', ')})` : '') +
          '. The youtube_transcript_translate operation translates with a language model where YouTube cannot.',
      );
    }
    translateTo = offered;
  }
  const segments = await readTrack(deps.http, request.videoId, trackBodyUrl(track, translateTo));
  return {
    ...base,
    lang: translateTo ?? track.languageCode,
    ...(translateTo ? { translatedTo: translateTo, translatedBy: 'youtube' as const } : {}),
    segments,
  };
}

/** Downloads and parses one caption body. */
async function readTrack(http: HttpClient, videoId: string, url: string): Promise<StoredSegment[]> {
  const reply = await http.fetch(url, { maxBytes: 8 * 1024 * 1024 });
  if (reply.status !== 200) {
    throw new GleanerError('UPSTREAM_ERROR', `YouTube answered the caption request for ${videoId} with HTTP ${reply.status}.`);
  }
  if (reply.text().trim() === '') {
    // YouTube answers an empty body when it wants a proof-of-origin token for the track.
    throw new GleanerError('UPSTREAM_ERROR', `YouTube sent an empty caption body for ${videoId}.`);
  }
  let cues;
  try {
    cues = parseCaptionBody(reply.text());
  } catch (error) {
    throw new GleanerError('UPSTREAM_ERROR', `The captions of ${videoId} could not be read.`, { cause: error });
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
