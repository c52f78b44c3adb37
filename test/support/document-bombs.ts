/**
 * Hostile documents built in the test, never committed: Word files whose parts unpack to
 * gigabytes, and PDFs whose content stream does. The compressed data is one deflated megabyte of
 * spaces repeated (each copy ends on a full flush, so it stands alone), so a 1.5 GB bomb is built
 * in milliseconds without ever holding the unpacked bytes. Next to each, the same file made
 * harmless, which the reader must read (so a refusal is the bomb's, not a broken file's).
 */
import zlib from 'node:zlib';

const MB = 1024 * 1024;

/** Raw deflate data that unpacks to `megabytes` MB of `fill` bytes (about 1 KB a megabyte). */
export function deflateBomb(megabytes: number, fill = 0x20): Buffer {
  const segment = zlib.deflateRawSync(Buffer.alloc(MB, fill), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  // The final block: fixed Huffman codes, nothing but its end.
  return Buffer.concat([...Array<Buffer>(megabytes).fill(segment), Buffer.from([0x03, 0x00])]);
}

export interface ZipPart {
  name: string;
  /** Raw deflate data, or the plain bytes to deflate here. */
  deflated?: Buffer;
  text?: string;
  /** The unpacked size the archive declares (default: the real one). */
  declaredSize?: number;
}

/** A ZIP archive of deflated parts, each declaring the size given (true or not). */
export function zipArchive(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const plain = part.text === undefined ? null : Buffer.from(part.text, 'utf8');
    const data = part.deflated ?? zlib.deflateRawSync(plain ?? Buffer.alloc(0));
    const size = part.declaredSize ?? plain?.length ?? 0;
    const crc = plain ? zlib.crc32(plain) : 0;
    const name = Buffer.from(part.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    directory.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.reduce((sum, b) => sum + b.length, 0), 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...directory, end]);
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** The parts of a small real Word document, saying `text`. */
export function wordParts(text: string): ZipPart[] {
  return [
    {
      name: '[Content_Types].xml',
      text: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    { name: '_rels/.rels', text: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>` },
    { name: 'word/document.xml', text: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>` },
    { name: 'word/_rels/document.xml.rels', text: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${RELS}"></Relationships>` },
  ];
}

/** The Word document with one part replaced by a bomb of `megabytes` MB declaring `declaredSize` bytes. */
export function wordBomb(part: string, megabytes: number, declaredSize: number): Buffer {
  return zipArchive(wordParts('Hello from a small Word file.').map((p) => (p.name === part ? { name: part, deflated: deflateBomb(megabytes), declaredSize } : p)));
}

/**
 * A one-page PDF whose content stream is the given zlib data (FlateDecode), with an xref table.
 * `extra` goes into the stream's dictionary.
 */
export function pdfWithContent(zlibData: Buffer, extra = ''): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const chunks: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = chunks[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const object =
      body === null
        ? Buffer.concat([Buffer.from(`${i + 1} 0 obj\n<< /Length ${zlibData.length} /Filter /FlateDecode${extra} >>\nstream\n`), zlibData, Buffer.from('\nendstream\nendobj\n')])
        : Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`);
    chunks.push(object);
    length += object.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(chunks);
}

/** zlib data (header, raw deflate, a checksum pdf.js does not look at) unpacking to `megabytes` MB of spaces. */
export function zlibBomb(megabytes: number): Buffer {
  return Buffer.concat([Buffer.from([0x78, 0xda]), deflateBomb(megabytes), Buffer.alloc(4)]);
}

/** A PDF whose page says `text`. */
export function smallPdf(text: string): Buffer {
  return pdfWithContent(zlib.deflateSync(Buffer.from(`BT /F1 24 Tf 72 700 Td (${text}) Tj ET`)));
}
