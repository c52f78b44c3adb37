/**
 * Main-text quality: how much of a page's article Gleaner returns (recall) and how little else
 * (precision), per format, on the real pages of test/fixtures/web (their expected.html, as text).
 *
 * The score is the one of the public article-extraction benchmarks (token 4-gram shingles counted
 * with repetition; each page's true/false positives and misses normalised to sum to 1 so long pages
 * weigh no more than short ones; precision and recall averaged over pages; F1 of the two averages).
 * `markdown words` scores markdown with the URLs of its links and images taken out (the words alone).
 *
 * Public sets are scored from a local copy given on the command line (none of their data is in this
 * repository; docs/web-extraction.md says where each comes from):
 *   npx tsx bench/web-quality.ts [--articles <dir>]... [--snippets <dir>]... [--pages <out.json>] [--no-fixtures]
 * `--articles`: `<dir>/html/<id>.html(.gz)` and `<dir>/ground-truth.json` ({ id: { articleBody, type? } }),
 * e.g. scrapinghub/article-extraction-benchmark; scored with the shingle metric, and by `type` when given.
 * `--every <n>`: only every n-th page of each public set (by id order), for a quicker run on a busy machine.
 * `--snippets`: trafilatura's evaluation set, `<dir>/evaldata.json` ({ url: { file, with, without } }) and
 * `<dir>/eval/<file>`: sentences that must and must not be in the main text (precision, recall, F1 of
 * those sentences found). `--pages` writes each page's per-format F1, to compare two runs page by page.
 * `GLEANER_BENCH_ARTICLES=<dir>` is the same as one `--articles <dir>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { REAL_PAGES_DIR } from '../test/support/fixture-site.js';
import { extractPage, htmlToText, type ContentFormat } from '../src/web/extract.js';

type Counts = [tp: number, fp: number, fn: number];

function shingles(text: string, n = 4): Map<string, number> {
  const tokens = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  const counts = new Map<string, number>();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last; i++) {
    const shingle = tokens.slice(i, i + n).join(' ');
    if (shingle) counts.set(shingle, (counts.get(shingle) ?? 0) + 1);
  }
  return counts;
}

export function matchCounts(expected: string, predicted: string): Counts {
  const truth = shingles(expected);
  const guess = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...truth.keys(), ...guess.keys()])) {
    const t = truth.get(key) ?? 0;
    const g = guess.get(key) ?? 0;
    tp += Math.min(t, g);
    fp += Math.max(0, g - t);
    fn += Math.max(0, t - g);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? [tp / sum, fp / sum, fn / sum] : [0, 0, 0];
}

export interface Score {
  precision: number;
  recall: number;
  f1: number;
}

export function score(counts: Counts[]): Score {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const ratio = (a: number, b: number, other: number) => (b === 0 && other === 0 ? 1 : a + b === 0 ? 0 : a / (a + b));
  const precision = mean(counts.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => ratio(tp, fp, fn)));
  const recall = mean(counts.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => ratio(tp, fn, fp)));
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall || 1) };
}

export interface Page {
  id: string;
  html: string;
  expected: string;
  /** The page's kind in the set (article, forum, product...), when the set says. */
  type?: string;
}

function fixturePages(): Page[] {
  return fs
    .readdirSync(REAL_PAGES_DIR)
    .filter((name) => fs.existsSync(path.join(REAL_PAGES_DIR, name, 'expected.html')))
    .sort()
    .map((name) => ({
      id: name,
      html: fs.readFileSync(path.join(REAL_PAGES_DIR, name, 'source.html'), 'utf8'),
      expected: htmlToText(fs.readFileSync(path.join(REAL_PAGES_DIR, name, 'expected.html'), 'utf8')),
    }));
}

function readHtml(file: string): string {
  const bytes = fs.readFileSync(file);
  return (file.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('utf8');
}

export function benchmarkPages(dir: string): Page[] {
  const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody?: string; type?: string }>;
  return Object.entries(truth).map(([id, entry]) => {
    const file = ['.html.gz', '.html'].map((ext) => path.join(dir, 'html', `${id}${ext}`)).find((f) => fs.existsSync(f));
    if (!file) throw new Error(`no html for ${id} in ${dir}/html`);
    return { id, html: readHtml(file), expected: entry.articleBody ?? '', type: entry.type };
  });
}

export const withoutUrls = (markdown: string) => markdown.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');

/** The formats scored: the text, markdown with its URLs (what a model reads), and markdown's words alone. */
export const SCORED = ['text', 'markdown', 'markdown words'] as const;
export type Scored = (typeof SCORED)[number];

/** What an extractor gives for one page, in the formats it has (a format left out is not scored). */
export type Outputs = (page: { id: string; html: string }) => Partial<Record<Scored, string>>;

/** One page's outputs in the scored formats (main content). */
export function outputs(page: { id: string; html: string }): Record<Scored, string> {
  const run = (format: ContentFormat) => extractPage(page.html, { url: `https://example.com/${page.id}`, format, onlyMainContent: true }).content;
  const markdown = run('markdown');
  return { text: run('text'), markdown, 'markdown words': withoutUrls(markdown) };
}

/** Per-page F1 by format, for `--pages`. */
export type PageScores = Record<string, Record<string, number>>;

