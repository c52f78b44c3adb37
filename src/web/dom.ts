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
  replaceWith(node: DomNode | string): void;
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
  // linkedom does not build the implied <html>/<body> of a bare fragment; give it one.
  const source = /<(?:html|body)[\s>]/i.test(html.slice(0, 10_000)) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  return new DOMParser().parseFromString(source, 'text/html') as unknown as DomDocument;
}

/** Whitespace collapsed, ends trimmed; null for nothing. */
export function cleanText(value: string | null | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}
