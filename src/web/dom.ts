/**
 * Parsing HTML into a DOM (linkedom: fast, no browser) and the few DOM types the web code reads,
 * written out because the project compiles without the DOM lib.
 */
import { DOMParser } from 'linkedom';

export interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode> & Iterable<DomNode>;
  parentNode: DomNode | null;
  nextSibling?: DomNode | null;
  previousSibling?: DomNode | null;
  ownerDocument?: DomDocument | null;
}

export interface DomElement extends DomNode {
  tagName: string;
  innerHTML: string;
  outerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement> & Iterable<DomElement>;
  remove(): void;
  /** Merges adjacent text nodes (the parser may split one text into several). */
  normalize(): void;
  replaceWith(...nodes: (DomNode | string)[]): void;
  append(...nodes: (DomNode | string)[]): void;
  prepend(...nodes: (DomNode | string)[]): void;
  before(...nodes: (DomNode | string)[]): void;
}

/** Whether `node` lies inside `ancestor` (strictly: a node does not contain itself). */
export function contains(ancestor: DomNode, node: DomNode): boolean {
  for (let at: DomNode | null = node.parentNode; at; at = at.parentNode) if (at === ancestor) return true;
  return false;
}

/**
 * Whether an element holds an element of one of these tag names (upper case), as `querySelector('p, div')`
 * finds one (a template's content is not searched). linkedom compiles the selector on every call, which in
 * the cleaning's loops over every block of an article cost more than the walk itself.
 */
export function holdsTag(root: DomElement, names: ReadonlySet<string>): boolean {
  const stack: DomNode[] = [...root.childNodes];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType !== 1) continue;
    if (names.has(node.nodeName)) return true;
    if (node.nodeName !== 'TEMPLATE') for (const child of node.childNodes) stack.push(child);
  }
  return false;
}

export interface DomDocument {
  documentElement: DomElement;
  head: DomElement | null;
  body: DomElement | null;
  title: string;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement> & Iterable<DomElement>;
  getElementsByTagName(name: string): ArrayLike<DomElement> & Iterable<DomElement>;
  createElement(name: string): DomElement;
  childNodes: ArrayLike<DomNode> & Iterable<DomNode>;
}

/**
 * linkedom's tables have no `rows`, which the markdown table rule (turndown's GFM plugin) reads to
 * decide whether a table can be a markdown table; without it every table would come out as loose
 * paragraphs. The standard getter: the table's own rows, then those of its sections.
 */
function addTableRows(): void {
  const prototype = Object.getPrototypeOf(new DOMParser().parseFromString('<table></table>', 'text/html').querySelector('table'));
  if (!prototype || 'rows' in prototype) return;
  Object.defineProperty(prototype, 'rows', {
    configurable: true,
    get(this: DomElement) {
      const rows: DomElement[] = [];
      for (const child of Array.from(this.childNodes) as DomElement[]) {
        if (child.nodeName === 'TR') rows.push(child);
        else if (/^(?:THEAD|TBODY|TFOOT)$/.test(child.nodeName)) {
          for (const row of Array.from(child.childNodes) as DomElement[]) if (row.nodeName === 'TR') rows.push(row);
        }
      }
      return rows;
    },
  });
}
addTableRows();

export function parseDocument(html: string): DomDocument {
  // linkedom does not build the implied <html>/<body> of a bare fragment (it takes the first element
  // for the document); give it them.
  const start = html.slice(0, 10_000);
  const htmlTag = htmlTagAt(start);
  const source = htmlTag >= 0
    ? htmlFirst(html, htmlTag)
    : /<(?:head|body)[\s>]/i.test(start)
      ? `<!doctype html><html>${html}</html>`
      : `<!doctype html><html><head></head><body>${html}</body></html>`;
  let doc = new DOMParser().parseFromString(source, 'text/html') as unknown as DomDocument;
  // Whatever the source, the rest of the code needs an <html> root with a body: should linkedom still
  // have taken another element for the document, the page is parsed again as a fragment.
  if (doc.documentElement?.nodeName !== 'HTML' || !doc.body) {
    doc = new DOMParser().parseFromString(`<!doctype html><html><head></head><body>${html}</body></html>`, 'text/html') as unknown as DomDocument;
  }
  repairDocument(doc, source);
  return doc;
}

/** Where the first <html> tag outside a comment starts (conditional comments hold some: `<!--[if IE]><html class="ie"><![endif]-->`), or -1. */
function htmlTagAt(start: string): number {
  const tag = /<!--[\s\S]*?(?:-->|$)|<html[\s>]/gi;
  for (let match = tag.exec(start); match; match = tag.exec(start)) {
    if (!match[0].startsWith('<!--')) return match.index;
  }
  return -1;
}

