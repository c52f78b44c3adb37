/**
 * PDF and Word documents read as pages: scrape, metadata, crawl and map through the REST API of a
 * real server, against real documents served from loopback (test/fixtures/documents, SOURCE.md).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope, pageData } from '../support/mcp.js';
import { DOCUMENTS_DIR, startDocumentSite, type DocumentSite } from '../support/document-site.js';
import { documentTypeOf } from '../../src/web/document-type.js';
import { readDocumentOffThread } from '../../src/web/document-pool.js';
import { isGleanerError } from '../../src/errors.js';
import { SUPPORT_DIR } from '../support/paths.js';

let site: DocumentSite;
let server: TestServer;

beforeAll(async () => {
  site = await startDocumentSite();
  server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

const query = (url: string, extra = '') => `?url=${encodeURIComponent(url)}${extra}`;
const scrape = (key: string, p: string, format = 'markdown', on = server) => on.request('GET', `/v1/web/scrape${query(site.origin + p, `&format=${format}`)}`, { apiKey: key });
const credits = async (key: string, on = server) => (await on.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

describe('a PDF read as a page', () => {
  it('comes back as markdown with its text, a break between every page, and its title, author and page count', async () => {
    const key = await server.createKey('Free');
    const reply = await scrape(key, '/books/geotopo.pdf');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    const page = reply.body;
    expect(page).toMatchObject({
      url: `${site.origin}/books/geotopo.pdf`,
      title: 'Geometrie und Topologie',
      format: 'markdown',
      contentType: 'application/pdf',
      statusCode: 200,
      metadata: { title: 'Geometrie und Topologie', author: { name: 'Martin Thoma' }, pages: 117, documentType: 'pdf', tags: ['Geometrie', 'Topologie'] },
    });
    expect(page.content).toContain('Dieses Skript wurde im Wintersemester 2013/2014 von Martin Thoma geschrieben.');
    expect(page.content).toContain('# Vorwort');
    // 117 pages, 116 breaks between them.
    expect(page.content.split('\n\n---\n\n')).toHaveLength(117);
    expect(page.countCharacters).toBe(page.content.length);
    expect(page.urls).toContain('http://martin-thoma.com/geotopo/');
  }, 180_000);

  it('is recognised by its bytes (no extension, application/octet-stream) and keeps its pages apart in text and html', async () => {
    const key = await server.createKey('Free');
    const text = await scrape(key, '/download?id=4', 'text');
    expect(text.status).toBe(200);
    expect(text.body.content).toContain('Hello, here is some text without a meaning.');
    expect(text.body.content.split('\f')).toHaveLength(4);
    expect(text.body.metadata).toMatchObject({ pages: 4, documentType: 'pdf' });
    const html = await scrape(key, '/download?id=4', 'html');
    expect(html.body.content.match(/<section data-page="\d">/g)).toEqual(['<section data-page="1">', '<section data-page="2">', '<section data-page="3">', '<section data-page="4">']);
    expect(html.body.content).toContain('<p>Hello, here is some text without a meaning.');
  }, 120_000);

  it('is read as a PDF even when the server calls it text/html', async () => {
    const key = await server.createKey('Free');
    const reply = await server.request('GET', `/v1/metadata${query(`${site.origin}/books/geotopo-as-html`)}`, { apiKey: key });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ title: 'Geometrie und Topologie', additionalData: { documentType: 'pdf', pages: 117 } });
  }, 120_000);

  it('GET /v1/metadata gives its title, author, date and page count', async () => {
    const key = await server.createKey('Free');
    const reply = await server.request('GET', `/v1/metadata${query(`${site.origin}/papers/tika.pdf`)}`, { apiKey: key });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'web',
      title: 'Apache Tika - Apache Tika',
      author: { name: 'Bertrand Delacrétaz', displayName: 'Bertrand Delacrétaz' },
      createdAt: '2007-09-15T09:02:31.000Z',
      additionalData: { documentType: 'pdf', pages: 1 },
    });
  }, 120_000);
});

describe('a Word document read as a page', () => {
  it('comes back as markdown (headings, emphasis, tables, links) with its title and author, and as plain text', async () => {
    const key = await server.createKey('Free');
    const reply = await scrape(key, '/docs/sample.docx');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ title: 'Sample Word Document', metadata: { author: { name: 'Keith Bennett' }, documentType: 'docx' } });
    const markdown = reply.body.content as string;
    expect(markdown).toMatch(/^# Sample Word Document Title\n/);
    expect(markdown).toContain('## Heading Level 2');
    expect(markdown).toContain('This document includes text that is **BOLD** and _ITALIC_.');
    expect(markdown).toContain('| Nested table |');
    expect(markdown).toContain('[Tika](http://tika.apache.org/)');
    expect(reply.body.urls).toEqual(['http://tika.apache.org/', 'http://poi.apache.org/']);

    const text = await scrape(key, '/docs/sample-untyped', 'text');
    expect(text.status).toBe(200);
    expect(text.body.content).toContain('This document includes text that is BOLD and ITALIC.');
    expect(text.body.content).not.toMatch(/[*#|]/);

    const metadata = await server.request('GET', `/v1/metadata${query(`${site.origin}/docs/sample.docx`)}`, { apiKey: key });
    expect(metadata.body).toMatchObject({ title: 'Sample Word Document', author: { name: 'Keith Bennett' }, createdAt: '2008-12-11T16:04:00.000Z', additionalData: { documentType: 'docx' } });
  }, 120_000);
});

describe('documents that cannot be read', () => {
  it('a scanned PDF (pages of images, no text layer) is 422 CONTENT_UNREADABLE saying so, uncharged; its metadata still answers', async () => {
    const key = await server.createKey('Free', { credits: 10 });
    const reply = await scrape(key, '/papers/scanned.pdf');
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe('CONTENT_UNREADABLE');
    expect(reply.body.error.message).toMatch(/PDF of 6 pages with no text layer.*OCR is not supported/);
    expect(await credits(key)).toBe(10);
    const metadata = await server.request('GET', `/v1/metadata${query(`${site.origin}/papers/scanned.pdf`)}`, { apiKey: key });
    expect(metadata.status).toBe(200);
    expect(metadata.body.additionalData).toMatchObject({ documentType: 'pdf', pages: 6 });
  }, 120_000);

  it('a truncated PDF and a password-protected one are 422 with a message that says which, uncharged', async () => {
    const key = await server.createKey('Free', { credits: 10 });
    const broken = await scrape(key, '/papers/broken.pdf');
    expect(broken.status).toBe(422);
    expect(broken.body.error).toMatchObject({ code: 'CONTENT_UNREADABLE', message: expect.stringMatching(/not a readable PDF: its structure is damaged or incomplete/) });
    const protectedPdf = await scrape(key, '/papers/protected.pdf');
    expect(protectedPdf.status).toBe(422);
    expect(protectedPdf.body.error.message).toMatch(/password-protected PDF/);
    const metadata = await server.request('GET', `/v1/metadata${query(`${site.origin}/papers/broken.pdf`)}`, { apiKey: key });
    expect(metadata.status).toBe(422);
    expect(await credits(key)).toBe(10);
  }, 120_000);

  it('a document over GLEANER_DOCUMENT_MAX_BYTES is 413 PAYLOAD_TOO_LARGE naming the setting, uncharged; smaller ones are read', async () => {
    const small = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_DOCUMENT_MAX_BYTES: String(1024 * 1024) } });
    try {
      const key = await small.createKey('Free', { credits: 10 });
      const reply = await scrape(key, '/books/geotopo.pdf', 'markdown', small);
      expect(reply.status).toBe(413);
      expect(reply.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('1 MB for a PDF or Word document (GLEANER_DOCUMENT_MAX_BYTES)') });
      expect(await credits(key, small)).toBe(10);
      // Refused by its Content-Length, before any of its body.
      const huge = await scrape(key, '/books/huge.pdf', 'markdown', small);
      expect(huge.status).toBe(413);
      expect(huge.body.error.message).toContain('(GLEANER_DOCUMENT_MAX_BYTES)');
      expect(await credits(key, small)).toBe(10);
      const read = await scrape(key, '/papers/tika.pdf', 'markdown', small);
      expect(read.status).toBe(200);
      expect(read.body.content).toContain('Apache Tika is a toolkit for detecting and extracting metadata');
    } finally {
      await small.close();
    }
  }, 120_000);

  it('reading a document past GLEANER_DOCUMENT_TIMEOUT_MS is stopped: 422, uncharged, and the document threads read the next one', async () => {
    const hasty = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_DOCUMENT_TIMEOUT_MS: '100' } });
    try {
      const key = await hasty.createKey('Free', { credits: 10 });
      const reply = await scrape(key, '/books/geotopo.pdf', 'markdown', hasty);
      expect(reply.status).toBe(422);
      expect(reply.body.error.message).toMatch(/took longer than 0.1 s \(GLEANER_DOCUMENT_TIMEOUT_MS\); it was stopped/);
      expect(await credits(key, hasty)).toBe(10);
    } finally {
      await hasty.close();
    }
    const key = await server.createKey('Free');
    const next = await scrape(key, '/papers/tika.pdf');
    expect(next.status).toBe(200);
  }, 120_000);
});

describe('malformed documents', () => {
  it('empty, garbage, bit-flipped and cut files are read or refused with 422, never a crash or an internal error', async () => {
    const pdf = fs.readFileSync(path.join(DOCUMENTS_DIR, 'pdflatex-4-pages.pdf'));
    const docx = fs.readFileSync(path.join(DOCUMENTS_DIR, 'testWORD.docx'));
    // Deterministic noise: the same bytes on every run.
    const noise = (length: number) => Buffer.from(Array.from({ length }, (_, i) => (i * 2654435761) >>> 24));
    const flip = (bytes: Buffer, from: number, every: number) => Buffer.from(bytes.map((b, i) => (i > from && i % every === 0 ? b ^ 0xff : b)));
    const cases: Array<[string, 'pdf' | 'docx', Buffer]> = [
      ['empty', 'pdf', Buffer.alloc(0)],
      ['header only', 'pdf', Buffer.from('%PDF-1.7\n')],
      ['noise after a header', 'pdf', Buffer.concat([Buffer.from('%PDF-1.4\n'), noise(50_000)])],
      ['an HTML error page labelled PDF', 'pdf', Buffer.from('<html><body>Not found</body></html>')],
      ['bit flips', 'pdf', flip(pdf, 2000, 97)],
      ['a middle cut out', 'pdf', Buffer.concat([pdf.subarray(0, 8000), pdf.subarray(16000)])],
      ['a truncated Word file', 'docx', docx.subarray(0, 6000)],
      ['noise labelled Word', 'docx', noise(5000)],
      ['a bit-flipped Word file', 'docx', flip(docx, 500, 53)],
    ];
    for (const [name, type, bytes] of cases) {
      const outcome = await readDocumentOffThread({ type, bytes, url: 'http://example.com/file', want: 'markdown' }, { timeoutMs: 60_000 }).then(
        (page) => ({ read: page.content.length > 0 }),
        (error: unknown) => ({ code: isGleanerError(error) ? error.code : `not a GleanerError: ${String(error)}` }),
      );
      expect(outcome, name).toSatisfy((o: { read?: boolean; code?: string }) => o.read === true || o.code === 'CONTENT_UNREADABLE');
    }
  }, 180_000);
});

describe('documents over MCP', () => {
  it('a scanned PDF is an isError result with CONTENT_UNREADABLE and the same message', async () => {
    const key = await server.createKey('Free', { credits: 10 });
    const client = await connectMcp(server.baseUrl, key);
    try {
      const result = await client.callTool({ name: 'web_scrape', arguments: { url: `${site.origin}/papers/scanned.pdf` } });
      expect(result.isError).toBe(true);
      expect(errorEnvelope(result).error).toMatchObject({ code: 'CONTENT_UNREADABLE', message: expect.stringContaining('no text layer') });
      const read = await client.callTool({ name: 'web_scrape', arguments: { url: `${site.origin}/papers/tika.pdf` } });
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(pageData(read))).toContain('Apache Tika is a toolkit');
    } finally {
      await client.close();
    }
    expect(await credits(key)).toBe(9);
  }, 120_000);
});

describe('documents in crawl and map', () => {
  it('a crawl follows PDF and Word links as pages; unreadable documents are failed pages, not charged', async () => {
    const key = await server.createKey('Pro');
    const before = await credits(key);
    const start = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${site.origin}/`, mode: 'recursive', maxPages: 20 } });
    expect(start.status).toBe(202);
    const me = (await server.request('GET', '/v1/me', { apiKey: key })).body as { id: string };
    await server.app.services.jobs.waitFor(start.body.jobId, me.id, 120_000);
    const job = (await server.request('GET', `/v1/jobs/${start.body.jobId}`, { apiKey: key })).body;
    expect(job.status).toBe('completed');
    const pages = job.result.pages as Array<{ url: string; content: string; contentType: string; metadata: { pages?: number } }>;
    const byPath = new Map(pages.map((p) => [p.url.slice(site.origin.length), p]));
    expect([...byPath.keys()].sort()).toEqual(['/', '/about', '/docs/sample.docx', '/download?id=4', '/papers/tika.pdf']);
    expect(byPath.get('/papers/tika.pdf')).toMatchObject({ contentType: 'application/pdf', metadata: { pages: 1 } });
    expect(byPath.get('/papers/tika.pdf')!.content).toContain('Apache Tika is a toolkit for detecting and extracting metadata');
    expect(byPath.get('/download?id=4')!.content.split('\n\n---\n\n')).toHaveLength(4);
    expect(byPath.get('/docs/sample.docx')!.content).toContain('# Sample Word Document Title');
    const failed = job.result.failed as Array<{ url: string; error: { code: string } }>;
    expect(failed.map((f) => f.url.slice(site.origin.length)).sort()).toEqual(['/papers/broken.pdf', '/papers/protected.pdf', '/papers/scanned.pdf']);
    expect(failed.every((f) => f.error.code === 'CONTENT_UNREADABLE')).toBe(true);
    expect(job.creditsUsed).toBe(5);
    expect(await credits(key)).toBe(before - 5);
  }, 180_000);

  it('map lists document links without downloading them', async () => {
    const key = await server.createKey('Free');
    const firstRequest = site.requests.length;
    const reply = await server.request('GET', `/v1/web/map${query(`${site.origin}/`)}`, { apiKey: key });
    expect(reply.status).toBe(200);
    expect(reply.body.urls).toEqual(expect.arrayContaining([`${site.origin}/papers/tika.pdf`, `${site.origin}/docs/sample.docx`, `${site.origin}/download?id=4`]));
    expect(site.requests.slice(firstRequest).filter((p) => /\.(?:pdf|docx)$/.test(p))).toEqual([]);
  }, 60_000);
});

describe('recognising documents', () => {
  it('goes by the bytes first, then the declared type; a web page that mentions %PDF- stays a page', () => {
    const pdf = Buffer.from('%PDF-1.7\n1 0 obj');
    expect(documentTypeOf('application/octet-stream', pdf)).toBe('pdf');
    expect(documentTypeOf('text/html', pdf)).toBe('pdf');
    expect(documentTypeOf('text/html', Buffer.from('<!doctype html><p>A file starts with %PDF-1.7</p>'))).toBeNull();
    expect(documentTypeOf('application/pdf', Buffer.from('<html>not found</html>'))).toBe('pdf');
    expect(documentTypeOf('application/zip', Buffer.from('PK\u0003\u0004 not a word document'))).toBeNull();
  });
});

describe('pdf.js on a server', () => {
  it('reads text without the optional @napi-rs/canvas package (the bundle leaves it out), printing nothing on stdout', async () => {
    const child = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--import', path.join(SUPPORT_DIR, 'without-canvas.mjs'), path.join(SUPPORT_DIR, 'read-pdf-child.ts'), path.join(DOCUMENTS_DIR, 'testPDF.pdf')],
      { timeout: 60_000 },
    );
    const lines = child.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]) as { canvas: boolean; pages: number; title: string; text: string };
    expect(result).toMatchObject({ canvas: false, pages: 1, title: 'Apache Tika - Apache Tika' });
    expect(result.text).toContain('Apache Tika is a toolkit for detecting and extracting metadata');
  }, 90_000);
});
