/** Plain text of HTML or of a DOM element: one line per block, a blank line between paragraphs, tabs between cells. */
import { parseDocument, type DomElement, type DomNode } from './dom.js';

const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'DD', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6',
  'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TR', 'UL', 'BODY', 'HTML', 'CAPTION', 'DETAILS', 'SUMMARY',
]);

/** Plain text with one line per block, one blank line between paragraphs, tabs between table cells. */
export function htmlToText(html: string | DomElement): string {
  const root = typeof html === 'string' ? parseDocument(html) : null;
  const out: string[] = [];
  // A stack of nodes and closing breaks, not recursion: the last fallback must survive any depth.
  const stack: Array<DomNode | string> = [];
  const walk = (start: DomNode) => {
    stack.push(start);
    while (stack.length) {
      const node = stack.pop()!;
      if (typeof node === 'string') {
        out.push(node);
        continue;
      }
      if (node.nodeType === 3) {
        out.push((node.textContent ?? '').replace(/\s+/g, ' '));
        continue;
      }
      if (node.nodeType !== 1) continue;
      const name = node.nodeName.toUpperCase();
      if (/^(?:SCRIPT|STYLE|NOSCRIPT|TEMPLATE|SVG)$/.test(name)) continue;
      if (name === 'BR') {
        out.push('\n');
        continue;
      }
      if (name === 'PRE') {
        out.push('\n\n', node.textContent ?? '', '\n\n');
        continue;
      }
      if (name === 'TD' || name === 'TH') out.push('\t');
      const block = BLOCK.has(name);
      const gap = name === 'P' || /^H\d$/.test(name) ? '\n\n' : '\n';
      if (block) {
        out.push(gap);
        stack.push(gap);
      }
      const children = [...node.childNodes];
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  };
  walk(root ? ((root.body ?? root.documentElement) as DomNode) : (html as DomElement));
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \u00a0]+/g, ' ').replace(/^[ \t]+|[ \t]+$/g, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
