/**
 * ffmpeg and ffprobe, run as child processes. Their absence is an operator problem with a known
 * fix, so it is NOT_CONFIGURED naming the package and the variable, never an internal error.
 */
import { spawn } from 'node:child_process';
import { GleanerError } from '../errors.js';

export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
}

const working = new Set<string>();

/**
 * Input options for every run on a downloaded file: the tools read that local file and nothing
 * else. Only plain media demuxers are allowed, so a file that is really a playlist or a manifest
 * (HLS, DASH, concat) is refused instead of followed to the URLs inside it (file:///…, other hosts).
 */
const MEDIA_DEMUXERS = ['mov', 'mp4', 'm4a', '3gp', '3g2', 'mj2', 'matroska', 'webm', 'mp3', 'aac', 'wav', 'w64', 'ogg', 'flac', 'flv', 'mpegts', 'asf', 'avi', 'aiff', 'caf', 'amr', 'au'];
export const LOCAL_INPUT = ['-protocol_whitelist', 'file', '-format_whitelist', MEDIA_DEMUXERS.join(',')];

function missing(tool: 'ffmpeg' | 'ffprobe', path: string): GleanerError {
  const variable = tool === 'ffmpeg' ? 'GLEANER_FFMPEG_PATH' : 'GLEANER_FFPROBE_PATH';
  return new GleanerError(
    'NOT_CONFIGURED',
    `${tool} is not installed or not runnable (${variable}=${path}). Install ffmpeg (for example "apt-get install ffmpeg" or "brew install ffmpeg"), or set ${variable} to the ${tool} program.`,
  );
}

interface RunResult {
  stdout: string;
  stderr: string;
  /** The stderr lines that matched `keep`, in full (bounded). */
  kept: string[];
}

/** Most stderr lines kept by `keep`: a report line per video frame, far more than any bounded run needs. */
const MAX_KEPT_LINES = 10_000;

/** Runs a program to completion; resolves with its exit code, stdout and the last of stderr (plus the lines `keep` matches). */
function run(program: string, args: string[], signal?: AbortSignal, keep?: RegExp): Promise<RunResult & { code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const out: Buffer[] = [];
    const kept: string[] = [];
    let err = '';
    let partial = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      const text = c.toString('utf8');
      err = (err + text).slice(-4000);
      if (!keep) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (keep.test(line) && kept.length < MAX_KEPT_LINES) kept.push(line);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: err, kept }));
  });
}

async function runTool(tool: 'ffmpeg' | 'ffprobe', program: string, args: string[], signal?: AbortSignal, keep?: RegExp): Promise<RunResult & { code: number | null }> {
  try {
    return await run(program, args, signal, keep);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'EACCES') throw missing(tool, program);
    if ((error as Error).name === 'AbortError') throw new GleanerError('UPSTREAM_TIMEOUT', 'The request was aborted while the media was being processed.', { cause: error });
    throw error;
  }
}

/** Refuses early (before any download or charge) when either program cannot run. Successes are remembered. */
export async function assertMediaTools(tools: MediaTools): Promise<void> {
  for (const [tool, program] of [['ffmpeg', tools.ffmpeg], ['ffprobe', tools.ffprobe]] as const) {
    if (working.has(program)) continue;
    const result = await runTool(tool, program, ['-version']);
    if (result.code !== 0) throw missing(tool, program);
    working.add(program);
  }
}

export interface Probe {
  durationSeconds: number;
  formatName: string;
  audio?: { codec: string; channels?: number; sampleRate?: number };
  hasVideo: boolean;
  width?: number;
  height?: number;
  /** Container tags (title, artist, date, comment ...), lower-case names. */
  tags: Record<string, string>;
}

interface FfprobeJson {
  format?: { duration?: string; format_name?: string; tags?: Record<string, string> };
  streams?: Array<{ codec_type?: string; codec_name?: string; channels?: number; sample_rate?: string; duration?: string; width?: number; height?: number }>;
}

/** What a file holds, or UNSUPPORTED_CONTENT when ffprobe cannot read it as media. */
export async function probeMedia(tools: MediaTools, file: string, signal?: AbortSignal): Promise<Probe> {
  const result = await runTool('ffprobe', tools.ffprobe, ['-v', 'error', ...LOCAL_INPUT, '-print_format', 'json', '-show_format', '-show_streams', file], signal);
  if (result.code !== 0) throw new GleanerError('UNSUPPORTED_CONTENT', `The URL does not lead to a media file that can be read (ffprobe: ${lastLine(result.stderr)}).`);
  const json = JSON.parse(result.stdout) as FfprobeJson;
  const streams = json.streams ?? [];
  const audio = streams.find((s) => s.codec_type === 'audio');
  const video = streams.find((s) => s.codec_type === 'video');
  const durations = [json.format?.duration, ...streams.map((s) => s.duration)].map(Number).filter((n) => Number.isFinite(n) && n > 0);
  return {
    durationSeconds: durations.length ? Math.max(...durations) : 0,
    formatName: json.format?.format_name ?? 'unknown',
    audio: audio ? { codec: audio.codec_name ?? 'unknown', channels: audio.channels, sampleRate: Number(audio.sample_rate) || undefined } : undefined,
    hasVideo: Boolean(video),
    width: video?.width,
    height: video?.height,
    tags: Object.fromEntries(Object.entries(json.format?.tags ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
  };
}

/** Runs ffmpeg with the given arguments (after the common quiet flags); resolves to its stdout. */
export async function ffmpeg(tools: MediaTools, args: string[], signal?: AbortSignal): Promise<string> {
  const result = await runTool('ffmpeg', tools.ffmpeg, ['-hide_banner', '-nostdin', '-v', 'error', '-y', ...args], signal);
  if (result.code !== 0) throw new GleanerError('UNSUPPORTED_CONTENT', `The media could not be converted to audio (ffmpeg: ${lastLine(result.stderr)}).`);
  return result.stdout;
}

/**
 * Runs ffmpeg at the info level and returns the lines of its report that match `keep` (filters
 * such as showinfo report there); a failure is UNSUPPORTED_CONTENT saying `what` failed.
 */
export async function ffmpegReport(tools: MediaTools, args: string[], keep: RegExp, what: string, signal?: AbortSignal): Promise<string[]> {
  const result = await runTool('ffmpeg', tools.ffmpeg, ['-hide_banner', '-nostdin', '-v', 'info', '-y', ...args], signal, keep);
  if (result.code !== 0) throw new GleanerError('UNSUPPORTED_CONTENT', `${what} (ffmpeg: ${lastLine(result.stderr)}).`);
  return result.kept;
}

/** The output time ffmpeg reached, from its `-progress pipe:1` report: what was really decoded and written. */
export function progressSeconds(report: string): number | undefined {
  const times = [...report.matchAll(/^out_time_us=(\d+)$/gm)].map((m) => Number(m[1]) / 1e6);
  return times.at(-1);
}

/** The tool's last complaint, without the server's paths in it (they name the data directory). */
function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter(Boolean);
  const line = (lines.at(-1) ?? 'no output').replace(/(?:file:)?\/[^\s:'"]+/g, '<file>').replace(/^\[[a-z0-9_,]+ @ 0x[0-9a-f]+\]\s*/i, '');
  return line.slice(0, 300);
}