const f1Of = ([tp, fp, fn]: Counts) => (tp === 0 ? 0 : (2 * tp) / (2 * tp + fp + fn));

export function scorePages(pages: Page[], perPage?: PageScores, extract: Outputs = outputs): Record<string, Score> {
  const counts: Record<string, Counts[]> = {};
  const add = (key: string, value: Counts) => (counts[key] ??= []).push(value);
  for (const page of pages) {
    const out = extract(page);
    for (const format of SCORED) {
      const predicted = out[format];
      if (predicted === undefined) continue;
      const c = matchCounts(page.expected, predicted);
      add(format, c);
      if (page.type) add(`${format} [${page.type}]`, c);
      if (perPage) (perPage[page.id] ??= {})[format] = f1Of(c);
    }
  }
  return Object.fromEntries(Object.entries(counts).map(([format, list]) => [`${format} (${list.length})`, score(list)]));
}

export interface SnippetPage {
  id: string;
  html: string;
  with: string[];
  without: string[];
}

export function snippetPages(dir: string): SnippetPage[] {
  const data = JSON.parse(fs.readFileSync(path.join(dir, 'evaldata.json'), 'utf8')) as Record<string, { file: string; with?: string[]; without?: string[] }>;
  return Object.values(data)
    .filter((entry) => fs.existsSync(path.join(dir, 'eval', entry.file)))
    .map((entry) => ({ id: entry.file, html: readHtml(path.join(dir, 'eval', entry.file)), with: entry.with ?? [], without: entry.without ?? [] }));
}

/** Words only, so markdown's marks and the spacing of either side do not decide whether a sentence is there. */
const words = (text: string) => ` ${(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ')} `;

/** trafilatura's measure: a "with" sentence found is a true positive, a "without" sentence found a false positive. */
export function scoreSnippets(pages: SnippetPage[], perPage?: PageScores, extract: Outputs = outputs): Record<string, Score> {
  const totals: Record<string, [tp: number, fp: number, fn: number]> = {};
  for (const page of pages) {
    const out = extract(page);
    for (const format of ['text', 'markdown words'] as const) {
      const output = out[format];
      if (output === undefined) continue;
      const found = words(output);
      const has = (snippet: string) => words(snippet).trim() !== '' && found.includes(words(snippet));
      const tp = page.with.filter(has).length;
      const fp = page.without.filter(has).length;
      const fn = page.with.length - tp;
      const total = (totals[format] ??= [0, 0, 0]);
      total[0] += tp;
      total[1] += fp;
      total[2] += fn;
      if (perPage) (perPage[page.id] ??= {})[format] = page.with.length + page.without.length ? (tp + page.without.length - fp) / (page.with.length + page.without.length) : 1;
    }
  }
  return Object.fromEntries(
    Object.entries(totals).map(([format, [tp, fp, fn]]) => {
      const precision = tp / Math.max(1, tp + fp);
      const recall = tp / Math.max(1, tp + fn);
      return [`${format} (${pages.length})`, { precision, recall, f1: (2 * precision * recall) / (precision + recall || 1) }];
    }),
  );
}

export function print(label: string, scores: Record<string, Score>): void {
  console.log(`main text, ${label}:`);
  for (const [format, s] of Object.entries(scores)) {
    console.log(`  ${format.padEnd(30)} precision ${s.precision.toFixed(3)}  recall ${s.recall.toFixed(3)}  F1 ${s.f1.toFixed(3)}`);
  }
}

/** Every n-th page of a set by id order (the sampling of `--every`). */
export function sampleEvery<T extends { id: string }>(pages: T[], every: number): T[] {
  return [...pages].sort((a, b) => (a.id < b.id ? -1 : 1)).filter((_, i) => i % every === 0);
}

export async function benchQuality(args: string[] = []): Promise<void> {
  const values = (flag: string) => args.flatMap((arg, i) => (arg === flag && args[i + 1] ? [args[i + 1]] : []));
  const perPage: Record<string, PageScores> = {};
  const every = Number(values('--every')[0] ?? 1);
  const sample = <T extends { id: string }>(pages: T[]) => sampleEvery(pages, every);
  if (!args.includes('--no-fixtures')) {
    const fixtures = fixturePages();
    print(`${fixtures.length} real pages of test/fixtures/web against their expected.html`, scorePages(fixtures, (perPage.fixtures = {})));
  }
  const articleSets = [...(process.env.GLEANER_BENCH_ARTICLES ? [process.env.GLEANER_BENCH_ARTICLES] : []), ...values('--articles')];
  for (const dir of articleSets) {
    const pages = sample(benchmarkPages(dir));
    print(`${pages.length} pages of ${dir} (shingle F1)`, scorePages(pages, (perPage[dir] = {})));
  }
  for (const dir of values('--snippets')) {
    const pages = sample(snippetPages(dir));
    print(`${pages.length} pages of ${dir} (sentences that must and must not be there)`, scoreSnippets(pages, (perPage[dir] = {})));
  }
  const out = values('--pages')[0];
  if (out) fs.writeFileSync(out, JSON.stringify(perPage));
}

if (import.meta.url === `file://${process.argv[1]}`) await benchQuality(process.argv.slice(2));
