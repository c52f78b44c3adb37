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

/** A document the reader's memory limit stopped: a reader that read others before gets a second, fresh try. */
export class MemoryRefused extends DocumentUnreadable {
  override name = 'MemoryRefused';
}

/** All the memory one document reader may use (document-process.ts sets the limit). */
export const READER_MEMORY_MB = 1024;

/**
 * An allocation the reader's memory limit refused (RLIMIT_DATA), as pdf.js or mammoth pass it on:
 * the document needs more memory than a document may use, and says so instead of the library's words.
 */
export function memoryRefusal(error: unknown, url: string): MemoryRefused | null {
  const message = (error as Error)?.message ?? '';
  if (!/Array buffer allocation failed|allocation failed|Invalid typed array length|Invalid array buffer length/i.test(message)) return null;
  return new MemoryRefused(`Reading ${url} needed more than the ${READER_MEMORY_MB} MB of memory a document may use; it was stopped.`);
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
