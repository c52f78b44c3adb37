/**
 * The work of a document reader process (document-child.ts, document-process.ts): one PDF or Word
 * file in, its page or its metadata out. Failures come back as values: an Error crossing the
 * process boundary loses its kind.
 */
import type { Metadata } from '../model/content.js';
import type { DocumentType } from './document-type.js';
import type { ContentFormat, ExtractedPage } from './extract.js';
import { DocumentUnreadable, MemoryRefused, type DocumentInfo, type ReadDocument } from './document-read.js';
import { documentMetadata, renderDocument } from './document-render.js';
import { readPdf, readPdfInfo } from './pdf.js';
import { readDocx, readDocxInfo } from './docx.js';

// stdout carries the MCP protocol in stdio mode: anything the libraries print goes to stderr
// (the reader's stdout is the server's stderr as well).
console.log = console.info = console.debug = console.error;

export interface DocumentTask {
  type: DocumentType;
  bytes: Uint8Array;
  url: string;
  /** A page in this format, or the metadata alone. */
  want: ContentFormat | 'metadata';
}

/** `unreadable`: the document's fault (CONTENT_UNREADABLE); otherwise a defect in Gleaner. */
export type DocumentOutcome =
  | { ok: true; page: ExtractedPage }
  | { ok: true; metadata: Metadata }
  | { ok: false; unreadable: boolean; message: string; memory?: true };

/** A reader's first message: it has loaded its libraries, and had `dataMb` mapped then (null off Linux). */
export interface ReaderReady {
  ready: true;
  dataMb: number | null;
}

/** pdf.js takes a plain Uint8Array only, and a Buffer crosses the process boundary as a Buffer. */
const plain = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes);

async function info(task: DocumentTask): Promise<DocumentInfo> {
  return task.type === 'pdf' ? readPdfInfo(plain(task.bytes), task.url) : readDocxInfo(Buffer.from(task.bytes), task.url);
}

async function read(task: DocumentTask): Promise<ReadDocument> {
  return task.type === 'pdf' ? readPdf(plain(task.bytes), task.url) : readDocx(Buffer.from(task.bytes), task.url);
}

export default async function readDocumentTask(task: DocumentTask): Promise<DocumentOutcome> {
  try {
    if (task.want === 'metadata') return { ok: true, metadata: documentMetadata(task.url, task.type, await info(task)) };
    return { ok: true, page: renderDocument(await read(task), task.type, task.url, task.want) };
  } catch (error) {
    if (error instanceof MemoryRefused) return { ok: false, unreadable: true, message: error.message, memory: true };
    if (error instanceof DocumentUnreadable) return { ok: false, unreadable: true, message: error.message };
    return { ok: false, unreadable: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
