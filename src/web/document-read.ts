/** What the document readers (pdf.ts, docx.ts) hand to the renderer, and how they refuse a file. */

export interface DocumentInfo {
  title: string | null;
  author: string | null;
  subject: string | null;
  keywords: string[];
  /** ISO 8601. */
  created: string | null;
  language: string | null;
  /** PDFs: the page count. */
  pages?: number;
}

export interface ReadDocument {
  info: DocumentInfo;
  /** HTML of each part: one a page for a PDF, one in all for a Word document. */
  parts: string[];
  /** Absolute http(s) links in the document, each once. */
  links: string[];
}

/** A document that cannot be read (damaged, protected, no text): CONTENT_UNREADABLE with this message. */
export class DocumentUnreadable extends Error {
  override name = 'DocumentUnreadable';
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
