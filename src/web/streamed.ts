/**
 * Pages streamed by React's server rendering (Next.js's App Router, Remix, any `renderToPipeableStream`):
 * each part of the page that was not ready when the first bytes left is sent later, at the end of the
 * document, in a hidden `<div id="S:…">`, followed by a small script (`$RC("B:0","S:0")`, `$RS("S:1","P:1")`)
 * that moves it into its place, over a "Loading…" fallback. Without scripts the fallback stays in the
 * article and the text sits hidden at the end, where the cleaning drops it: a long article keeps its
 * first sections only. The moves are done here as the browser's scripts would do them, in their order.
 */
import { contains, type DomDocument, type DomElement, type DomNode } from './dom.js';

/** `$RC` (a boundary's content), `$RR` (the same, with style sheets) and `$RS` (a segment) calls, as React writes them inline. */
const INSTRUCTION = /\$R([CRS])\("([^"]{1,40})","([^"]{1,40})"/g;
/** The same moves, as data attributes, when the page loads React's runtime as a file (no inline script). */
const INSTRUCTION_TEMPLATES = 'template[data-rci], template[data-rri], template[data-rsi]';
/** More moves than any page makes: a bound on the work a hostile page can ask for. */
const MAX_MOVES = 5_000;

type Move = { kind: 'boundary'; boundary: string; content: string } | { kind: 'segment'; content: string; placeholder: string };

interface CommentNode extends DomNode {
  data: string;
}
const isComment = (node: DomNode | null | undefined): node is CommentNode => node?.nodeType === 8;

/** The moves the page's scripts (or templates) ask for, in document order. */
function movesOf(doc: DomDocument): Move[] {
  const moves: Move[] = [];
  for (const element of doc.querySelectorAll(`script, ${INSTRUCTION_TEMPLATES}`)) {
    if (element.nodeName === 'SCRIPT') {
      const source = element.textContent ?? '';
      if (!source.includes('$R')) continue;
      for (const [, kind, first, second] of source.matchAll(INSTRUCTION)) {
        moves.push(kind === 'S' ? { kind: 'segment', content: first, placeholder: second } : { kind: 'boundary', boundary: first, content: second });
      }
    } else if (element.hasAttribute('data-rsi')) {
      moves.push({ kind: 'segment', content: element.getAttribute('data-sid') ?? '', placeholder: element.getAttribute('data-pid') ?? '' });
    } else {
      moves.push({ kind: 'boundary', boundary: element.getAttribute('data-bid') ?? '', content: element.getAttribute('data-sid') ?? '' });
    }
    if (moves.length >= MAX_MOVES) break;
  }
  return moves;
}

/** The nodes of a boundary's fallback: after its opening comment, up to (not with) its closing `/$` comment. */
function fallbackOf(opening: DomNode): { nodes: DomNode[]; closing: DomNode | null } {
  const nodes: DomNode[] = [];
  let depth = 0;
  for (let node = opening.nextSibling; node; node = node.nextSibling) {
    if (isComment(node)) {
      if (node.data === '/$') {
        if (depth === 0) return { nodes, closing: node };
        depth--;
      } else if (node.data === '$' || node.data === '$?' || node.data === '$!') depth++;
    }
    nodes.push(node);
  }
  return { nodes, closing: null };
}

/** Moves each streamed part into its place, as React's inline scripts do in a browser. */
export function resolveStreamedParts(doc: DomDocument): void {
  const byId = new Map<string, DomElement>();
  for (const element of doc.querySelectorAll('[id^="S:"], [id^="B:"], [id^="P:"]')) {
    const id = element.getAttribute('id')!;
    if (!byId.has(id)) byId.set(id, element);
  }
  if (![...byId.keys()].some((id) => id.startsWith('S:'))) return;
  for (const move of movesOf(doc)) {
    const content = byId.get(move.content);
    if (!content?.parentNode) continue;
    if (move.kind === 'segment') {
      const placeholder = byId.get(move.placeholder);
      // A part moved into itself would make a cycle of the tree: such a page is left as it came.
      if (!placeholder?.parentNode || contains(content, placeholder)) continue;
      placeholder.before(...[...content.childNodes]);
      placeholder.remove();
    } else {
      const boundary = byId.get(move.boundary);
      if (!boundary?.parentNode || contains(content, boundary)) continue;
      const opening = boundary.previousSibling;
      if (isComment(opening) && opening.data === '$?') {
        const { nodes, closing } = fallbackOf(opening);
        if (closing) {
          for (const node of nodes) (node as DomElement).remove();
          (closing as DomElement).before(...[...content.childNodes]);
          opening.data = '$';
        } else {
          boundary.replaceWith(...[...content.childNodes]);
        }
      } else {
        boundary.replaceWith(...[...content.childNodes]);
      }
    }
    content.remove();
  }
}
