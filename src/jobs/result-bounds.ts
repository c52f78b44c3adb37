/**
 * A job's result, bounded before it is recorded: the record, every GET of it, the MCP reply that
 * shows it and its webhook are then never one huge value (a batch of 50 pages of 9 MB was one of
 * 470 MB). Long texts are cut, each no longer than `itemChars`, and all of them together within
 * `totalChars` (the longest are cut first, to one length, so short ones stay whole). A cut text
 * ends with a marker that says how long it was and how to read all of it.
 */

export interface ResultBounds {
  /** Characters one text of the result keeps at most (a page's content, a transcript). */
  itemChars: number;
  /** Characters all the long texts of the result keep together. */
  totalChars: number;
}

/** Texts this short are never cut: URLs, titles, messages. */
const NEVER_CUT = 2_000;

function marker(length: number, kept: number): string {
  return `\n\n[Cut: this text has ${length} characters, and a job's result keeps ${kept} of each. Ask for this item alone (web_scrape for a page) to read all of it.]`;
}

/** The lengths of every long text of `value`. */
function longTexts(value: unknown, lengths: number[]): void {
  if (typeof value === 'string') {
    if (value.length > NEVER_CUT) lengths.push(value.length);
  } else if (Array.isArray(value)) for (const item of value) longTexts(item, lengths);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) longTexts(item, lengths);
}

/** The one length every long text is cut to so that together they fit `total`: the greatest that does. */
function commonCut(lengths: number[], bounds: ResultBounds): number {
  const kept = (cut: number) => lengths.reduce((sum, length) => sum + Math.min(length, cut), 0);
  if (kept(bounds.itemChars) <= bounds.totalChars) return bounds.itemChars;
  let low = NEVER_CUT;
  let high = bounds.itemChars;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (kept(middle) <= bounds.totalChars) low = middle;
    else high = middle - 1;
  }
  return low;
}

function cutTexts(value: unknown, cut: number): unknown {
  if (typeof value === 'string') return value.length > cut ? value.slice(0, cut) + marker(value.length, cut) : value;
  if (Array.isArray(value)) return value.map((item) => cutTexts(item, cut));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutTexts(item, cut)]));
  return value;
}

/** `result` within the bounds, and how many texts were cut (0: the result itself, unchanged). */
export function boundResult(result: unknown, bounds: ResultBounds): { result: unknown; cut: number } {
  const lengths: number[] = [];
  longTexts(result, lengths);
  const cut = commonCut(lengths, bounds);
  const over = lengths.filter((length) => length > cut).length;
  return over === 0 ? { result, cut: 0 } : { result: cutTexts(result, cut), cut: over };
}
