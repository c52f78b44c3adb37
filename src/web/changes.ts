/**
 * Change tracking: what changed in a page's main text since this key last scraped it with
 * changeTracking on. The last text is kept in the store (SQLite or Redis, through the Store) under
 * the account and a hash of the normalized URL and of how it was read, so a page read as markdown
 * is never compared with the same page read as plain text. Only a scrape that asks for tracking
 * reads or writes an entry, and an entry lives a bounded time (GLEANER_CHANGE_TRACKING_DAYS) and
 * size (MAX_KEPT_CHARS of text): nothing of a page is kept for a caller who did not ask.
 *
 * The comparison: the same text (by digest) is `same`; else `changed`, with a unified diff of the
 * text (the `diff` library's line diff, three lines of context), bounded in edits and in length.
 */
import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import type { Store } from '../store/store.js';
import { normalizeUrl } from './urls.js';

export type ChangeStatus = 'new' | 'same' | 'changed';

export interface PageChange {
  changeStatus: ChangeStatus;
  /** When this key last scraped the page with tracking on (ISO 8601), null the first time. */
  previousScrapeAt: string | null;
  /** A unified diff of the main text from the previous scrape to this one; only when changed. */
  diff?: string;
}

/** How the text was read: a different reading of the same page is another history. */
export interface TrackedView {
  format: string;
  onlyMainContent: boolean;
  noLinks: boolean;
}

/** What one entry keeps: the text (at most MAX_KEPT_CHARS), the digest and length of all of it, and when. */
interface Kept {
  v: 1;
  at: string;
  text: string;
  digest: string;
  length: number;
}

/** Characters of a page's text kept for the next comparison (about 100 KB): the diff covers these. */
export const MAX_KEPT_CHARS = 100_000;
/** Longest diff returned; a longer one is cut with a line that says so. */
export const MAX_DIFF_CHARS = 10_000;
/**
 * Line insertions and deletions the diff looks for before it gives up: Myers' diff costs about
 * (lines x edits), so this bounds the time a rewritten page holds the event loop (a few tens of ms
 * on an idle core for 2,000 lines; a model learns little from a diff longer than this anyway).
 */
export const MAX_EDIT_LENGTH = 500;

const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** The store key of a page's entry: the account, then a hash of the normalized URL and its reading. */
export function changeKey(accountId: string, url: string, view: TrackedView): string {
  const page = normalizeUrl(url) ?? url;
  const hash = createHash('sha256').update(`${page}\0${view.format}\0${view.onlyMainContent}\0${view.noLinks}`).digest('hex').slice(0, 40);
  return `web:changes:${accountId}:${hash}`;
}

/** Compares `text` with the entry kept for this page and keeps `text` in its place. */
export async function trackChange(store: Store, options: { accountId: string; url: string; view: TrackedView; text: string; keepMs: number; now?: Date }): Promise<PageChange> {
  const key = changeKey(options.accountId, options.url, options.view);
  const now = (options.now ?? new Date()).toISOString();
  const previous = await store.get<Kept>(key);
  const digest = digestOf(options.text);
  const kept: Kept = { v: 1, at: now, text: options.text.slice(0, MAX_KEPT_CHARS), digest, length: options.text.length };
  // Two scrapes of one page at once both compare with the entry before them; the later write stays.
  await store.set(key, kept, options.keepMs);
  if (!previous || previous.v !== 1) return { changeStatus: 'new', previousScrapeAt: null };
  if (previous.digest === digest) return { changeStatus: 'same', previousScrapeAt: previous.at };
  return { changeStatus: 'changed', previousScrapeAt: previous.at, diff: unifiedDiff(previous, kept) };
}

function unifiedDiff(before: Kept, after: Kept): string {
  const patch = createTwoFilesPatch('previous', 'current', before.text, after.text, before.at, after.at, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  const notes: string[] = [];
  if (patch === undefined) notes.push(`\\ The text changed in more than ${MAX_EDIT_LENGTH} line edits: no line diff; read the content.`);
  if (before.length > MAX_KEPT_CHARS || after.length > MAX_KEPT_CHARS) {
    notes.push(`\\ Only the first ${MAX_KEPT_CHARS.toLocaleString('en-US')} characters of the text are compared line by line (it was ${before.length.toLocaleString('en-US')}, now ${after.length.toLocaleString('en-US')}).`);
  }
  let text = patch ?? '';
  if (text.length > MAX_DIFF_CHARS) {
    const cut = text.lastIndexOf('\n', MAX_DIFF_CHARS);
    text = `${text.slice(0, cut > 0 ? cut + 1 : MAX_DIFF_CHARS)}`;
    notes.push(`\\ The diff is cut at ${MAX_DIFF_CHARS.toLocaleString('en-US')} characters.`);
  }
  return `${text}${text && !text.endsWith('\n') ? '\n' : ''}${notes.map((note) => `${note}\n`).join('')}`;
}
