/**
 * One run of the scrape conversion bench in its own process: `<tree> <pages dir> <rounds>` converts every
 * real page (main content to markdown) with the extraction of `<tree>` (this checkout or the baseline's),
 * after one warm-up pass, and prints one JSON line: pages, bytes, wall and CPU milliseconds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [tree, pagesDir, roundsArg] = process.argv.slice(2);
const { extractPage } = (await import(pathToFileURL(path.join(tree, 'src/web/extract.ts')).href)) as typeof import('../src/web/extract.js');
const pages = fs
  .readdirSync(pagesDir)
  .filter((name) => fs.existsSync(path.join(pagesDir, name, 'source.html')))
  .sort()
  .map((name) => ({ url: `https://example.com/${name}/`, html: fs.readFileSync(path.join(pagesDir, name, 'source.html'), 'utf8') }));
const convert = () => {
  for (const page of pages) extractPage(page.html, { url: page.url, format: 'markdown', onlyMainContent: true });
};
convert();
const rounds = Number(roundsArg);
const cpu = process.cpuUsage();
const started = performance.now();
for (let round = 0; round < rounds; round++) convert();
const wallMs = performance.now() - started;
const used = process.cpuUsage(cpu);
const bytes = pages.reduce((sum, page) => sum + Buffer.byteLength(page.html), 0);
console.log(JSON.stringify({ pages: pages.length * rounds, bytes: bytes * rounds, wallMs, cpuMs: (used.user + used.system) / 1000 }));
