/** Metadata of any web page (the `metadata` operation's fallback when no platform owns the URL). */
import type { HttpClient } from '../net/http.js';
import type { Metadata } from '../platforms/types.js';
import { parseDocument } from './dom.js';
import { fetchPage } from './fetch-page.js';
import { baseUrlOf } from './links.js';
import { extractPageMetadata } from './page-metadata.js';
import { documentMetadataOffThread, type DocumentSettings } from './document-pool.js';

export async function webPageMetadata(http: HttpClient, url: string, signal?: AbortSignal, documents?: DocumentSettings): Promise<Metadata> {
  const page = await fetchPage(http, url, { signal, documentMaxBytes: documents?.maxBytes });
  if (page.document) {
    // A document's properties (title, author, dates, a PDF's page count), without reading its text.
    return documentMetadataOffThread({ type: page.document.type, bytes: page.document.bytes, url: page.url }, { timeoutMs: documents?.timeoutMs, signal });
  }
  if (page.kind !== 'html') {
    // A text document has no title or description to read; say only what is known.
    return { platform: 'web', url: page.url, id: page.url, title: null, description: null, author: null, thumbnails: [], tags: [] };
  }
  const doc = parseDocument(page.text);
  return extractPageMetadata(doc, { url: page.url, baseUrl: baseUrlOf(doc, page.url), contentLanguage: page.headers['content-language'] });
}
