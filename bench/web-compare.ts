/**
 * Outputs of the extraction page by page, to tell whether a change to it changed any page
 * (issue 40 allows none, or only better ones):
 *   npx tsx bench/web-compare.ts <tree> <out.jsonl> [--every <n>] [--sets <dir>]
 * writes one line per extraction (`id`, and a hash of title, content and warnings; errors as `ERROR`) with
 * the extraction of `<tree>` (this checkout or another one with its node_modules), over: every page of
 * test/fixtures/web and every HTML file of the shared fixtures in every format and both modes, 60 pages
 * of the malformed-HTML generator, and, with `--sets`, the public sets unpacked there (`sh`, `modern`,
 * `mf`: `<set>/html/*`; `traf`: `traf/tests/eval/*`) in markdown and text of the main content, every page of `sh` and every
 * n-th page. `npx tsx bench/web-compare.ts --diff <before.jsonl> <after.jsonl>` lists what differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { REAL_PAGES_DIR } from '../test/support/fixture-site.js';
import { malformedPage } from '../test/support/malformed-html.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

if (args[0] === '--diff') {
  const read = (file: string) => new Map(fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as [string, string]));
  const [before, after] = [read(args[1]), read(args[2])];
  let changed = 0;
  let errors = 0;
  for (const [id, hash] of after) {
    if (hash === 'ERROR') errors++;
    if (before.get(id) !== hash) {
      changed++;
      console.log(`changed: ${id}`);
    }
  }
  for (const id of before.keys()) if (!after.has(id)) console.log(`missing: ${id}`);
  console.log(`${after.size} extractions compared, ${changed} changed, ${errors} errors`);
  process.exit(0);
}

const [tree, out] = args;
const every = Number(option('--every') ?? 1);
const setsDir = option('--sets');
const { extractPage } = (await import(pathToFileURL(path.join(tree, 'src/web/extract.ts')).href)) as typeof import('../src/web/extract.js');
type Format = 'markdown' | 'text' | 'html';
const lines: string[] = [];
const record = (id: string, html: string, formats: Format[], modes: boolean[]) => {
  for (const format of formats) {
    for (const onlyMainContent of modes) {
      let hash: string;
      try {
        const page = extractPage(html, { url: 'https://example.com/page/', format, onlyMainContent });
        hash = crypto.createHash('sha1').update(JSON.stringify([page.title, page.content, page.warnings, page.links])).digest('hex');
      } catch {
        hash = 'ERROR';
      }
      lines.push(JSON.stringify([`${id} ${format} ${onlyMainContent ? 'main' : 'page'}`, hash]));
    }
  }
};
const ALL: Format[] = ['markdown', 'text', 'html'];
for (const name of fs.readdirSync(REAL_PAGES_DIR).sort()) {
  const file = path.join(REAL_PAGES_DIR, name, 'source.html');
  if (fs.existsSync(file)) record(`fixtures/${name}`, fs.readFileSync(file, 'utf8'), ALL, [true, false]);
}
const shared = '/work/shared/fixtures';
const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : /\.html?$/.test(entry.name) ? [path.join(dir, entry.name)] : []));
if (fs.existsSync(shared)) for (const file of walk(shared).sort()) record(`shared/${path.relative(shared, file)}`, fs.readFileSync(file, 'utf8'), ALL, [true, false]);
for (let seed = 1; seed <= 60; seed++) record(`malformed/${seed}`, malformedPage(seed).html, ALL, [true, false]);
if (setsDir) {
  const read = (file: string) => {
    const bytes = fs.readFileSync(file);
    return (file.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('utf8');
  };
  for (const set of ['sh', 'modern', 'mf', 'traf']) {
    const dir = set === 'traf' ? path.join(setsDir, 'traf/tests/eval') : path.join(setsDir, set, 'html');
    if (!fs.existsSync(dir)) continue;
    const files = fs.readdirSync(dir).sort().filter((_, i) => set === 'sh' || i % every === 0);
    for (const file of files) record(`${set}/${file}`, read(path.join(dir, file)), ['markdown', 'text'], [true]);
  }
}
fs.writeFileSync(out, `${lines.join('\n')}\n`);
console.log(`${lines.length} extractions written to ${out}`);
