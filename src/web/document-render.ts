/**
 * A read document in the scrape formats, through the same converters as web pages. A PDF's pages
 * stay apart: markdown puts a thematic break (`---`) between them, text a form feed (`\f`, as
 * pdftotext does) on a line of its own, and HTML one `<section data-page="N">` a page.
 */
import type { Metadata } from '../model/content.js';
import type { DocumentType } from './document-type.js';
import type { DocumentInfo, ReadDocument } from './document-read.js';
import type { ContentFormat, ExtractedPage } from './extract.js';
import { htmlToText } from './extract.js';
import { htmlToMarkdown } from './markdown.js';
import { parseDocument, type DomElement } from './dom.js';

const PAGE_BREAK: Record<ContentFormat, string> = { markdown: '\n\n---\n\n', text: '\n\f\n', html: '\n' };

function body(html: string): DomElement {
  return parseDocument(`<!doctype html><html><body>${html}</body></html>`).body as DomElement;
}

function render(html: string, format: ContentFormat): string {
  if (!html) return '';
  if (format === 'html') return html;
  return format === 'text' ? htmlToText(body(html)) : htmlToMarkdown(body(html));
}

export function documentMetadata(url: string, type: DocumentType, info: DocumentInfo): Metadata {
  return {
    platform: 'web',
    url,
    id: url,
    title: info.title,
    description: info.subject,
    author: info.author ? { name: info.author } : null,
    thumbnails: [],
    tags: info.keywords,
    ...(info.created ? { publishedAt: info.created } : {}),
    ...(info.language ? { language: info.language } : {}),
    documentType: type,
    ...(info.pages !== undefined ? { pages: info.pages } : {}),
  };
}

/** The first heading of the document, for a title when its properties name none. */
function firstHeading(parts: string[]): string | null {
  for (const part of parts) {
    const match = part.match(/<h[12][^>]*>([\s\S]*?)<\/h[12]>/);
    if (match) {
      const text = htmlToText(body(match[1])).replace(/\s+/g, ' ').trim();
      if (text) return text;
    }
  }
  return null;
}

export function renderDocument(read: ReadDocument, type: DocumentType, url: string, format: ContentFormat): ExtractedPage {
  const pages =
    type === 'pdf' && format === 'html'
      ? read.parts.map((part, i) => `<section data-page="${i + 1}">\n${part}\n</section>`)
      : read.parts.map((part) => render(part, format));
  const content = pages.join(type === 'pdf' ? PAGE_BREAK[format] : '\n\n').trim();
  return {
    title: read.info.title ?? firstHeading(read.parts),
    content,
    links: read.links,
    metadata: documentMetadata(url, type, read.info),
    warnings: [],
  };
}
