/** Reads one PDF with src/web/pdf.ts and prints what it found as one JSON line (web-documents.test.ts runs it without the canvas package). */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { readPdf } from '../../src/web/pdf.js';

const file = process.argv[2];
const read = await readPdf(new Uint8Array(fs.readFileSync(file)), `file://${file}`);
let canvas = true;
try {
  createRequire(import.meta.url)('@napi-rs/canvas');
} catch {
  canvas = false;
}
process.stdout.write(`${JSON.stringify({ canvas, pages: read.info.pages, title: read.info.title, text: read.parts.join('\n') })}\n`);
