/**
 * `npx tsx bench/web-snapshot.ts <pages dir> <out dir>`: every page's extraction in every format and
 * both modes, one file each (errors as `ERROR: ...`), so two runs (before and after a change to the
 * extraction) can be compared with `diff -r`. Prints the counts of errors and empty results.
 */
import fs from 'node:fs';
import path from 'node:path';
import { extractPage, type ContentFormat } from '../src/web/extract.js';

const [pagesDir, outDir] = process.argv.slice(2);
if (!pagesDir || !outDir) throw new Error('usage: web-snapshot.ts <pages dir> <out dir>');
fs.mkdirSync(outDir, { recursive: true });
let errors = 0;
let empty = 0;
let runs = 0;
const started = performance.now();
for (const name of fs.readdirSync(pagesDir).sort()) {
  const file = path.join(pagesDir, name, 'source.html');
  if (!fs.existsSync(file)) continue;
  const html = fs.readFileSync(file, 'utf8');
  for (const format of ['markdown', 'text', 'html'] as ContentFormat[]) {
    for (const onlyMainContent of [true, false]) {
      runs++;
      let out: string;
      try {
        const page = extractPage(html, { url: `https://example.com/${name}/`, format, onlyMainContent });
        out = `title: ${page.title}\nwarnings: ${JSON.stringify((page as { warnings?: string[] }).warnings ?? [])}\n\n${page.content}\n`;
        if (!page.content.trim()) empty++;
      } catch (error) {
        errors++;
        out = `ERROR: ${(error as Error).stack}\n`;
      }
      fs.writeFileSync(path.join(outDir, `${name}.${onlyMainContent ? 'main' : 'page'}.${format}`), out);
    }
  }
}
console.log(`${runs} extractions in ${((performance.now() - started) / 1000).toFixed(1)} s: ${errors} errors, ${empty} empty`);
