/** Metadata of any web page (the `metadata` operation's fallback when no platform owns the URL). */
import type { HttpClient } from '../net/http.js';
import type { Metadata } from '../model/content.js';
import { parseDocument } from './dom.js';
import { loadPage, NEVER_RENDER, type RenderChoice } from './render/load.js';
import { baseUrlOf } from './links.js';
import { extractPageMetadata } from './page-metadata.js';
import { documentMetadataOffThread, type DocumentSettings } from './document-pool.js';

export interface WebPageMetadata {
  metadata: Metadata;
  /** True when read from the DOM a browser built (render/load.ts). */
  rendered: boolean;
  warnings: string[];
}

export async function webPageMetadata(http: HttpClient, url: string, signal?: AbortSignal, documents?: DocumentSettings): Promise<Metadata> {
  return (await readWebPageMetadata(http, url, signal, NEVER_RENDER, documents)).metadata;
}

/** The metadata with how it was read: from the DOM a browser built when `render` asks for it and the page needs it. */
export async function readWebPageMetadata(
  http: HttpClient,
  url: string,
  signal?: AbortSignal,
  render: RenderChoice = NEVER_RENDER,
  documents?: DocumentSettings,
): Promise<WebPageMetadata> {
  const page = await loadPage(http, url, render, { signal, documentMaxBytes: documents?.maxBytes });
  const { rendered, warnings } = page;
  if (page.document) {
    // A document's properties (title, author, dates, a PDF's page count), without reading its text.
    const metadata = await documentMetadataOffThread({ type: page.document.type, bytes: page.document.bytes, url: page.url }, { timeoutMs: documents?.timeoutMs, owner: documents?.owner, signal });
    return { metadata, rendered, warnings };
  }
  if (page.kind !== 'html') {
    // A text document has no title or description to read; say only what is known.
    return { metadata: { platform: 'web', url: page.url, id: page.url, title: null, description: null, author: null, thumbnails: [], tags: [] }, rendered, warnings };
  }
  const doc = parseDocument(page.text);
  return { metadata: extractPageMetadata(doc, { url: page.url, baseUrl: baseUrlOf(doc, page.url), contentLanguage: page.headers['content-language'] }), rendered, warnings };
}
