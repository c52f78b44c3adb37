/**
 * One document read in its own plain Node process, from the built dist/ (as a serving process and
 * its document threads run: under tsx, loading pdf.js alone costs seconds and 150 MB more): read,
 * then rendered as markdown, `rounds` times; the first includes loading pdf.js or mammoth.
 * Prints one JSON line: { pages, chars, firstMs, warmMs, peakRssMB, baseRssMB }.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const [dist, file, roundsArg] = process.argv.slice(2);
const { documentTypeOf } = await import(`${dist}/web/document-type.js`);
const { readPdf } = await import(`${dist}/web/pdf.js`);
const { readDocx } = await import(`${dist}/web/docx.js`);
const { renderDocument } = await import(`${dist}/web/document-render.js`);

const bytes = fs.readFileSync(file);
const type = documentTypeOf('application/octet-stream', bytes);
if (!type) throw new Error(`${file} is not a PDF or Word document`);
const baseRssMB = process.memoryUsage().rss / 1024 / 1024;

const times = [];
let pages = 0;
let chars = 0;
for (let round = 0; round < Number(roundsArg || 3); round++) {
  const started = performance.now();
  const read = type === 'pdf' ? await readPdf(new Uint8Array(bytes), file) : await readDocx(bytes, file);
  const page = renderDocument(read, type, file, 'markdown');
  times.push(performance.now() - started);
  pages = read.info.pages ?? 1;
  chars = page.content.length;
}
const warm = times.slice(1).sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({ pages, chars, firstMs: times[0], warmMs: warm[Math.floor(warm.length / 2)] ?? times[0], peakRssMB: process.resourceUsage().maxRSS / 1024, baseRssMB })}\n`,
);
