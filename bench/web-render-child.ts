/**
 * One rendered crawl in its own process (its memory, with its browser's, is measured from outside
 * by bench/web-render.ts): `gleaner` (crawl with render=auto) or `crawlee` (PlaywrightCrawler), on
 * the same Chromium, against an app-shell site started by the bench. Prints one JSON line:
 * { pages, withArticle, wallMs }.
 */
import { performance } from 'node:perf_hooks';
import { HttpClient } from '../src/net/http.js';
import { crawlSite } from '../src/web/crawl.js';
import { extractOffThread } from '../src/web/extract-pool.js';
import { Renderer } from '../src/web/render/browser-pool.js';

const [which, origin, concurrencyArg, pagesArg, browserPath] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const maxPages = Number(pagesArg);
const ARTICLE = /was built in the browser/;

async function gleaner(): Promise<{ pages: number; withArticle: number }> {
  const http = new HttpClient({ overrides: [], allowPrivate: true, perHostConcurrency: 8 });
  // One crawler alone: all the slots are its own, as Crawlee's are (a server shares them between keys).
  const renderer = new Renderer({ http, browserPath, concurrency, concurrencyPerOwner: concurrency, timeoutMs: 20_000 });
  const result = await crawlSite(http, `${origin}/`, { mode: 'recursive', maxPages, format: 'markdown', concurrency, render: { mode: 'auto', renderer } });
  await renderer.close();
  await http.close();
  return { pages: result.pages.length, withArticle: result.pages.filter((p) => ARTICLE.test(p.content)).length };
}

async function crawlee(): Promise<{ pages: number; withArticle: number }> {
  const { PlaywrightCrawler, Configuration } = await import('@crawlee/playwright');
  const { chromium } = await import('playwright-core');
  const config = new Configuration({ persistStorage: false, purgeOnStart: true, logLevel: 1 as never });
  let pages = 0;
  let withArticle = 0;
  const crawler = new PlaywrightCrawler(
    {
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestsPerCrawl: maxPages,
      respectRobotsTxtFile: true,
      launchContext: {
        launcher: chromium,
        launchOptions: { executablePath: browserPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] },
      },
      async requestHandler({ page, enqueueLinks }) {
        // The least a rendered crawl needs: the article once the app built it, the title, the text.
        await page.waitForSelector('article', { timeout: 20_000 });
        await page.title();
        const text = await page.innerText('body');
        pages++;
        if (ARTICLE.test(text)) withArticle++;
        await enqueueLinks({ strategy: 'same-hostname' });
      },
    },
    config,
  );
  await crawler.run([`${origin}/`]);
  return { pages, withArticle };
}

// A serving Gleaner keeps its extraction threads warm between crawls; start them before the clock.
if (which === 'gleaner') await extractOffThread('<p>warm</p>', { url: 'http://warm.invalid/', format: 'markdown', onlyMainContent: true });
const started = performance.now();
const counts = which === 'crawlee' ? await crawlee() : await gleaner();
const wallMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ...counts, wallMs })}\n`);
process.exit(0);
