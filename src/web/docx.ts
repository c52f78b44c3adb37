/**
 * A Word document (.docx) as HTML through mammoth's convertToHtml (its markdown output is
 * deprecated), so the project's own converters make every format of it; its title, author and
 * dates from the package's core properties (docProps/core.xml).
 */
import mammoth from 'mammoth';
import { parseDocument } from './dom.js';
import { DocumentUnreadable, memoryRefusal, type DocumentInfo, type ReadDocument } from './document-read.js';
import { normalizeUrl } from './urls.js';
import { storedZip, unpackZip, zipEntries, ZipRefused } from './zip.js';

/**
 * What one Word document may unpack to, every part counted (images and .rels too), each part held to
 * the size its directory declares. Above it the file is a ZIP bomb, not a document.
 */
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

/**
 * The parts mammoth reads (the XML and its relationships); the rest (images, embedded files) are
 * unpacked only to be counted, and reach mammoth empty: images become their alt text anyway.
 */
const isXmlPart = (name: string) => name.endsWith('.xml') || name.endsWith('.rels');

/** Word's Title and Subtitle paragraph styles as headings (mammoth keeps them as plain paragraphs). */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function xmlText(value: string): string {
  return value.replace(/&(?:#x([0-9a-f]+)|#(\d+)|(\w+));/gi, (whole, hex: string, dec: string, name: string) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : dec ? String.fromCodePoint(Number(dec)) : (ENTITIES[name] ?? whole),
  );
}

function coreProperties(xml: string | null): DocumentInfo {
  const field = (tag: string) => {
    const match = xml?.match(new RegExp(`<${tag}(?:\\s[^>]*)?>([^<]*)</${tag}>`));
    const text = match ? xmlText(match[1]).replace(/\s+/g, ' ').trim() : '';
    return text || null;
  };
  const created = field('dcterms:created');
  const date = created ? new Date(created) : null;
  return {
    title: field('dc:title'),
    author: field('dc:creator'),
    subject: field('dc:subject') ?? field('dc:description'),
    keywords: (field('cp:keywords') ?? '').split(/[,;]/).map((k) => k.trim()).filter(Boolean),
    created: date && !Number.isNaN(date.getTime()) ? date.toISOString() : null,
    language: field('dc:language'),
  };
}

interface Unpacked {
  parts: Map<string, Buffer>;
  /** The document as mammoth reads it: the same parts, stored, with nothing left to inflate. */
  stored: Buffer;
}

async function unpack(bytes: Buffer, url: string): Promise<Unpacked> {
  const entries = zipEntries(bytes);
  if (!entries?.some((entry) => entry.name === 'word/document.xml')) {
    throw new DocumentUnreadable(`${url} is not a readable Word document: it is damaged or not a .docx package.`);
  }
  try {
    const { kept, dropped } = await unpackZip(bytes, entries, { maxTotalBytes: MAX_UNPACKED_BYTES, keep: isXmlPart });
    const stored = storedZip([...kept, ...dropped.map((name): [string, Buffer] => [name, Buffer.alloc(0)])]);
    return { parts: kept, stored };
  } catch (error) {
    if (error instanceof ZipRefused) throw new DocumentUnreadable(`${url} was not read as a Word document: ${error.message}.`);
    throw memoryRefusal(error, url) ?? error;
  }
}

export async function readDocxInfo(bytes: Buffer, url: string): Promise<DocumentInfo> {
  const { parts } = await unpack(bytes, url);
  return coreProperties(parts.get('docProps/core.xml')?.toString('utf8') ?? null);
}

export async function readDocx(bytes: Buffer, url: string): Promise<ReadDocument> {
  const { parts, stored } = await unpack(bytes, url);
  const info = coreProperties(parts.get('docProps/core.xml')?.toString('utf8') ?? null);
  parts.clear();
  let html: string;
  try {
    // Images become their alt text: the bytes are never read, and no base64 floods the reply.
    const result = await mammoth.convertToHtml({ buffer: stored }, { styleMap: STYLE_MAP, convertImage: mammoth.images.imgElement(async () => ({ src: '' })) });
    html = result.value;
  } catch (error) {
    throw memoryRefusal(error, url) ?? new DocumentUnreadable(`${url} could not be read as a Word document (${(error as Error)?.message ?? String(error)}).`);
  }
  if (!html.replace(/<[^>]*>/g, '').trim()) throw new DocumentUnreadable(`${url} is a Word document without any text.`);
  const links = new Set<string>();
  for (const anchor of parseDocument(`<body>${html}</body>`).querySelectorAll('a[href]')) {
    const href = anchor.getAttribute('href') ?? '';
    const link = href.startsWith('#') ? null : normalizeUrl(href, url);
    if (link) links.add(link);
  }
  return { info, parts: [html], links: [...links] };
}
