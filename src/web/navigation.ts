/**
 * Navigation-like blocks: text that is mostly link text in many short items (menus, a widget of
 * headlines, a list of tags). Readability can choose such a block as the article of a page whose
 * post is short (two sentences beside twenty headlines); extract.ts then reads the page again
 * without them and prefers the block with prose. docs/web-extraction.md has the figures.
 */
import type { DomElement, DomNode } from './dom.js';

/** Link text share from which a block is navigation-like. */
const LINK_SHARE = 0.5;
/** Links from which a block is "many short items". */
const MIN_LINKS = 8;
/** The longest average link text of a navigation-like block (a headline, a menu entry). */
const SHORT_LINK = 80;
/** Non-link text from which a block that is not navigation-like is prose. */
const PROSE = 100;

type Counts = [all: number, linked: number, links: number];

/** One walk from the leaves up: each element's text, link text and links (a stack, not recursion: any depth). */
function countAll(root: DomElement): Map<DomNode, Counts> {
  const counts = new Map<DomNode, Counts>();
  const order: DomNode[] = [];
  const stack: DomNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    order.push(node);
    if (node.nodeType === 1 && !/^(?:SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(node.nodeName)) for (const child of node.childNodes) stack.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i];
    if (node.nodeType === 3) {
      counts.set(node, [(node.textContent ?? '').replace(/\s+/g, ' ').trim().length, 0, 0]);
      continue;
    }
    if (node.nodeType !== 1) continue;
    let all = 0;
    let linked = 0;
    let links = 0;
    for (const child of node.childNodes) {
      const c = counts.get(child);
      if (c) {
        all += c[0];
        linked += c[1];
        links += c[2];
      }
    }
    const isLink = node.nodeName === 'A' && all > 0;
    counts.set(node, [all, isLink ? all : linked, isLink ? links + 1 : links]);
  }
  return counts;
}

/** Many links, mostly link text, short ones. */
const navigationLike = ([all, linked, links]: Counts) => links >= MIN_LINKS && all > 0 && linked / all >= LINK_SHARE && linked / links <= SHORT_LINK;

/** A block (an extracted article) that is mostly link text in many short items. */
export function isNavigationLike(root: DomElement): boolean {
  return navigationLike(countAll(root).get(root) ?? [0, 0, 0]);
}

/** A run of text outside links from this length is prose; shorter runs are labels (a date, a source, "2 hours ago"). */
const PROSE_RUN = 40;

/** Prose in a block: its runs of text outside links of PROSE_RUN characters or more. */
export function proseLength(root: DomElement): number {
  let length = 0;
  const stack: DomNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 3) {
      const run = (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
      if (run >= PROSE_RUN) length += run;
    } else if (node.nodeType === 1 && (node === root || !/^(?:A|SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(node.nodeName))) for (const child of node.childNodes) stack.push(child);
  }
  return length;
}

/**
 * Takes out the navigation-like blocks that hold no prose: from the top, a navigation-like block goes
 * unless a block inside it is prose (a short post and a widget in one wrapper), in which case what is
 * inside it is looked at instead.
 */
export function removeNavigationBlocks(root: DomElement): void {
  const counts = countAll(root);
  // Whether a node is prose or holds some, from the leaves up (the map's order is the walk's, leaves last).
  const holdsProse = new Map<DomNode, boolean>();
  for (const node of [...counts.keys()]) {
    const c = counts.get(node)!;
    let prose = node.nodeType === 3 ? c[0] >= PROSE && node.parentNode?.nodeName !== 'A' : !navigationLike(c) && c[0] - c[1] >= PROSE;
    if (!prose && node.nodeType === 1) for (const child of node.childNodes) if (holdsProse.get(child)) prose = true;
    holdsProse.set(node, prose);
  }
  const pending: DomElement[] = [root];
  while (pending.length) {
    const element = pending.pop()!;
    for (const child of [...element.childNodes]) {
      if (child.nodeType !== 1) continue;
      const c = counts.get(child);
      if (!c || c[2] < MIN_LINKS) continue; // too few links below: nothing to take out here
      const inner = [...child.childNodes].some((node) => holdsProse.get(node));
      if (navigationLike(c) && !inner) (child as DomElement).remove();
      else pending.push(child as DomElement);
    }
  }
}
