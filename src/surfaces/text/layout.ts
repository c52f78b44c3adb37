/**
 * A reply laid out as text: a header, then its long content as atoms, each a piece of a long text,
 * one transcript segment or one list item, and each knowing where in the reply it comes from. The
 * MCP face cuts atoms into pages (a page ends where an atom does, so never mid-word); the console
 * shows them whole.
 */

/** Longest piece of one text field: pages end on piece boundaries, so this is the finest cut. */
export const PIECE_CHARS = 1_000;

export type Path = readonly string[];

export interface Atom {
  /** What the text block shows for this atom. */
  text: string;
  /** The list (a path in the reply) this atom is an item of, or a part of an item of. */
  list?: Path;
  /** The item's index in `list`. */
  index?: number;
  /** The field being split (inside the item when `list` is set): a string gets `piece` appended, an array gets it pushed. */
  field?: Path;
  piece?: unknown;
  /** Start in milliseconds, for transcripts paged by time (from/to). */
  time?: number;
}

/** A reply laid out for paging: a header, then its long content as atoms (the lists and text fields they name are the paged ones). */
export interface Layout {
  header: string;
  atoms: Atom[];
}

/** Splits text into pieces of at most `max` characters, each ending at the best break in reach. */
export function pieces(text: string, max = PIECE_CHARS): string[] {
  const out: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    const cut = breakBefore(text, start, start + max);
    out.push(text.slice(start, cut));
    start = cut;
  }
  if (start < text.length || out.length === 0) out.push(text.slice(start));
  return out;
}

/** The last good place to end a piece in text[start, end): after a blank line, a line, a word; a hard cut only in a word longer than the piece. */
function breakBefore(text: string, start: number, end: number): number {
  const window = text.slice(start, end + 1);
  const limit = end - start;
  for (const pattern of [/\n[ \t]*\n\s*/g, /\n\s*/g, /[ \t\u00a0]+/g]) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const after = match.index + match[0].length;
      // The break must leave something in this piece; its trailing spaces may reach one past the window.
      if (match.index > 0 && match.index < limit) best = Math.min(after, limit);
    }
    if (best > 0) return start + best;
  }
  // One word longer than a piece: cut it, but never inside a surrogate pair.
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}


/** The whole text of a layout, as a reader reads it. */
export const layoutText = (layout: Layout): string => layout.header + layout.atoms.map((atom) => atom.text).join('');
