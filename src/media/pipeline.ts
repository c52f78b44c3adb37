/**
 * Media to transcript: download (capped), probe, convert to compact mono audio, cut into chunks,
 * transcribe the chunks concurrently and stitch their segments at the chunks' real offsets.
 * Everything lands in one temporary folder under GLEANER_DATA_DIR/tmp, removed whatever happens.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { HttpClient } from '../net/http.js';
import type { SpeechToText, SpeechTranscript } from '../ai/stt.js';
import { STT_NOT_CONFIGURED } from '../ai/stt.js';
import { languageCode } from '../ai/language.js';
import { GleanerError } from '../errors.js';
import { deadline } from '../deadline.js';
import type { TranscriptResponse, TranscriptSegment } from '../model/content.js';
import { aiTranscriptCredits, CAPTION_CREDITS, durationMinutes } from './credits.js';
import { downloadMedia } from './download.js';
import { assertMediaTools, ffmpeg, LOCAL_INPUT, probeMedia, progressSeconds, type MediaTools } from './tools.js';
import { finishTranscript } from './segments.js';

/** What the pipeline needs from the operation context (an OperationContext fits). */
export interface MediaContext {
  services: { config: Config; http: HttpClient; stt?: SpeechToText };
  signal: AbortSignal;
  /** Adds to the credits held for the call (throws CREDITS_EXHAUSTED when the balance cannot cover them). */
  reserveCredits: (amount: number) => Promise<void>;
  progress?: (done: number, total?: number, message?: string) => void;
}

export interface MediaSource {
  url: string;
  /** Headers the media host wants (a Referer, a cookie the page handed out). */
  headers?: Record<string, string>;
  /** The platform's stated duration, to refuse overlong media before downloading it. */
  expectedSeconds?: number;
  /** Further renditions, tried in order when one answers 403/404 or holds no audio track. */
  alternates?: string[];
}

export interface TranscribeOptions {
  lang?: string;
  timestamps: boolean;
  /** One plain string instead of segments. */
  text?: boolean;
  /** Credits the operation already reserved up front (its cost's `reserve`); the rest is reserved here. */
  alreadyReserved?: number;
}

export function mediaTools(config: Config): MediaTools {
  return { ffmpeg: config.GLEANER_FFMPEG_PATH, ffprobe: config.GLEANER_FFPROBE_PATH };
}

/** The refusals that need no download: no provider, no ffmpeg. Cheap enough for a pre-flight check. */
export async function assertCanTranscribe(services: MediaContext['services']): Promise<SpeechToText> {
  if (!services.stt) throw new GleanerError('NOT_CONFIGURED', STT_NOT_CONFIGURED);
  await assertMediaTools(mediaTools(services.config));
  return services.stt;
}

interface Chunk {
  file: string;
  start: number;
  end: number;
}

