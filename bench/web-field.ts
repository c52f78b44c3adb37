/**
 * Main text against the field: Gleaner and other open-source extractors on the same public pages, with
 * the same scoring as bench/web-quality.ts (its functions, imported), so docs/web-extraction.md can say
 * where Gleaner stands. Not part of `npm run bench`: the other extractors are not dependencies of this
 * project, so they are installed into a folder of their own and loaded from there:
 *
 *   mkdir -p /work/field-deps && cd /work/field-deps && npm init -y \
 *     && npm install jsdom defuddle @extractus/article-extractor
 *   npx tsx bench/web-field.ts --deps /work/field-deps [--every <n>] [--only <names>] \
 *     [--articles <dir>]... [--snippets <dir>]... [--pages <out.json>] [--json <out.json>]
 *
 * `--articles`, `--snippets`, `--every` and `--pages` are those of bench/web-quality.ts (same sets, same
 * sampling, same metric); `--only gleaner,readability-jsdom,...` runs some extractors; `--json` writes the
 * scores. The extractors, all on main content:
 * - `gleaner`: src/web/extract.ts as web-quality runs it (text, markdown, markdown with URLs out);
 * - `readability-jsdom`: @mozilla/readability on a jsdom document, its `textContent` (the reference setup);
 * - `readability-linkedom`: the same Readability on a linkedom document (the parser Gleaner uses), bare;
 * - `defuddle`: defuddle's node entry on the HTML string (it parses with linkedom), no network; its `content`
 *   HTML to text with Gleaner's `htmlToText`, and its markdown (`separateMarkdown`) with URLs out;
 * - `article-extractor`: @extractus/article-extractor's `extractFromHtml`, its `content` HTML to text
 *   with the same `htmlToText`.
 * The HTML outputs go through one converter so that the way blocks are joined does not decide a score.
 * An extractor that throws or finds nothing gives an empty text for that page (scored, and counted).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { htmlToText } from '../src/web/extract.js';
import {
  benchmarkPages,
  outputs as gleanerOutputs,
  sampleEvery,
  scorePages,
  scoreSnippets,
  snippetPages,
  withoutUrls,
  type PageScores,
  type Scored,
  type Score,
} from './web-quality.js';

type Output = Partial<Record<Scored, string>>;
type Extractor = (html: string, url: string) => Promise<Output>;

/** The little of each outside package this bench touches (their types are not visible to tsc here). */
/** A DOM document of jsdom (no DOM types in this project's compilation). */
type DomDocument = object;
interface JsdomModule {
  JSDOM: new (html: string, options: { url: string; virtualConsole: unknown }) => { window: { document: DomDocument; close(): void } };
  VirtualConsole: new () => unknown;
}
interface DefuddleModule {
  Defuddle(input: string, url: string, options: Record<string, unknown>): Promise<{ content?: string; contentMarkdown?: string }>;
}
interface ArticleExtractorModule {
  extractFromHtml(html: string, url: string): Promise<{ content?: string } | null>;
}

async function loadField(deps: string): Promise<Record<string, Extractor>> {
  const require = createRequire(path.join(path.resolve(deps), 'package.json'));
  const load = async <T>(name: string, file?: (main: string) => string): Promise<T> => {
    let main: string;
    try {
      main = require.resolve(name);
    } catch {
      throw new Error(`${name} is not installed in ${deps}: cd ${deps} && npm install jsdom defuddle @extractus/article-extractor (see the header of bench/web-field.ts)`);
    }
    return (await import(pathToFileURL(file ? file(main) : main).href)) as T;
  };
  const jsdom = await load<JsdomModule>('jsdom');
  // defuddle's node entry is exported for `import` only; it sits beside the main file.
  const defuddle = await load<DefuddleModule>('defuddle', (main) => path.join(path.dirname(main), 'node.js'));
  const articleExtractor = await load<ArticleExtractorModule>('@extractus/article-extractor');
  const jsdomDocument = (html: string, url: string) => new jsdom.JSDOM(html, { url, virtualConsole: new jsdom.VirtualConsole() }).window;
  return {
    'readability-jsdom': async (html, url) => {
      const window = jsdomDocument(html, url);
      try {
        return { text: new Readability(window.document as never).parse()?.textContent ?? '' };
      } finally {
        window.close();
      }
    },
    // On a string, defuddle parses with linkedom through its own shims; on jsdom it took 11 s a page here
    // (its hidden-element pass asks jsdom for computed styles), too slow for a few hundred pages.
    defuddle: async (html, url) => {
      const noNetwork = () => Promise.reject(new Error('no network in this bench'));
      const result = await defuddle.Defuddle(html, url, { useAsync: false, separateMarkdown: true, fetch: noNetwork });
      const markdown = result.contentMarkdown ?? '';
      return { text: htmlToText(result.content ?? ''), markdown, 'markdown words': withoutUrls(markdown) };
    },
    'article-extractor': async (html, url) => {
      const article = await articleExtractor.extractFromHtml(html, url);
      return { text: htmlToText(article?.content ?? '') };
    },
  };
}

