/** The links of an HTML page without the cost of main-content extraction (map's link discovery). */
import { parseDocument, type DomDocument } from './dom.js';
import { normalizeUrl } from './urls.js';

/** The base for a page's relative URLs: its <base href>, else its own URL. */
export function baseUrlOf(doc: DomDocument, pageUrl: string): string {
  let base = pageUrl;
  const href = doc.querySelector('base[href]')?.getAttribute('href');
  if (href) {
    try {
      base = new URL(href, pageUrl).toString();
    } catch {
      // A broken <base> is ignored, as browsers do.
    }
  }
  return base;
}

/** Links of a parsed page: absolute, http(s), normalised (no fragments), each once. */
export function documentLinks(doc: DomDocument, base: string): string[] {
  const links = new Set<string>();
  for (const anchor of doc.querySelectorAll('a[href], area[href]')) {
    const value = anchor.getAttribute('href') ?? '';
    if (/^\s*(?:javascript|mailto|tel|data):/i.test(value)) continue;
    const url = normalizeUrl(value, base);
    if (url) links.add(url);
  }
  return [...links];
}

export function pageLinks(html: string, pageUrl: string): string[] {
  const doc = parseDocument(html);
  return documentLinks(doc, baseUrlOf(doc, pageUrl));
}
