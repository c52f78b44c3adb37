/**
 * `from`/`to` naming a chapter of the transcript: its 1-based number ("3", "chapter 3", "#3") or its
 * title (exact, any case; else the one title containing the words). A chapter given as `from` alone
 * is that chapter; as `to`, up to its end. Resolved to seconds against the reply's `chapters` (before
 * the call is charged, see toolset.ts), so a chapter the video lacks is a 400 that lists its chapters.
 */
import { GleanerError } from '../../errors.js';
import type { Chapter } from '../../model/content.js';
import type { Range } from './pages.js';

/** A range as a call gives it: seconds, or chapters. */
export interface RangeRequest {
  from?: number | string;
  to?: number | string;
}

const NUMBERED = /^(?:chapter\s*|#)?(\d{1,4})$/i;

/** Whether the range names a chapter (and so needs the reply's chapters). */
export const namesChapter = (range: RangeRequest | undefined): boolean => typeof range?.from === 'string' || typeof range?.to === 'string';

function listing(chapters: Chapter[]): string {
  const shown = chapters.slice(0, 20).map((c, i) => `${i + 1}. ${c.title}`);
  return `${shown.join('; ')}${chapters.length > shown.length ? `; … (${chapters.length} in all)` : ''}`;
}

/** The index of the chapter a caller named, or a 400 saying which chapters there are. */
function chapterIndex(ref: string, chapters: Chapter[], field: 'from' | 'to'): number {
  const text = ref.trim();
  if (chapters.length === 0) throw new GleanerError('INVALID_REQUEST', `${field}="${text}" names a chapter, and this video has no chapters; give ${field} in seconds.`);
  const numbered = NUMBERED.exec(text);
  if (numbered) {
    const n = Number(numbered[1]);
    if (n >= 1 && n <= chapters.length) return n - 1;
    throw new GleanerError('INVALID_REQUEST', `${field}="${text}": this video has chapters 1 to ${chapters.length} (${listing(chapters)}).`);
  }
  const wanted = text.toLowerCase();
  const exact = chapters.findIndex((c) => c.title.trim().toLowerCase() === wanted);
  if (exact >= 0) return exact;
  const containing = chapters.map((c, i) => [c, i] as const).filter(([c]) => c.title.toLowerCase().includes(wanted));
  if (containing.length === 1) return containing[0][1];
  const why = containing.length > 1 ? `matches ${containing.length} chapters` : 'is no chapter of this video';
  throw new GleanerError('INVALID_REQUEST', `${field}="${text}" ${why}; its chapters: ${listing(chapters)}. Give a chapter's number or its title.`);
}

/** Seconds for a range given in seconds or chapters, against the reply's chapters. */
export function chapterRange(range: RangeRequest, chapters: Chapter[] | undefined): Range {
  const list = [...(chapters ?? [])].sort((a, b) => a.start - b.start);
  const endOf = (i: number) => list[i + 1]?.start;
  let from: number | undefined;
  let to: number | undefined;
  if (typeof range.from === 'string') {
    const i = chapterIndex(range.from, list, 'from');
    from = list[i].start;
    // A chapter alone is that chapter.
    if (range.to === undefined) to = endOf(i);
  } else from = range.from;
  if (typeof range.to === 'string') to = endOf(chapterIndex(range.to, list, 'to'));
  else if (range.to !== undefined) to = range.to;
  if (from !== undefined && to !== undefined && from >= to) {
    throw new GleanerError('INVALID_REQUEST', `to must come after from (from is ${from} s, to is ${to} s).`);
  }
  return { from, to };
}

/** The chapters of a reply: a transcript's own, or a job's result's. */
export function chaptersOf(body: unknown): Chapter[] | undefined {
  const reply = body as { chapters?: Chapter[]; result?: { chapters?: Chapter[] } } | undefined;
  return reply?.chapters ?? reply?.result?.chapters;
}
