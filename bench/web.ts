/**
 * Web benchmarks: a recursive crawl of a generated 500-page site with 50 ms latency a page, by
 * Gleaner and by Crawlee's CheerioCrawler at the same concurrency (each in its own process, for
 * peak RSS), beside the latency bound (pages x latency / concurrency), with the two ratios the
 * crawl is held to (Gleaner's time at most 1.3x the bound, Gleaner's pages/s against Crawlee's; Gleaner
 * extracts pages on worker threads, warmed before the clock as in a serving process); then scrape conversion
 * (HTML to markdown, main content) over the real fixture pages against a baseline commit (web-convert.ts).
 */
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startFixtureSite } from '../test/support/fixture-site.js';
import { benchConversion } from './web-convert.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

const PAGES = 500;
const LATENCY_MS = 50;
const CONCURRENCY = 8;

async function crawlIn(which: 'gleaner' | 'crawlee', origin: string) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(here, 'web-crawl-child.ts'), which, origin, String(CONCURRENCY), String(PAGES)], {
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, CRAWLEE_LOG_LEVEL: 'OFF', CRAWLEE_PERSIST_STORAGE: 'false' },
  });
  const line = stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  return JSON.parse(line ?? '{}') as { pages: number; wallMs: number; peakRssMB: number };
}

export async function benchWeb(): Promise<void> {
  console.log(`\nweb crawl: ${PAGES}-page fixture site, ${LATENCY_MS} ms latency a page, concurrency ${CONCURRENCY}`);
  const bound = (PAGES * LATENCY_MS) / CONCURRENCY;
  console.log(`  latency bound (pages x latency / concurrency): ${bound.toFixed(0)} ms (${((PAGES / bound) * 1000).toFixed(1)} pages/s)`);
  const rates: Partial<Record<'gleaner' | 'crawlee', number>> = {};
  for (const which of ['gleaner', 'crawlee'] as const) {
    const site = await startFixtureSite({ pages: PAGES, sitemap: 'none', latencyMs: LATENCY_MS });
    try {
      const result = await crawlIn(which, site.origin);
      rates[which] = (result.pages / result.wallMs) * 1000;
      const label = which === 'gleaner' ? 'Gleaner crawl (markdown)     ' : 'Crawlee CheerioCrawler (text)';
      console.log(
        `  ${label}: ${result.pages} pages in ${result.wallMs.toFixed(0)} ms = ${((result.pages / result.wallMs) * 1000).toFixed(1)} pages/s, ` +
          `${(result.wallMs / bound).toFixed(2)}x the bound, peak RSS ${result.peakRssMB.toFixed(0)} MB, ${site.requests.length} requests`,
      );
    } catch (error) {
      console.log(`  ${which}: failed: ${(error as Error).message.split('\n')[0]}`);
    } finally {
      await site.close();
    }
  }

  if (rates.gleaner && rates.crawlee) {
    console.log(
      `  ratios: Gleaner ${((PAGES / rates.gleaner) * 1000 / bound).toFixed(2)}x the latency bound (goal <= 1.3), ` +
        `${(rates.gleaner / rates.crawlee).toFixed(2)}x Crawlee's pages/s (goal >= 1.5), on ${os.availableParallelism()} cores (load ${os.loadavg()[0].toFixed(1)})`,
    );
  }

  await benchConversion();
}
