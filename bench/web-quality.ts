/**
 * Main-text quality: how much of a page's article Gleaner returns (recall) and how little else
 * (precision), per format, on the real pages of test/fixtures/web (their expected.html, as text).
 *
 * The score is the one of the public article-extraction benchmarks (token 4-gram shingles counted
 * with repetition; each page's true/false positives and misses normalised to sum to 1 so long pages
 * weigh no more than short ones; precision and recall averaged over pages; F1 of the two averages).
 * `markdown words` scores markdown with the URLs of its links and images taken out (the words alone).
 *
 * `GLEANER_BENCH_ARTICLES=<dir>` also scores a local copy of such a benchmark: `<dir>/html/<id>.html(.gz)`
 * and `<dir>/ground-truth.json` ({ id: { articleBody } }), e.g. scrapinghub/article-extraction-benchmark
 * (not part of this repository).
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

interface Page {
  id: string;
  html: string;
  expected: string;
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

function benchmarkPages(dir: string): Page[] {
  const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { articleBody?: string; url?: string }>;
  return Object.entries(truth).map(([id, entry]) => {
    const file = ['.html.gz', '.html'].map((ext) => path.join(dir, 'html', `${id}${ext}`)).find((f) => fs.existsSync(f));
    if (!file) throw new Error(`no html for ${id} in ${dir}/html`);
    const bytes = fs.readFileSync(file);
    return { id, html: (file.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('utf8'), expected: entry.articleBody ?? '' };
  });
}

const withoutUrls = (markdown: string) => markdown.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');

export function scorePages(pages: Page[]): Record<string, Score> {
  const counts: Record<string, Counts[]> = { text: [], markdown: [], 'markdown words': [], html: [] };
  for (const page of pages) {
    for (const format of ['text', 'markdown', 'html'] as ContentFormat[]) {
      const { content } = extractPage(page.html, { url: `https://example.com/${page.id}`, format, onlyMainContent: true });
      const words = format === 'html' ? htmlToText(content) : content;
      counts[format].push(matchCounts(page.expected, words));
      if (format === 'markdown') counts['markdown words'].push(matchCounts(page.expected, withoutUrls(content)));
    }
  }
  return Object.fromEntries(Object.entries(counts).map(([format, list]) => [format, score(list)]));
}

function print(label: string, scores: Record<string, Score>): void {
  console.log(`main text, ${label}:`);
  for (const [format, s] of Object.entries(scores)) {
    console.log(`  ${format.padEnd(15)} precision ${s.precision.toFixed(3)}  recall ${s.recall.toFixed(3)}  F1 ${s.f1.toFixed(3)}`);
  }
}

export async function benchQuality(): Promise<void> {
  const fixtures = fixturePages();
  print(`${fixtures.length} real pages of test/fixtures/web against their expected.html`, scorePages(fixtures));
  const external = process.env.GLEANER_BENCH_ARTICLES;
  if (external) {
    const pages = benchmarkPages(external);
    print(`${pages.length} pages of ${external}`, scorePages(pages));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchQuality();
