/**
 * A small website on loopback that links to real PDF and Word documents (test/fixtures/documents),
 * served as sites do: with their proper type, as application/octet-stream, without an extension,
 * and one PDF mislabelled text/html. It records every path requested.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const DOCUMENTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'documents');

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Path on the site -> fixture file and the Content-Type it is served with. */
export const DOCUMENT_PATHS: Record<string, [file: string, type: string]> = {
  '/papers/tika.pdf': ['testPDF.pdf', PDF],
  '/download?id=4': ['pdflatex-4-pages.pdf', 'application/octet-stream'],
  '/docs/sample.docx': ['testWORD.docx', DOCX],
  '/docs/sample-untyped': ['testWORD.docx', 'application/octet-stream'],
  '/papers/scanned.pdf': ['imagemagick-images.pdf', PDF],
  '/papers/protected.pdf': ['libreoffice-writer-password.pdf', PDF],
  '/papers/broken.pdf': ['pdflatex-4-pages.truncated.pdf', PDF],
  '/books/geotopo.pdf': ['GeoTopo-komprimiert.pdf', PDF],
  '/books/geotopo-as-html': ['GeoTopo-komprimiert.pdf', 'text/html; charset=utf-8'],
};

/** What the home page links to (the large book is reached only by its URL). */
const LINKED = ['/about', '/papers/tika.pdf', '/download?id=4', '/docs/sample.docx', '/papers/scanned.pdf', '/papers/protected.pdf', '/papers/broken.pdf'];

export interface DocumentSite {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startDocumentSite(): Promise<DocumentSite> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const p = req.url ?? '/';
    requests.push(p);
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (p === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nAllow: /\n');
    if (p === '/') {
      const links = LINKED.map((href) => `<li><a href="${href.replace(/&/g, '&amp;')}">${href}</a></li>`).join('');
      return send(200, 'text/html; charset=utf-8', `<!doctype html><html lang="en"><head><title>Papers</title></head><body><main><h1>Papers and documents</h1><p>The documents of this site, for reading online.</p><ul>${links}</ul></main></body></html>`);
    }
    if (p === '/about') return send(200, 'text/html; charset=utf-8', '<!doctype html><html><head><title>About</title></head><body><article><h1>About</h1><p>This site publishes papers as PDF and Word documents.</p></article></body></html>');
    if (p === '/books/huge.pdf') {
      // Announces 50 MB and sends none of it: a client that trusts Content-Length stops at the headers.
      res.writeHead(200, { 'content-type': PDF, 'content-length': 50 * 1024 * 1024 });
      res.flushHeaders();
      setTimeout(() => res.destroy(), 2_000).unref();
      return;
    }
    const document = DOCUMENT_PATHS[p];
    if (document) return send(200, document[1], fs.readFileSync(path.join(DOCUMENTS_DIR, document[0])));
    send(404, 'text/html', '<html><body>Not found</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