/**
 * The source with its <html> tag first. linkedom takes the first element it meets for the document:
 * a <script>, <meta> or stray text before <html> (which real pages have: analytics snippets, a
 * server's debug output) became the root, with no body, and the extraction crashed. What came before
 * the tag moves into the page's head, which a browser's parser does too (the repair below
 * then moves text and other elements from the head to the body); a doctype, an XML declaration and
 * comments before it are dropped, as they carry no content.
 */
function htmlFirst(html: string, at: number): string {
  if (at === 0) return html;
  const before = html.slice(0, at).replace(/^\ufeff/, '').replace(/<!doctype[^>]*>|<\?xml[^>]*>|<!--[\s\S]*?-->/gi, '');
  if (!before.trim()) return html;
  // Into the page's <head>, or a new one: linkedom reads a <head> or <body> that follows other content
  // in <html> as one more element of the body. The repair then moves text and other elements on to the body.
  const rest = html.slice(at);
  const head = /<head[\s>]/i.exec(rest.slice(0, 10_000));
  const end = rest.indexOf('>', head ? head.index : 0);
  if (end < 0) return `<!doctype html>${before}${rest}`;
  return `<!doctype html>${rest.slice(0, end + 1)}${head ? before : `<head>${before}</head>`}${rest.slice(end + 1)}`;
}

/** What may stay in <head>; anything else there is page content the parser put in the wrong place. */
const HEAD_CONTENT = new Set(['TITLE', 'META', 'LINK', 'STYLE', 'SCRIPT', 'BASE', 'NOSCRIPT', 'TEMPLATE']);

/**
 * Puts the page's content into <body> where linkedom left it outside, as a browser's parser would:
 * without a <body> tag linkedom makes an empty body and leaves the content beside it in <html>;
 * content before </head> stays in the head, and content after </html> outside the document. Without
 * this, the text and the whole-page modes of such pages came back empty.
 */
function repairDocument(doc: DomDocument, source: string): void {
  const root = doc.documentElement;
  const body = doc.body;
  if (!root || !body) return;
  const head = doc.head;
  const strays: DomNode[] = [];
  if (head) {
    for (const child of [...head.childNodes]) {
      if (child.nodeType === 1 ? !HEAD_CONTENT.has(child.nodeName.toUpperCase()) : child.nodeType === 3 && /\S/.test(child.textContent ?? '')) strays.push(child);
    }
  }
  if (strays.length) body.prepend(...strays);
  // Beside <head> and <body> in <html>: head elements (a <meta> or <script> that came before <html>)
  // go to the head, content before the body to the body's start, content after it to its end.
  const leading: DomNode[] = [];
  const outside: DomNode[] = [];
  let afterBody = false;
  for (const child of [...root.childNodes]) {
    if (child === body) afterBody = true;
    else if (child === head) continue;
    else if (!afterBody && head && child.nodeType === 1 && HEAD_CONTENT.has(child.nodeName.toUpperCase())) head.append(child);
    else (afterBody ? outside : leading).push(child);
  }
  for (const child of [...doc.childNodes]) if (child !== root && child.nodeType !== 10 && child.nodeType !== 8) outside.push(child);
  const meaningful = (nodes: DomNode[]) => nodes.filter((child) => child.nodeType === 1 || (child.nodeType === 3 && /\S/.test(child.textContent ?? '')));
  if (meaningful(leading).length) body.prepend(...meaningful(leading));
  if (meaningful(outside).length) body.append(...meaningful(outside));
  // A second <html> or <body> (pages glued together, templates that wrap a whole page): its content
  // belongs to the one body. Looked for only when the source has more than one such tag.
  if ((source.match(/<(?:html|body)[\s>]/gi)?.length ?? 0) > 2) {
    for (const nested of [...body.querySelectorAll('html, body, head')]) {
      if (nested.nodeName === 'HEAD') {
        for (const child of [...nested.childNodes]) if (child.nodeType === 1 && HEAD_CONTENT.has(child.nodeName.toUpperCase())) (child as DomElement).remove();
      }
      nested.replaceWith(...nested.childNodes);
    }
  }
}

/** Whitespace collapsed, ends trimmed; null for nothing. */
export function cleanText(value: string | null | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

/** The words of a class or id, split at dashes, underscores and a lower-to-upper case change (`ipsComment_parent` → ips, Comment, parent; `Footer_linksList`). */
export const nameWords = (name: string): string[] => name.split(/[-_\s]+|(?<=[a-z])(?=[A-Z])/).filter(Boolean);
