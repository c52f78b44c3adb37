/**
 * Cutting one reply into pages. A reply's layout (surfaces/text) is a run of atoms: a piece of a
 * long text, one transcript segment, one search result. A page is a run of whole atoms whose text
 * fits the page size, so a page always ends where an atom does. The same atoms build both faces of
 * a page: the text a model reads and the structured reply (each long field holding only this page's part).
 */
import type { Atom, Layout, Path } from '../text/layout.js';

export interface PageSpan {
  start: number;
  end: number;
  /** 1-based number of this page among the pages of the range, and how many there are. */
  number: number;
  of: number;
  /** Index of the first atom after this page, or undefined on the last. */
  next?: number;
}

export interface Range {
  /** Seconds, inclusive. */
  from?: number;
  /** Seconds, exclusive. */
  to?: number;
}

const inRange = (atom: Atom, range: Range) =>
  atom.time === undefined || ((range.from === undefined || atom.time >= range.from * 1000) && (range.to === undefined || atom.time < range.to * 1000));

/**
 * The page that starts at atom `at` (or at the range's first atom), filled up to `maxChars` of
 * atom text (at least one atom). Pages are counted by laying them out from the range's start.
 */
export function pageAt(atoms: Atom[], at: number, maxChars: number, range: Range = {}): PageSpan {
  const first = atoms.findIndex((atom) => inRange(atom, range));
  if (first < 0) return { start: atoms.length, end: atoms.length, number: 1, of: 1 };
  const last = atoms.findLastIndex((atom) => inRange(atom, range)) + 1;
  const fill = (from: number) => {
    let end = from;
    let used = 0;
    while (end < last && (end === from || used + atoms[end].text.length <= maxChars)) used += atoms[end++].text.length;
    return end;
  };
  const start = Math.min(Math.max(at, first), last);
  let number = 0;
  let of = 0;
  for (let cursor = first; cursor < last; cursor = fill(cursor)) {
    of++;
    if (cursor <= start) number = of;
  }
  const end = fill(start);
  return { start, end, number: Math.max(number, 1), of: Math.max(of, 1), ...(end < last ? { next: end } : {}) };
}

function getIn(value: unknown, path: Path): unknown {
  let current = value;
  for (const key of path) current = (current as Record<string, unknown> | null | undefined)?.[key];
  return current;
}

/** A copy of `value` with `path` set, copying each object on the way (the original is left intact). */
function setIn<T>(value: T, path: Path, next: unknown): T {
  if (path.length === 0) return next as T;
  const [key, ...rest] = path;
  const current = value as Record<string, unknown>;
  return { ...current, [key]: setIn(current?.[key], rest, next) } as T;
}

const emptied = (value: unknown) => (typeof value === 'string' ? '' : []);

/** The reply as this page shows it: each list and text field the atoms come from holds only the atoms of [start, end). */
export function pageBody<T>(reply: T, layout: Layout, span: Pick<PageSpan, 'start' | 'end'>): T {
  // What each paged field holds on this page (items of a list, pieces of a text), with the index of a list's last item.
  const fields = new Map<string, { path: Path; parts: unknown[]; lastIndex?: number }>();
  const fieldAt = (path: Path) => {
    const key = path.join('\0');
    if (!fields.has(key)) fields.set(key, { path, parts: [] });
    return fields.get(key)!;
  };
  // Every paged field is emptied, those with nothing on this page too.
  for (const atom of layout.atoms) if (atom.list ?? atom.field) fieldAt(atom.list ?? atom.field!);
  for (const atom of layout.atoms.slice(span.start, span.end)) {
    if (!atom.list) {
      if (atom.field) fieldAt(atom.field).parts.push(atom.piece);
      continue;
    }
    const list = fieldAt(atom.list);
    if (list.lastIndex !== atom.index) {
      const original = (getIn(reply, atom.list) as unknown[])[atom.index!];
      list.parts.push(atom.field ? setIn(original, atom.field, emptied(getIn(original, atom.field))) : original);
      list.lastIndex = atom.index;
    }
    // An item split over several atoms (a crawled page's content) gets this page's pieces of its field.
    if (atom.field) {
      const at = list.parts.length - 1;
      const current = getIn(list.parts[at], atom.field);
      list.parts[at] = setIn(list.parts[at], atom.field, typeof current === 'string' ? current + String(atom.piece) : [...(current as unknown[]), atom.piece]);
    }
  }
  let page = reply;
  for (const { path, parts } of fields.values()) page = setIn(page, path, typeof getIn(reply, path) === 'string' ? parts.join('') : parts);
  return page;
}
