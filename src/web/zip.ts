/**
 * Just enough of the ZIP format to recognise a Word document and unpack it under limits: the
 * central directory's names, and every entry inflated through a capped streaming inflate. An
 * archive's directory declares each part's unpacked size; a hostile one declares little and
 * unpacks to gigabytes, so the inflate stops as soon as a part passes what was declared (or the
 * archive passes its total), having held at most that much.
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
/** A 32-bit size or offset of all ones means "see the ZIP64 record", which Word never needs. */
const ZIP64_MARK = 0xffffffff;

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

/** Why an archive was not unpacked; the document readers turn it into their own message. */
export class ZipRefused extends Error {
  override name = 'ZipRefused';
}

/** The compressed bytes of an entry, found through its local header. */
function entryData(bytes: Buffer, entry: ZipEntry): Buffer {
  if (entry.compressedSize === ZIP64_MARK || entry.size === ZIP64_MARK || entry.localHeader === ZIP64_MARK) {
    throw new ZipRefused(`its part ${entry.name} uses ZIP64 sizes, which no Word document of a readable size needs`);
  }
  if (entry.localHeader + 30 > bytes.length || bytes.readUInt32LE(entry.localHeader) !== LOCAL_HEADER) throw new ZipRefused(`its part ${entry.name} is damaged`);
  const start = entry.localHeader + 30 + bytes.readUInt16LE(entry.localHeader + 26) + bytes.readUInt16LE(entry.localHeader + 28);
  if (start + entry.compressedSize > bytes.length) throw new ZipRefused(`its part ${entry.name} is cut short`);
  return bytes.subarray(start, start + entry.compressedSize);
}

/**
 * Inflates raw deflate data chunk by chunk, stopping (and dropping what it holds) as soon as the
 * output passes `cap`: null then. With `keep` false the chunks are counted and let go.
 */
export function inflateCapped(data: Buffer, cap: number, keep: boolean): Promise<{ size: number; bytes: Buffer | null } | null> {
  return new Promise((resolve, reject) => {
    const inflater = zlib.createInflateRaw({ chunkSize: 64 * 1024 });
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    inflater.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > cap) {
        over = true;
        chunks.length = 0;
        inflater.destroy();
        resolve(null);
        return;
      }
      if (keep) chunks.push(chunk);
    });
    inflater.on('error', (error) => (over ? undefined : reject(error)));
    inflater.on('end', () => resolve({ size, bytes: keep ? Buffer.concat(chunks, size) : null }));
    inflater.end(data);
  });
}

export interface UnpackLimits {
  /** All parts together, counted as they really unpack (every part, whatever its name). */
  maxTotalBytes: number;
  /** The parts whose bytes are kept; the others are unpacked, counted and dropped. */
  keep: (name: string) => boolean;
}

/**
 * Every part of the archive unpacked under the limits: the declared sizes must fit the total, and
 * each part must unpack to no more than its declared size (else ZipRefused, as soon as it passes).
 * Returns the kept parts, and the names of the others.
 */
export async function unpackZip(bytes: Buffer, entries: ZipEntry[], limits: UnpackLimits): Promise<{ kept: Map<string, Buffer>; dropped: string[] }> {
  const declared = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (declared > limits.maxTotalBytes) {
    throw new ZipRefused(`its parts declare ${megabytes(declared)} MB unpacked, more than the ${megabytes(limits.maxTotalBytes)} MB Gleaner unpacks from one document`);
  }
  const kept = new Map<string, Buffer>();
  const dropped: string[] = [];
  for (const entry of entries) {
    if (entry.name.endsWith('/') && entry.size === 0) continue; // a folder
    const data = entryData(bytes, entry);
    const keep = limits.keep(entry.name);
    let unpacked: Buffer | null = null;
    if (entry.method === 0) {
      if (data.length > entry.size) throw new ZipRefused(`its part ${entry.name} holds more bytes than its directory declares`);
      unpacked = data;
    } else if (entry.method === 8) {
      const result = await inflateCapped(data, entry.size, keep).catch(() => {
        throw new ZipRefused(`its part ${entry.name} is damaged`);
      });
      if (!result) throw new ZipRefused(`its part ${entry.name} unpacks to more than the ${entry.size} bytes its directory declares (a ZIP bomb, not a document)`);
      unpacked = result.bytes;
    } else {
      throw new ZipRefused(`its part ${entry.name} uses a compression method (${entry.method}) Word does not write`);
    }
    if (keep && unpacked) kept.set(entry.name, unpacked);
    else dropped.push(entry.name);
  }
  return { kept, dropped };
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

/**
 * An archive of the given parts, stored without compression: what another ZIP reader (mammoth's)
 * gets, so it has nothing left to inflate and holds exactly what was unpacked here under the limits.
 */
export function storedZip(parts: Array<[name: string, bytes: Buffer]>): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, bytes] of parts) {
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = zlib.crc32(bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // names in UTF-8
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(bytes.length, 18);
    local.writeUInt32LE(bytes.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(DIRECTORY_ENTRY, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(bytes.length, 20);
    central.writeUInt32LE(bytes.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, bytes);
    directory.push(central, nameBytes);
    offset += 30 + nameBytes.length + bytes.length;
  }
  const directorySize = directory.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_DIRECTORY, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...directory, end]);
}
