/**
 * A PDF's text, page by page, through pdf.js (pdfjs-dist's legacy build, the one made for Node).
 * Runs in the document reader processes (document-pool.ts), never on the event loop. Text only: no
 * rendering, no canvas, no fonts loaded, no code evaluated (isEvalSupported false).
 *
 * pdf.js's text items become lines (an item marks its line's end), lines become paragraphs where
 * the vertical gap widens, the indent moves or a short line ends a sentence, and paragraphs set
 * clearly larger than the body text become headings. Each page is one HTML section for the
 * project's own converters (document-render.ts).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { DocumentUnreadable, escapeHtml, memoryRefusal, type DocumentInfo, type ReadDocument } from './document-read.js';
import { normalizeUrl } from './urls.js';
import { oversizedStream } from './pdf-streams.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loading: Promise<PdfJs> | undefined;

/**
 * pdf.js builds a DOMMatrix when its module loads (a constant for rendering) and takes it from
 * @napi-rs/canvas on Node. That package is an optional dependency the bundle leaves out, and text
 * extraction never uses the matrix, so without it an identity matrix stands in. pdf.js also warns
 * on the console while it loads; those lines are dropped (the document threads log nothing).
 */
export function loadPdfJs(): Promise<PdfJs> {
  loading ??= (async () => {
    const globals = globalThis as { DOMMatrix?: unknown };
    globals.DOMMatrix ??= class DOMMatrix {
      a = 1;
      b = 0;
      c = 0;
      d = 1;
      e = 0;
      f = 0;
    };
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      return await import('pdfjs-dist/legacy/build/pdf.mjs');
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}

/**
 * The character maps (CJK fonts without a Unicode map) and standard font metrics pdf.js ships; on
 * Node it reads them with fs from a plain path, which it wants to end in a slash.
 */
function assetPath(folder: string): string {
  const root = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return `${path.join(root, folder)}/`;
}

interface Line {
  text: string;
  x: number;
  y: number;
  right: number;
  height: number;
}

interface TextItemLike {
  str?: string;
  transform?: number[];
  width?: number;
  height?: number;
  hasEOL?: boolean;
}

function linesOf(items: TextItemLike[]): Line[] {
  const lines: Line[] = [];
  let current: Line | null = null;
  for (const item of items) {
    if (typeof item.str !== 'string' || !item.transform) continue;
    const [, , , scaleY, x, y] = item.transform;
    const height = Math.abs(item.height || scaleY || 0);
    if (item.str.trim()) {
      if (!current) current = { text: '', x, y, right: x, height: 0 };
      current.height = Math.max(current.height, height);
      current.right = Math.max(current.right, x + (item.width ?? 0));
    }
    if (current) current.text += item.str;
    if (item.hasEOL && current) {
      lines.push(current);
      current = null;
    }
  }
  if (current) lines.push(current);
  for (const line of lines) line.text = line.text.replace(/\s+/g, ' ').trim();
  return lines.filter((line) => line.text);
}

/** The most common value, rounded to half a point (line heights, line spacing). */
function mode(values: number[]): number {
  const counts = new Map<number, number>();
  for (const value of values) {
    const key = Math.round(value * 2) / 2;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let best = 0;
  let bestCount = 0;
  for (const [value, count] of counts) if (count > bestCount || (count === bestCount && value < best)) [best, bestCount] = [value, count];
  return best;
}

interface Paragraph {
  text: string;
  height: number;
}

function paragraphsOf(lines: Line[]): Paragraph[] {
  const gaps = lines.slice(1).map((line, i) => lines[i].y - line.y).filter((gap, i) => gap > 0 && gap < 3 * Math.max(lines[i + 1].height, 1));
  const spacing = mode(gaps);
  const right = Math.max(...lines.map((line) => line.right));
  const groups: Line[][] = [];
  lines.forEach((line, i) => {
    const previous = lines[i - 1];
    const em = Math.max(line.height, 1);
    const breaks =
      !previous ||
      previous.y - line.y <= 0 || // the next column, or text set above the previous line
      (spacing > 0 && previous.y - line.y > spacing * 1.4 + 0.5) ||
      Math.abs(line.height - previous.height) > 0.2 * Math.max(line.height, previous.height) ||
      line.x > previous.x + 0.8 * em || // an indented first line
      (/[.!?:]["')\]]?$/.test(previous.text) && previous.right < right - 3 * em); // a short last line
    if (breaks) groups.push([line]);
    else groups[groups.length - 1].push(line);
  });
  return groups.map(join);
}

/**
 * Lines of one paragraph as one string. A word broken at a line's end is joined again: without its
 * hyphen before a lower-case letter ("exam-" "ple"), with it before a capital ("Schwarz-" "Weiß").
 */
function join(lines: Line[]): Paragraph {
  let text = '';
  for (const line of lines) {
    if (!text) text = line.text;
    else if (/\p{L}-$/u.test(text) && /^\p{Ll}/u.test(line.text)) text = text.slice(0, -1) + line.text;
    else if (/\p{L}-$/u.test(text) && /^\p{Lu}/u.test(line.text)) text += line.text;
    else text += ` ${line.text}`;
  }
  return { text, height: Math.max(...lines.map((line) => line.height)) };
}

function pageHtml(paragraphs: Paragraph[], bodyHeight: number): string {
  return paragraphs
    .map(({ text, height }) => {
      const scale = bodyHeight > 0 ? height / bodyHeight : 1;
      const tag = text.length <= 200 && scale >= 1.6 ? 'h1' : text.length <= 200 && scale >= 1.25 ? 'h2' : 'p';
      return `<${tag}>${escapeHtml(text)}</${tag}>`;
    })
    .join('\n');
}

/** A PDF info string without the NUL padding and control characters some producers leave in it. */
function clean(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return text || null;
}

async function infoOf(pdfjs: PdfJs, doc: Awaited<ReturnType<PdfJs['getDocument']>['promise']>): Promise<DocumentInfo> {
  const { info, metadata } = (await doc.getMetadata().catch(() => ({ info: {}, metadata: null }))) as {
    info: Record<string, unknown>;
    metadata: { get(name: string): unknown } | null;
  };
  const xmp = (name: string) => {
    const value = metadata?.get(name);
    return clean(Array.isArray(value) ? value.join(', ') : value);
  };
  const created = typeof info.CreationDate === 'string' ? pdfjs.PDFDateString.toDateObject(info.CreationDate) : null;
  const keywords = clean(info.Keywords);
  return {
    title: clean(info.Title) ?? xmp('dc:title'),
    author: clean(info.Author) ?? xmp('dc:creator'),
    subject: clean(info.Subject) ?? xmp('dc:description'),
    keywords: keywords ? keywords.split(/[,;]/).map((k) => k.trim()).filter(Boolean) : [],
    created: created && !Number.isNaN(created.getTime()) ? created.toISOString() : null,
    language: clean(info.Language),
    pages: doc.numPages,
  };
}

async function openPdf(bytes: Uint8Array, url: string) {
  const bomb = oversizedStream(bytes);
  if (bomb) throw new DocumentUnreadable(`${url} was not read as a PDF: ${bomb}.`);
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    data: bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    stopAtErrors: false,
    verbosity: 0,
    cMapUrl: assetPath('cmaps'),
    cMapPacked: true,
    standardFontDataUrl: assetPath('standard_fonts'),
  });
  try {
    return { pdfjs, doc: await task.promise };
  } catch (error) {
    await task.destroy().catch(() => undefined);
    const refusal = memoryRefusal(error, url);
    if (refusal) throw refusal;
    const name = (error as Error)?.name;
    if (name === 'PasswordException') throw new DocumentUnreadable(`${url} is a password-protected PDF; Gleaner cannot open it.`);
    if (name === 'InvalidPDFException') throw new DocumentUnreadable(`${url} is not a readable PDF: its structure is damaged or incomplete (a truncated download?).`);
    throw new DocumentUnreadable(`${url} could not be read as a PDF (${(error as Error)?.message ?? String(error)}).`);
  }
}

/** The PDF's properties and page count, without reading its pages. */
export async function readPdfInfo(bytes: Uint8Array, url: string): Promise<DocumentInfo> {
  const { pdfjs, doc } = await openPdf(bytes, url);
  try {
    return await infoOf(pdfjs, doc);
  } finally {
    await doc.destroy();
  }
}

export async function readPdf(bytes: Uint8Array, url: string): Promise<ReadDocument> {
  const { pdfjs, doc } = await openPdf(bytes, url);
  try {
    const info = await infoOf(pdfjs, doc);
    const pages: Line[][] = [];
    const links = new Set<string>();
    for (let number = 1; number <= doc.numPages; number++) {
      try {
        const page = await doc.getPage(number);
        const content = await page.getTextContent();
        pages.push(linesOf(content.items as TextItemLike[]));
        for (const annotation of (await page.getAnnotations({ intent: 'display' })) as Array<{ url?: string }>) {
          const link = annotation.url ? normalizeUrl(annotation.url) : null;
          if (link) links.add(link);
        }
        page.cleanup();
      } catch (error) {
        throw memoryRefusal(error, url) ?? new DocumentUnreadable(`${url}: page ${number} of the PDF could not be read (${(error as Error)?.message ?? String(error)}).`);
      }
    }
    if (!pages.some((lines) => lines.length > 0)) {
      throw new DocumentUnreadable(
        `${url} is a PDF of ${doc.numPages} page${doc.numPages === 1 ? '' : 's'} with no text layer (a scanned document: its pages are images); OCR is not supported, so there is no text to return. Its title and page count are available from the metadata operation.`,
      );
    }
    const bodyHeight = mode(pages.flat().map((line) => line.height));
    const parts = pages.map((lines) => (lines.length ? pageHtml(paragraphsOf(lines), bodyHeight) : ''));
    return { info, parts, links: [...links] };
  } finally {
    await doc.destroy();
  }
}