const own: Record<string, Extractor> = {
  gleaner: async (html, url) => gleanerOutputs({ id: new URL(url).pathname.slice(1), html }),
  'readability-linkedom': async (html) => {
    const { document } = parseHTML(html);
    return { text: new Readability(document as never).parse()?.textContent ?? '' };
  },
};

interface Stats {
  ms: number;
  failures: number;
  empty: number;
}

/** Runs every extractor on every page (one at a time: a modest load) and keeps the outputs by page id. */
async function extractAll(pages: { id: string; html: string }[], extractors: Record<string, Extractor>, stats: Record<string, Stats>) {
  const results: Record<string, Map<string, Output>> = {};
  for (const page of pages) {
    const url = `https://example.com/${page.id}`;
    for (const [name, extract] of Object.entries(extractors)) {
      const stat = (stats[name] ??= { ms: 0, failures: 0, empty: 0 });
      const start = performance.now();
      let out: Output;
      try {
        out = await extract(page.html, url);
      } catch (error) {
        stat.failures++;
        if (process.env.FIELD_VERBOSE) console.error(`${name} failed on ${page.id}: ${(error as Error).message}`);
        out = { text: '' };
      }
      stat.ms += performance.now() - start;
      if (!out.text?.trim()) stat.empty++;
      (results[name] ??= new Map()).set(page.id, out);
    }
  }
  return results;
}

function printScores(label: string, byExtractor: Record<string, Record<string, Score>>, stats: Record<string, Stats>): void {
  console.log(`\n${label}`);
  for (const [name, scores] of Object.entries(byExtractor)) {
    const s = stats[name];
    console.log(`  ${name} (${s.failures} threw, ${s.empty} empty, ${Math.round(s.ms)} ms)`);
    for (const [format, v] of Object.entries(scores)) {
      console.log(`    ${format.padEnd(32)} precision ${v.precision.toFixed(3)}  recall ${v.recall.toFixed(3)}  F1 ${v.f1.toFixed(3)}`);
    }
  }
}

export async function benchField(args: string[]): Promise<void> {
  const values = (flag: string) => args.flatMap((arg, i) => (arg === flag && args[i + 1] ? [args[i + 1]] : []));
  const deps = values('--deps')[0];
  if (!deps) throw new Error('--deps <folder> is required: the folder where jsdom, defuddle and @extractus/article-extractor are installed (see the header of bench/web-field.ts)');
  const every = Number(values('--every')[0] ?? 1);
  const only = values('--only')[0]?.split(',');
  const all = { ...own, ...(await loadField(deps)) };
  const extractors = Object.fromEntries(Object.entries(all).filter(([name]) => !only || only.includes(name)));
  const perPage: Record<string, Record<string, PageScores>> = {};
  const report: Record<string, unknown> = {};
  const run = async <T extends { id: string; html: string }>(dir: string, label: string, pages: T[], scoreWith: (pages: T[], perPage: PageScores, extract: (page: { id: string }) => Output) => Record<string, Score>) => {
    const stats: Record<string, Stats> = {};
    const outputs = await extractAll(pages, extractors, stats);
    const scores: Record<string, Record<string, Score>> = {};
    for (const name of Object.keys(extractors)) {
      scores[name] = scoreWith(pages, ((perPage[name] ??= {})[dir] = {}), (page) => outputs[name].get(page.id) ?? {});
    }
    printScores(`${label} (${pages.length} pages of ${dir})`, scores, stats);
    report[dir] = { pages: pages.length, scores, stats };
  };
  for (const dir of values('--articles')) await run(dir, 'shingle F1', sampleEvery(benchmarkPages(dir), every), scorePages);
  for (const dir of values('--snippets')) await run(dir, 'sentences that must and must not be there', sampleEvery(snippetPages(dir), every), scoreSnippets);
  const pagesOut = values('--pages')[0];
  if (pagesOut) fs.writeFileSync(pagesOut, JSON.stringify(perPage));
  const jsonOut = values('--json')[0];
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(report, null, 1));
}

if (import.meta.url === `file://${process.argv[1]}`) await benchField(process.argv.slice(2));
