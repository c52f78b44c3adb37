/**
 * A look at a PDF's compressed streams before pdf.js opens it. pdf.js inflates a stream whole
 * when it reads it, with no limit of its own, so a 1 MB stream of zeros deflated a thousand to one
 * becomes a gigabyte in memory. Here every stream that is zlib data (the FlateDecode filter, whatever
 * its dictionary calls it) is inflated under a cap and counted, through nested layers of zlib
 * too, and the document is refused as soon as one passes the cap.
 *
 * Images are left out: pdf.js never decodes them for text, and a large scan is a real document.
 * A bomb labelled as an image, or hidden behind a filter this does not undo (LZW, ASCII85), is
 * still bounded by the memory limit of the process reading it (document-process.ts).
 */
import zlib from 'node:zlib';

/** A text, font or object stream unpacked past this is a bomb, not a document (real ones stay in the low megabytes). */
export const MAX_STREAM_BYTES = 64 * 1024 * 1024;
/** Nested zlib layers undone (a bomb deflated twice is a few kilobytes). */
const MAX_LAYERS = 3;
/** How far before a stream its dictionary is looked for. */
const DICTIONARY_WINDOW = 16 * 1024;

const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');

/** A zlib header: deflate with a window of at most 32 KB, a valid check value, no preset dictionary (what pdf.js accepts). */
function isZlib(bytes: Buffer, at = 0): boolean {
  if (bytes.length < at + 2) return false;
  const cmf = bytes[at];
  const flg = bytes[at + 1];
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) + flg) % 31 === 0 && (flg & 0x20) === 0;
}

/** The start of each stream's data: after the keyword `stream` (not `endstream`) and its end of line. */
function streamStarts(pdf: Buffer): number[] {
  const starts: number[] = [];
  for (let at = pdf.indexOf(STREAM); at >= 0; at = pdf.indexOf(STREAM, at + STREAM.length)) {
    if (at >= 3 && pdf.toString('latin1', at - 3, at) === 'end') continue;
    let data = at + STREAM.length;
    if (pdf[data] === 0x0d) data++;
    if (pdf[data] === 0x0a) data++;
    if (data === at + STREAM.length) continue; // `stream` inside some other word or string
    starts.push(data);
  }
  return starts;
}

/** The stream's dictionary (the text since the object began), with #xx escapes in names undone as pdf.js does. */
function dictionaryBefore(pdf: Buffer, start: number): string {
  const text = pdf.toString('latin1', Math.max(0, start - DICTIONARY_WINDOW), start);
  const object = Math.max(text.lastIndexOf(' obj'), text.lastIndexOf('\nobj'), text.lastIndexOf('\robj'));
  const dictionary = object >= 0 ? text.slice(object) : text;
  return dictionary.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * What zlib data unpacks to, through nested layers, counted up to just past `cap`: the inflate
 * stops as soon as its output passes the cap, having held at most that much. A truncated stream
 * counts as far as it goes (pdf.js reads that far too).
 */
function unpackedSize(data: Buffer, cap: number, layer = 1): number {
  let out: Buffer;
  try {
    out = zlib.inflateSync(data, { maxOutputLength: cap, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch (error) {
    // Past the cap; any other error is a damaged stream, which pdf.js cannot read past either.
    return (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? cap + 1 : 0;
  }
  return layer < MAX_LAYERS && isZlib(out) ? Math.max(out.length, unpackedSize(out, cap, layer + 1)) : out.length;
}

/** Why a PDF is refused before pdf.js opens it, or null when its streams are within the limits. */
export function oversizedStream(pdf: Uint8Array, cap = MAX_STREAM_BYTES): string | null {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  for (const start of streamStarts(bytes)) {
    if (!isZlib(bytes, start)) continue;
    if (/\/Subtype\s*\/Image\b/.test(dictionaryBefore(bytes, start))) continue;
    // The data runs to the end of the file at most: zlib knows where its stream ends, and an
    // `endstream` planted inside the data cannot hide the rest of it.
    const size = unpackedSize(bytes.subarray(start), cap);
    if (size > cap) {
      const end = bytes.indexOf(ENDSTREAM, start);
      const packed = end > start ? end - start : bytes.length - start;
      return `a compressed stream of ${Math.ceil(packed / 1024)} KB in it unpacks to more than ${cap / 1024 / 1024} MB (a compression bomb, not a document)`;
    }
  }
  return null;
}
