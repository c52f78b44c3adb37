/**
 * ffprobe and ffmpeg as child processes: what a file holds, and its audio as compact mono pieces
 * for speech to text. A missing binary is NOT_CONFIGURED naming the fix.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { GleanerError } from '../errors.js';

export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
}

export interface ProbeResult {
  durationSeconds: number;
  formatName: string;
  hasAudio: boolean;
  hasVideo: boolean;
}

export interface AudioChunk {
  path: string;
  /** Seconds from the start of the media. */
  start: number;
  end: number;
}

function notInstalled(binary: string, variable: string): GleanerError {
  return new GleanerError(
    'NOT_CONFIGURED',
    `${binary} is not installed or not found at "${binary}", and speech to text needs it to read media. Install it (Debian/Ubuntu: apt-get install -y ffmpeg; macOS: brew install ffmpeg) or point ${variable} at the binary.`,
  );
}

/** Runs a tool to completion; stdout as text, a failure as an Error carrying stderr's tail. */
function run(binary: string, variable: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-2000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES') reject(notInstalled(binary, variable));
      else reject(error);
    });
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(Object.assign(new Error(`${path.basename(binary)} exited with ${code}: ${err.trim()}`), { stderr: err }));
    });
  });
}

/** What the file holds; UNSUPPORTED_CONTENT when ffprobe cannot read it as media. */
export async function probe(tools: MediaTools, file: string, signal?: AbortSignal): Promise<ProbeResult> {
  let output: string;
  try {
    output = await run(tools.ffprobe, 'GLEANER_FFPROBE_PATH', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], signal);
  } catch (error) {
    if (error instanceof GleanerError) throw error;
    throw new GleanerError('UNSUPPORTED_CONTENT', 'The URL did not give a media file that can be read (ffprobe found no audio or video in it).', { cause: error });
  }
  const parsed = JSON.parse(output) as { format?: { duration?: string; format_name?: string }; streams?: Array<{ codec_type?: string; duration?: string }> };
  const streams = parsed.streams ?? [];
  let duration = Number(parsed.format?.duration);
  if (!Number.isFinite(duration)) duration = Math.max(0, ...streams.map((s) => Number(s.duration)).filter(Number.isFinite));
  return {
    durationSeconds: Number.isFinite(duration) ? duration : 0,
    formatName: parsed.format?.format_name ?? 'unknown',
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
    hasVideo: streams.some((s) => s.codec_type === 'video'),
  };
}

/** Checks both binaries answer, before any download (a cheap NOT_CONFIGURED). */
export async function assertToolsPresent(tools: MediaTools): Promise<void> {
  await run(tools.ffmpeg, 'GLEANER_FFMPEG_PATH', ['-hide_banner', '-version']);
  await run(tools.ffprobe, 'GLEANER_FFPROBE_PATH', ['-hide_banner', '-version']);
}

/**
 * The audio track as 16 kHz mono MP3 at 32 kbit/s (about 240 kB a minute, accepted by every
 * Whisper-style server), cut into pieces of `chunkSeconds`. The segment list ffmpeg writes gives
 * each piece's exact start and end, so offsets stitch back without drift.
 */
export async function audioChunks(tools: MediaTools, input: string, outDir: string, chunkSeconds: number, signal?: AbortSignal): Promise<AudioChunk[]> {
  const list = path.join(outDir, 'chunks.csv');
  try {
    await run(
      tools.ffmpeg,
      'GLEANER_FFMPEG_PATH',
      [
        '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
        '-i', input,
        '-map', '0:a:0', '-vn', '-sn', '-dn',
        '-ac', '1', '-ar', '16000', '-c:a', 'libmp3lame', '-b:a', '32k',
        '-f', 'segment', '-segment_time', String(chunkSeconds), '-reset_timestamps', '1',
        '-segment_list', list, '-segment_list_type', 'csv',
        path.join(outDir, 'chunk%04d.mp3'),
      ],
      signal,
    );
  } catch (error) {
    if (error instanceof GleanerError) throw error;
    throw new GleanerError('UNSUPPORTED_CONTENT', 'The audio of the media could not be decoded.', { cause: error });
  }
  const rows = (await fs.readFile(list, 'utf8')).split('\n').map((line) => line.trim()).filter(Boolean);
  return rows.map((row) => {
    const [name, start, end] = row.split(',');
    return { path: path.join(outDir, name), start: Number(start), end: Number(end) };
  });
}
