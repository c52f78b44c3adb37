/**
 * Just enough of the ZIP format to recognise a Word document and read its small parts (the core
 * properties): the central directory's names, and one entry inflated under a size cap. Mammoth
 * reads the document body itself; this never touches more than the entries asked for.
 */
import zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeader: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/** The entries of a ZIP archive, or null when the bytes are not one (no readable central directory). */
export function zipEntries(bytes: Buffer): ZipEntry[] | null {
  // The end record is the last 22 bytes, unless an archive comment (at most 65,535 bytes) follows it.
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  let end = -1;
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (bytes.readUInt32LE(at) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) return null;
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== DIRECTORY_ENTRY) return null;
    const nameLength = bytes.readUInt16LE(at + 28);
    entries.push({
      name: bytes.toString('utf8', at + 46, at + 46 + nameLength),
      method: bytes.readUInt16LE(at + 10),
      compressedSize: bytes.readUInt32LE(at + 20),
      size: bytes.readUInt32LE(at + 24),
      localHeader: bytes.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return entries;
}

/** One entry's bytes (stored or deflated), or null when it is missing, damaged or larger than maxBytes. */
export function readZipEntry(bytes: Buffer, entries: ZipEntry[], name: string, maxBytes: number): Buffer | null {
  const entry = entries.find((candidate) => candidate.name === name);
  if (!entry || entry.localHeader + 30 > bytes.length || bytes.readUInt32LE(entry.localHeader) !== LOCAL_HEADER) return null;
  const start = entry.localHeader + 30 + bytes.readUInt16LE(entry.localHeader + 26) + bytes.readUInt16LE(entry.localHeader + 28);
  const data = bytes.subarray(start, start + entry.compressedSize);
  try {
    if (entry.method === 0) return data.length <= maxBytes ? data : null;
    if (entry.method === 8) return zlib.inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return null;
  }
  return null;
}
