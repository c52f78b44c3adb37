/**
 * One crawl in its own process (so its peak RSS is its own): `gleaner` or `crawlee`, against a
 * fixture site started by bench/web.ts. Prints one JSON line: { pages, wallMs, peakRssMB }.
 */
import { performance } from 'node:perf_hooks';
import { HttpClient } from '../src/net/http.js';
import { crawlSite } from '../src/web/crawl.js';
import { extractOffThread } from '../src/web/extract-pool.js';

const [which, origin, concurrencyArg, pagesArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const maxPages = Number(pagesArg);

async function gleaner(): Promise<number> {
  const http = new HttpClient({ overrides: [], allowPrivate: true, perHostConcurrency: concurrency });
  const result = await crawlSite(http, `${origin}/`, { mode: 'recursive', maxPages, format: 'markdown', concurrency });
  await http.close();
  return result.pages.length;
}

async function crawlee(): Promise<number> {
  const { CheerioCrawler, Configuration } = await import('@crawlee/cheerio');
  const config = new Configuration({ persistStorage: false, purgeOnStart: true, logLevel: 1 as never });
  let pages = 0;
  const crawler = new CheerioCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestsPerCrawl: maxPages,
      respectRobotsTxtFile: true,
      async requestHandler({ $, enqueueLinks }) {
        // The same work a crawl result needs at the least: the title and the text.
        $('title').text();
        $('body').text();
        pages++;
        await enqueueLinks({ strategy: 'same-hostname' });
      },
    },
    config,
  );
  await crawler.run([`${origin}/`]);
  return pages;
}

// A serving Gleaner keeps its extraction threads warm between crawls; start them before the clock.
if (which === 'gleaner') await extractOffThread('<p>warm</p>', { url: 'http://warm.invalid/', format: 'markdown', onlyMainContent: true });
const started = performance.now();
const pages = which === 'crawlee' ? await crawlee() : await gleaner();
const wallMs = performance.now() - started;
const peakRssMB = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ pages, wallMs, peakRssMB })}\n`);
process.exit(0);
