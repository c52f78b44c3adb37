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
  const source = /<html[\s>]/i.test(start)
    ? html
    : /<(?:head|body)[\s>]/i.test(start)
      ? `<!doctype html><html>${html}</html>`
      : `<!doctype html><html><head></head><body>${html}</body></html>`;
  const doc = new DOMParser().parseFromString(source, 'text/html') as unknown as DomDocument;
  repairDocument(doc, source);
  return doc;
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
  const outside: DomNode[] = [];
  for (const child of [...root.childNodes]) if (child !== head && child !== body) outside.push(child);
  for (const child of [...doc.childNodes]) if (child !== root && child.nodeType !== 10 && child.nodeType !== 8) outside.push(child);
  const meaningful = outside.filter((child) => child.nodeType === 1 || (child.nodeType === 3 && /\S/.test(child.textContent ?? '')));
  if (meaningful.length) body.append(...meaningful);
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
