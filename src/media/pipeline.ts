/**
 * Speech to text for any media URL: download (capped), probe, reserve the credits the length
 * costs, convert to compact mono audio in pieces, transcribe the pieces a few at a time, and stitch
 * their segments back on one timeline. Temporary files never outlive the call.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { HttpClient } from '../net/http.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { GleanerError } from '../errors.js';
import { sttNotConfigured, type SpeechResult, type SpeechToText } from '../ai/stt.js';
import { assertToolsPresent, audioChunks, probe, type AudioChunk, type MediaTools } from './ffmpeg.js';
import { downloadMedia } from './download.js';

/** What the pipeline needs from its caller; an operation's ctx fits as is. */
export interface MediaContext {
  services: { http: HttpClient; config: Config; stt?: SpeechToText };
  signal: AbortSignal;
  progress?: (done: number, total?: number, message?: string) => void;
  /** Takes more credits from the caller's balance once the length is known (CREDITS_EXHAUSTED if it cannot). */
  reserveCredits: (amount: number) => Promise<void>;
  log?: Logger;
}

export interface MediaRequest {
  /** The spoken language when the caller knows it; else the provider detects it. */
  lang?: string;
  /** Headers the platform wants on its media requests. */
  headers?: Record<string, string>;
  /** The length the platform announces, to refuse over-long media before downloading it. */
  expectedSeconds?: number;
  /** Credits the operation already reserved before calling (its up-front price; 1 by default). */
  reservedCredits?: number;
}

export interface MediaSegment {
  text: string;
  /** Milliseconds from the start of the media. */
  offset: number;
  duration: number;
}

export interface MediaTranscript {
  /** The requested language, else the one the provider detected most, else "und". */
  lang: string;
  durationSeconds: number;
  /** Rounded to two decimals: what the reply shows and the credits are computed from. */
  durationMinutes: number;
  segments: MediaSegment[];
}

export function minutesOf(seconds: number): number {
  return Math.round((seconds / 60) * 100) / 100;
}

/** 2 credits per started minute, as the spec prices AI transcripts. */
export function aiTranscriptCredits(seconds: number): number {
  return 2 * Math.max(1, Math.ceil(minutesOf(seconds)));
}

export function mediaTools(config: Config): MediaTools {
  return { ffmpeg: config.GLEANER_FFMPEG_PATH, ffprobe: config.GLEANER_FFPROBE_PATH };
}

export async function transcribeMedia(mediaUrl: string, request: MediaRequest, ctx: MediaContext): Promise<MediaTranscript> {
  const { config, http } = ctx.services;
  const stt = ctx.services.stt;
  if (!stt) throw sttNotConfigured();
  const tools = mediaTools(config);
  await assertToolsPresent(tools);
  const maxSeconds = config.GLEANER_MEDIA_MAX_MINUTES * 60;
  if (request.expectedSeconds !== undefined && request.expectedSeconds > maxSeconds) throw tooLong(request.expectedSeconds, config);

  const root = path.join(config.GLEANER_DATA_DIR || os.tmpdir(), 'tmp');
  await fs.mkdir(root, { recursive: true });
  const dir = await fs.mkdtemp(path.join(root, 'media-'));
  try {
    ctx.progress?.(0, undefined, 'downloading media');
    const source = await downloadMedia(http, mediaUrl, dir, { maxBytes: config.GLEANER_MEDIA_MAX_BYTES, headers: request.headers, signal: ctx.signal });
    const info = await probe(tools, source.file, ctx.signal);
    if (!info.hasAudio) {
      throw new GleanerError('UNSUPPORTED_CONTENT', info.hasVideo ? 'The video has no audio track, so there is no speech to transcribe.' : `${mediaUrl} is not an audio or video file (ffprobe read it as ${info.formatName}).`);
    }
    if (info.durationSeconds <= 0) throw new GleanerError('UNSUPPORTED_CONTENT', 'The media has no measurable length (a live stream cannot be transcribed).');
    if (info.durationSeconds > maxSeconds) throw tooLong(info.durationSeconds, config);

    const extra = aiTranscriptCredits(info.durationSeconds) - (request.reservedCredits ?? 1);
    if (extra > 0) await ctx.reserveCredits(extra);

    const chunkDir = path.join(dir, 'chunks');
    await fs.mkdir(chunkDir);
    const chunks = await audioChunks(tools, source.file, chunkDir, config.GLEANER_STT_CHUNK_SECONDS, ctx.signal);
    ctx.log?.debug({ bytes: source.bytes, seconds: info.durationSeconds, chunks: chunks.length }, 'media ready for speech to text');
    const results = await transcribeChunks(stt, chunks, request.lang, config.GLEANER_STT_CONCURRENCY, ctx);
    return stitch(chunks, results, request.lang, info.durationSeconds);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function tooLong(seconds: number, config: Config): GleanerError {
  return new GleanerError(
    'PAYLOAD_TOO_LARGE',
    `The media is ${Math.round(seconds / 60)} minutes long; this server transcribes up to ${config.GLEANER_MEDIA_MAX_MINUTES} minutes (GLEANER_MEDIA_MAX_MINUTES).`,
  );
}

/** At most `width` pieces in flight; the first failure stops the rest and fails the whole call. */
async function transcribeChunks(stt: SpeechToText, chunks: AudioChunk[], lang: string | undefined, width: number, ctx: MediaContext): Promise<SpeechResult[]> {
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  const results = new Array<SpeechResult>(chunks.length);
  let next = 0;
  let done = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < chunks.length && failure === undefined) {
      const index = next++;
      try {
        results[index] = await stt.transcribe({ path: chunks[index].path, mimeType: 'audio/mpeg' }, { lang, signal });
        ctx.progress?.(++done, chunks.length, 'transcribing');
      } catch (error) {
        failure ??= error;
        stop.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, chunks.length) }, worker));
  if (failure !== undefined) {
    if (failure instanceof GleanerError) {
      throw new GleanerError(failure.code, `Speech to text failed on part ${results.filter(Boolean).length + 1} of ${chunks.length}: ${failure.message}`, { cause: failure });
    }
    throw failure;
  }
  return results;
}

/** Puts each piece's segments at the piece's place in the media, in milliseconds. */
function stitch(chunks: AudioChunk[], results: SpeechResult[], lang: string | undefined, durationSeconds: number): MediaTranscript {
  const segments: MediaSegment[] = [];
  const heard = new Map<string, number>();
  chunks.forEach((chunk, index) => {
    const result = results[index];
    if (result.language) heard.set(result.language, (heard.get(result.language) ?? 0) + (chunk.end - chunk.start));
    const length = chunk.end - chunk.start;
    for (const segment of result.segments) {
      // Providers pad the last segment past the audio; keep every segment inside its piece.
      const start = Math.min(Math.max(0, segment.start), length);
      const end = Math.min(Math.max(start, segment.end), length);
      segments.push({ text: segment.text, offset: Math.round((chunk.start + start) * 1000), duration: Math.round((end - start) * 1000) });
    }
  });
  segments.sort((a, b) => a.offset - b.offset);
  const detected = [...heard.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return { lang: lang ?? detected ?? 'und', durationSeconds, durationMinutes: minutesOf(durationSeconds), segments };
}
