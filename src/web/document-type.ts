/**
 * Which fetched bodies are documents Gleaner reads as pages (PDF, Word .docx). The bytes decide
 * first (servers label PDFs application/octet-stream, or even text/html), then the declared type,
 * so a damaged file that says it is a PDF still reaches the PDF reader and gets its clear error.
 */
import { zipEntries } from './zip.js';

export type DocumentType = 'pdf' | 'docx';

const PDF_TYPES = /^application\/(?:x-)?pdf$/i;
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * PDF readers accept the header anywhere in the first kilobyte (some files start with junk); a body
 * declared as text must start with it, so a web page that merely mentions "%PDF-" stays a page.
 */
function isPdf(declared: string, body: Buffer): boolean {
  const at = body.subarray(0, 1024).indexOf('%PDF-');
  return at === 0 || (at > 0 && !declared.startsWith('text/'));
}

/** A ZIP archive (PK\x03\x04) whose directory holds word/document.xml. */
function isDocx(body: Buffer): boolean {
  if (body.length < 30 || body.readUInt32LE(0) !== 0x04034b50) return false;
  return zipEntries(body)?.some((entry) => entry.name === 'word/document.xml') ?? false;
}

/** `declared` is the Content-Type without parameters, lower case. */
export function documentTypeOf(declared: string, body: Buffer): DocumentType | null {
  if (isPdf(declared, body)) return 'pdf';
  if (isDocx(body)) return 'docx';
  if (PDF_TYPES.test(declared)) return 'pdf';
  if (declared === DOCX_TYPE) return 'docx';
  return null;
}
