/**
 * Frames of a video for a model that can see: every scene change plus one at least every
 * `interval` seconds, so a slideshow gives each slide and a static talk still gives its course.
 * The count is bounded (evenly thinned when the video offers more) and each frame is small
 * (a JPEG at most 512 pixels wide), because every picture costs the model's context.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { assertMediaTools, ffmpegReport, LOCAL_INPUT, probeMedia, type MediaTools } from './tools.js';
import { downloadMedia } from './download.js';
import { makeWorkDir, mediaTools, type MediaContext, type MediaSource } from './pipeline.js';

export interface Frame {
  jpeg: Buffer;
  atSeconds: number;
}

export interface FrameOptions {
  /** Most frames returned. */
  maxFrames: number;
  signal?: AbortSignal;
}

/** A scene change: how different a picture must be from the one before (ffmpeg's scene score, 0 to 1). */
const SCENE_THRESHOLD = 0.3;
/** No steady frame closer than this to the one before it, however short the video. */
const MIN_INTERVAL_SECONDS = 1;
const FRAME_WIDTH = 512;

/** Frames of a local video file, in time order; empty when the file has no video track. */
export async function sampleFrames(tools: MediaTools, file: string, dir: string, options: FrameOptions): Promise<Frame[]> {
  const probe = await probeMedia(tools, file, options.signal);
  if (!probe.hasVideo) return [];
  const interval = Math.max(MIN_INTERVAL_SECONDS, probe.durationSeconds / options.maxFrames);
  const pattern = path.join(dir, 'frame-%05d.jpg');
  // The first frame, a frame whenever `interval` passed since the last one taken, and a scene change
  // once a quarter of it passed: at most four frames an interval, over the whole video. showinfo
  // prints each kept frame's time, in output order.
  const step = interval.toFixed(3);
  const quarter = (interval / 4).toFixed(3);
  const select = `select='eq(n\\,0)+gte(t-prev_selected_t\\,${step})+gt(scene\\,${SCENE_THRESHOLD})*gte(t-prev_selected_t\\,${quarter})'`;
  const report = await ffmpegReport(tools, [
    ...LOCAL_INPUT,
    '-i', file,
    '-an', '-sn', '-dn',
    '-vf', `${select},scale='min(${FRAME_WIDTH},iw)':-2,showinfo`,
    '-fps_mode', 'vfr',
    // The selection gives at most about four an interval; this only guards against a wrong duration.
    '-frames:v', String(options.maxFrames * 4 + 8),
    '-q:v', '6',
    pattern,
  ], /pts_time:/, 'Frames could not be taken from the video', options.signal);
  const times = report.map((line) => Number(/pts_time:\s*([\d.]+)/.exec(line)?.[1]));
  const files = (await fs.readdir(dir)).filter((name) => /^frame-\d+\.jpg$/.test(name)).sort();
  const frames = files.map((name, index) => ({ name, atSeconds: times[index] ?? index * interval }));
  const kept = thin(frames, options.maxFrames);
  return Promise.all(kept.map(async (frame) => ({ atSeconds: Math.round(frame.atSeconds * 10) / 10, jpeg: await fs.readFile(path.join(dir, frame.name)) })));
}

/** At most `max` items, evenly spread over the list, first and last kept. */
export function thin<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  if (max <= 1) return items.slice(0, max);
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]);
}

/**
 * Frames of a video at a URL: downloaded under the media caps into a scratch folder (removed
 * afterwards), then sampled. Empty when the media has no picture (an audio-only rendition).
 */
export async function videoFrames(media: MediaSource, ctx: MediaContext, maxFrames: number): Promise<Frame[]> {
  const { config, http } = ctx.services;
  const tools = mediaTools(config);
  await assertMediaTools(tools);
  const dir = await makeWorkDir(config, 'frames-');
  try {
    const input = path.join(dir, 'input');
    await downloadMedia(http, media.url, input, {
      maxBytes: config.GLEANER_MEDIA_MAX_BYTES,
      maxSeconds: config.GLEANER_MEDIA_MAX_MINUTES * 60,
      headers: media.headers,
      signal: ctx.signal,
    });
    const framesDir = path.join(dir, 'frames');
    await fs.mkdir(framesDir);
    return await sampleFrames(tools, input, framesDir, { maxFrames, signal: ctx.signal });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