export async function transcribeMedia(source: MediaSource | string, options: TranscribeOptions, ctx: MediaContext): Promise<TranscriptResponse> {
  const media = typeof source === 'string' ? { url: source } : source;
  const { config } = ctx.services;
  const stt = await assertCanTranscribe(ctx.services);
  const tools = mediaTools(config);
  const maxSeconds = config.GLEANER_MEDIA_MAX_MINUTES * 60;
  if (media.expectedSeconds && media.expectedSeconds > maxSeconds) throw tooLong(media.expectedSeconds, config);

  const dir = await makeWorkDir(config, 'media-');
  try {
    const input = path.join(dir, 'input');
    ctx.progress?.(0, undefined, 'downloading media');
    const probe = await fetchAudible(media, input, ctx, tools, maxSeconds);
    // Charged and capped on the audio actually decoded, not on the duration the container claims:
    // ffmpeg stops a second past the cap and reports how far it got.
    ctx.progress?.(0, undefined, 'converting audio');
    const { chunks, decodedSeconds } = await splitAudio(tools, input, dir, config.GLEANER_STT_CHUNK_SECONDS, maxSeconds + 1, ctx.signal);
    await fs.rm(input, { force: true });
    if (chunks.length === 0 || decodedSeconds <= 0) throw new GleanerError('UNSUPPORTED_CONTENT', `The media (${probe.formatName}) holds no audio that could be decoded.`);
    if (decodedSeconds > maxSeconds) throw tooLong(decodedSeconds, config);

    const minutes = durationMinutes(decodedSeconds);
    await ctx.reserveCredits(aiTranscriptCredits(minutes) - (options.alreadyReserved ?? CAPTION_CREDITS));
    const transcripts = await transcribeChunks(stt, chunks, options.lang, config.GLEANER_STT_CONCURRENCY, ctx);
    const { segments, language } = stitch(chunks, transcripts, options.lang);
    return finishTranscript({ lang: language, aiGenerated: true, durationMinutes: minutes, cached: false, content: segments }, options);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Downloads the first of the media's renditions that exists and has sound: a rendition answering
 * 403/404, or holding no audio track (a video-only rendition), gives way to the next one.
 */
async function fetchAudible(media: MediaSource, input: string, ctx: MediaContext, tools: MediaTools, maxSeconds: number) {
  const { config, http } = ctx.services;
  const urls = [media.url, ...(media.alternates ?? [])];
  for (let i = 0; ; i++) {
    const last = i === urls.length - 1;
    try {
      await downloadMedia(http, urls[i], input, { maxBytes: config.GLEANER_MEDIA_MAX_BYTES, maxSeconds, headers: media.headers, signal: ctx.signal });
    } catch (error) {
      if (!last && error instanceof GleanerError && (error.code === 'CONTENT_NOT_FOUND' || error.code === 'CONTENT_UNAVAILABLE')) continue;
      throw error;
    }
    const probe = await probeMedia(tools, input, ctx.signal);
    if (probe.audio) return probe;
    if (last) throw new GleanerError('UNSUPPORTED_CONTENT', `The media (${probe.formatName}) has no audio track to transcribe.`);
  }
}

/** Leftovers of a process that was killed mid-work are swept once per process, when older than this. */
const STALE_MS = 6 * 60 * 60_000;
let swept = false;

/** A fresh folder under GLEANER_DATA_DIR/tmp; the caller removes it. */
export async function makeWorkDir(config: Config, prefix: string): Promise<string> {
  const tmpRoot = path.join(config.GLEANER_DATA_DIR, 'tmp');
  await fs.mkdir(tmpRoot, { recursive: true });
  if (!swept) {
    swept = true;
    for (const name of await fs.readdir(tmpRoot)) {
      const entry = path.join(tmpRoot, name);
      const stat = await fs.stat(entry).catch(() => undefined);
      if (stat && Date.now() - stat.mtimeMs > STALE_MS) await fs.rm(entry, { recursive: true, force: true });
    }
  }
  return fs.mkdtemp(path.join(tmpRoot, prefix));
}

function tooLong(seconds: number, config: Config): GleanerError {
  return new GleanerError(
    'PAYLOAD_TOO_LARGE',
    `The media is ${Math.round(seconds / 60)} minutes long, more than the ${config.GLEANER_MEDIA_MAX_MINUTES} minutes this server transcribes (GLEANER_MEDIA_MAX_MINUTES).`,
  );
}

/**
 * One ffmpeg run: first audio track, 16 kHz mono MP3 at 32 kbit/s (about 240 KB a minute, well
 * under upload limits), cut by the segment muxer, whose list gives each chunk's real start and end.
 */
async function splitAudio(tools: MediaTools, input: string, dir: string, chunkSeconds: number, limitSeconds: number, signal: AbortSignal): Promise<{ chunks: Chunk[]; decodedSeconds: number }> {
  const list = path.join(dir, 'chunks.csv');
  const report = await ffmpeg(
    tools,
    [
      ...LOCAL_INPUT, '-i', input, '-t', String(limitSeconds), '-map', '0:a:0', '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', '32k',
      '-f', 'segment', '-segment_time', String(chunkSeconds), '-reset_timestamps', '1',
      '-segment_list', list, '-segment_list_type', 'csv',
      path.join(dir, 'chunk-%04d.mp3'),
      '-progress', 'pipe:1',
    ],
    signal,
  );
  const rows = (await fs.readFile(list, 'utf8')).trim().split('\n').filter(Boolean);
  const chunks = rows.map((row) => {
    const [name, start, end] = row.split(',');
    return { file: path.join(dir, name), start: Number(start), end: Number(end) };
  });
  // The segment list's last end includes the encoder's padding; ffmpeg's own report does not.
  return { chunks, decodedSeconds: progressSeconds(report) ?? chunks.at(-1)?.end ?? 0 };
}

async function transcribeChunks(stt: SpeechToText, chunks: Chunk[], lang: string | undefined, concurrency: number, ctx: MediaContext): Promise<SpeechTranscript[]> {
  // One chunk failing fails the call: the others are stopped rather than paid for.
  const abort = new AbortController();
  const wait = deadline(undefined, ctx.signal, abort.signal);
  const signal = wait.signal;
  const results: SpeechTranscript[] = new Array(chunks.length);
  let next = 0;
  let done = 0;
  ctx.progress?.(0, chunks.length, 'transcribing');
  const worker = async () => {
    while (next < chunks.length && !signal.aborted) {
      const index = next++;
      const data = await fs.readFile(chunks[index].file);
      results[index] = await stt.transcribe({ data, filename: `chunk-${index}.mp3`, contentType: 'audio/mpeg' }, { lang, signal });
      ctx.progress?.(++done, chunks.length, 'transcribing');
    }
  };
  let failure: { error: unknown } | undefined;
  const workers = Array.from({ length: Math.min(concurrency, chunks.length) }, () =>
    worker().catch((error: unknown) => {
      // The first failure is the cause; the others are the abort it set off.
      failure ??= { error };
      abort.abort();
    }),
  );
  await Promise.all(workers).finally(wait.clear);
  if (failure) throw failure.error;
  if (ctx.signal.aborted) throw new GleanerError('UPSTREAM_TIMEOUT', 'The request was aborted while the media was being transcribed.');
  return results;
}

/** Chunk-relative times to media times; a segment never runs past its chunk's end. */
function stitch(chunks: Chunk[], transcripts: SpeechTranscript[], requested?: string): { segments: TranscriptSegment[]; language: string } {
  const heard = transcripts.map((t) => t.language).filter((l): l is string => Boolean(l));
  const language = mostCommon(heard) ?? languageCode(requested) ?? 'und';
  const segments: TranscriptSegment[] = [];
  chunks.forEach((chunk, i) => {
    const lang = transcripts[i].language ?? language;
    for (const s of transcripts[i].segments) {
      const start = Math.min(chunk.start + s.start, chunk.end);
      const end = Math.min(chunk.start + s.end, chunk.end);
      segments.push({ text: s.text, offset: Math.round(start * 1000), duration: Math.max(0, Math.round((end - start) * 1000)), lang, ...(s.speaker ? { speaker: s.speaker } : {}) });
    }
  });
  return { segments, language };
}

function mostCommon(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
