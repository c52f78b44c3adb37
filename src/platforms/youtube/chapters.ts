/**
 * A YouTube video's chapters: the player bar's markers where the watch reply (next endpoint) has them, else the
 * timestamps of its description, read by YouTube's own rule for them (the first at 0:00, at least three, in
 * order, each at least 10 seconds long): a description that merely mentions times gives none.
 */
import type { Innertube, YT } from 'youtubei.js';
import type { Chapter } from '../../model/content.js';
import type { Logger } from '../../log.js';
import { callYoutube } from './client.js';

/** YouTube draws chapters from a description only when there are at least this many. */
const MIN_CHAPTERS = 3;
const MIN_CHAPTER_SECONDS = 10;
/** Descriptions are at most 5,000 characters; a chapter title is one line of it. */
const MAX_TITLE = 200;

/** "1:02:03" → 3723, "12:34" → 754; undefined for anything else. */
function seconds(stamp: string): number | undefined {
  const parts = stamp.split(':').map(Number);
  if (parts.length < 2 || parts.length > 3 || parts.some((n) => !Number.isInteger(n) || n < 0)) return undefined;
  if (parts.slice(1).some((n) => n > 59)) return undefined;
  return parts.reduce((total, n) => total * 60 + n, 0);
}

/** A line holding a timestamp and a title, either side of it: "0:00 Intro", "Intro - 0:00", "(12:34) The end". */
const LINE = /^\s*(?:[-*•▶►]\s*)?(?:\(?\[?(\d{1,2}(?::\d{2}){1,2})\]?\)?\s*[-–—:|.)]*\s*(.+?)|(.+?)\s*[-–—:|(]*\s*\(?(\d{1,2}(?::\d{2}){1,2})\)?)\s*$/u;

export function chaptersFromDescription(description: string | null | undefined, durationSeconds?: number): Chapter[] {
  if (!description) return [];
  const found: Chapter[] = [];
  for (const line of description.split(/\r?\n/)) {
    const match = LINE.exec(line);
    if (!match) continue;
    const start = seconds(match[1] ?? match[4]);
    const title = (match[2] ?? match[3]).trim().slice(0, MAX_TITLE);
    if (start === undefined || !title) continue;
    found.push({ title, start });
  }
  if (found.length < MIN_CHAPTERS || found[0].start !== 0) return [];
  for (let i = 1; i < found.length; i++) if (found[i].start - found[i - 1].start < MIN_CHAPTER_SECONDS) return [];
  if (durationSeconds && found.at(-1)!.start >= durationSeconds) return [];
  return found;
}

/** The chapters of the watch reply's player bar (decoratedPlayerBarRenderer → multiMarkersPlayerBarRenderer). */
export function chaptersFromMarkers(info: Pick<YT.VideoInfo, 'player_overlays'>): Chapter[] {
  const bar = info.player_overlays?.decorated_player_bar?.player_bar as { markers_map?: Array<{ value?: { chapters?: Array<{ title?: { toString(): string }; time_range_start_millis?: number }> } }> } | undefined;
  for (const marker of bar?.markers_map ?? []) {
    const chapters = (marker.value?.chapters ?? [])
      .map((chapter) => ({ title: chapter.title?.toString().trim().slice(0, MAX_TITLE) ?? '', start: Math.round((chapter.time_range_start_millis ?? NaN) / 1000) }))
      .filter((chapter) => chapter.title && Number.isFinite(chapter.start));
    if (chapters.length > 0) return chapters;
  }
  return [];
}

/** Markers first (what the player shows), else the description's timestamps. */
export function videoChapters(info: YT.VideoInfo): Chapter[] {
  try {
    const markers = chaptersFromMarkers(info);
    if (markers.length > 0) return markers;
  } catch {
    // A watch reply of another shape has no markers we can read: the description may still have chapters.
  }
  return chaptersFromDescription(info.basic_info.short_description, Number(info.basic_info.duration ?? 0) || undefined);
}

/** The player bar's chapters from the watch reply alone (the next endpoint; the player reply has no markers). */
export async function watchPageChapters(yt: Innertube, videoId: string): Promise<Chapter[]> {
  const reply = await callYoutube(`the watch request for ${videoId}`, () =>
    yt.actions.execute('/next', { videoId, racyCheckOk: true, contentCheckOk: true, parse: true }),
  );
  return chaptersFromMarkers({ player_overlays: reply.player_overlays?.item() as YT.VideoInfo['player_overlays'] });
}

/**
 * A transcript's chapters from one client's player reply: the description's when it has them (no
 * request), else the markers `loadMarkers` reads from the watch reply, asked at most once however
 * many clients' replies are read. Chapters are optional: a watch request that fails (a 429, a bot
 * check, a reply not understood) leaves them out, logged at debug, and never fails the transcript.
 */
export function transcriptChapters(videoId: string, loadMarkers: () => Promise<Chapter[]>, log?: Logger): (info: YT.VideoInfo) => Promise<Chapter[]> {
  let markers: Promise<Chapter[]> | undefined;
  return async (info) => {
    const described = chaptersFromDescription(info.basic_info.short_description, Number(info.basic_info.duration ?? 0) || undefined);
    if (described.length > 0) return described;
    markers ??= loadMarkers().catch((error: unknown) => {
      log?.debug({ err: error, videoId }, 'transcript: no chapters from the watch page');
      return [];
    });
    return markers;
  };
}
