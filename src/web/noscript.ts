/**
 * Pages whose text is their no-script fallback: some sites send the content inside <noscript> for
 * readers and crawlers without scripts, beside an app shell that scripts fill (Discourse forums send
 * the whole thread so). Readability drops every <noscript>, and the page's text with it.
 */
import type { DomDocument, DomNode } from './dom.js';

/** A <noscript> block holding at least this much text may be the page's content (below it: an image fallback, "enable JavaScript"). */
const NOSCRIPT_CONTENT = 200;

/** A tag written as text. */
const ESCAPED_MARKUP = /<\/?[a-z][a-z0-9]*[\s>\/]/i;

/** Text length under a node, whitespace collapsed, without scripts, styles, templates and <noscript> blocks. */
function visibleTextLength(root: DomNode): number {
  let length = 0;
  const stack: DomNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 3) length += (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
    else if (node.nodeType === 1 && (node === root || !/^(?:SCRIPT|STYLE|TEMPLATE|NOSCRIPT)$/.test(node.nodeName))) for (const child of node.childNodes) stack.push(child);
  }
  return length;
}

/** The text directly in a node, not in its elements. */
const ownText = (node: DomNode): string => [...node.childNodes].filter((child) => child.nodeType === 3).map((child) => child.textContent ?? '').join('');

/**
 * When the body's <noscript> blocks hold more text than the rest of the body, they become part of the
 * page, as a browser without scripts or a crawler reads it. Says whether it did.
 */
export function unwrapContentNoscripts(doc: DomDocument): boolean {
  const body = doc.body;
  if (!body) return false;
  const blocks = [...body.querySelectorAll('noscript')].filter((block) => {
    const text = (block.textContent ?? '').replace(/\s+/g, ' ').trim();
    // Markup as text (a page saved from a browser that ran scripts, which keeps <noscript> as text) is no
    // content; a tag written in a post's code sample, inside the block's own elements, is (a thread's log).
    return text.length >= NOSCRIPT_CONTENT && !ESCAPED_MARKUP.test(ownText(block));
  });
  if (!blocks.length) return false;
  const inside = blocks.reduce((sum, block) => sum + visibleTextLength(block), 0);
  if (inside <= visibleTextLength(body)) return false;
  for (const block of blocks) if (block.parentNode) block.replaceWith(...[...block.childNodes]);
  return true;
}
