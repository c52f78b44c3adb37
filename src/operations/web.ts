/** Web operations: scrape one page, map a site's URLs, crawl a site (a job). */
import { z } from 'zod';
import { httpUrl, languageCode } from './inputs.js';
import { defineOperation } from './define.js';
import { scrape } from '../web/scrape.js';
import { mapSite } from '../web/map.js';
import { crawlSite, type CrawlResult } from '../web/crawl.js';
import { registerWebhook } from '../jobs/webhook-courier.js';
import { crawlResult, mapReply, scrapeReply } from './outputs.js';

const format = z.enum(['markdown', 'text', 'html']).default('markdown').describe('Output format of the page content');
/** Supadata's two page options: the language asked of the site, and content without URLs. */
const lang = languageCode.optional().describe('Preferred language of the page (ISO 639-1, e.g. en, de; pt-BR too), sent to the site as Accept-Language');

export const webScrape = defineOperation({
  name: 'web_scrape',
  title: 'Scrape a web page',
  description:
    'Fetches one web page and returns its readable content as markdown (default), plain text or HTML, with its title, description, metadata and the links it contains. By default only the main content (the article) is kept, without navigation, banners or scripts. Costs 1 credit.',
  http: { method: 'GET', path: '/v1/web/scrape' },
  input: z.object({
    url: httpUrl.describe('The page to scrape (http or https)'),
    format,
    onlyMainContent: z.boolean().default(true).describe('Keep only the main content (true) or the whole page body (false)'),
    noLinks: z.boolean().default(false).describe('Content without URLs: links become their text and images their alt text (urls still lists the links)'),
    lang,
  }),
  output: scrapeReply,
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  run: (input, ctx) =>
    scrape(ctx.services.http, input.url, { format: input.format, onlyMainContent: input.onlyMainContent, noLinks: input.noLinks, lang: input.lang, signal: ctx.signal }),
});

export const webMap = defineOperation({
  name: 'web_map',
  title: 'Map a website',
  description:
    "Lists the URLs of a website: first from its sitemaps (robots.txt, sitemap.xml, indexes), then by following links between its pages, until the limit. Same site only, normalised and deduplicated. Use it to see what a site contains before scraping or crawling it. Costs 1 credit.",
  http: { method: 'GET', path: '/v1/web/map' },
  input: z.object({
    url: httpUrl.describe('Any URL of the site to map'),
    limit: z.number().int().min(1).max(500).default(200).describe('Most URLs to return (1 to 500)'),
    lang,
    noLinks: z.boolean().default(false).describe('Accepted as the Supadata SDK sends it; a map lists URLs only, so it changes nothing'),
  }),
  output: mapReply,
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  run: (input, ctx) =>
    mapSite(ctx.services.http, input.url, { limit: input.limit, lang: input.lang, signal: ctx.signal, concurrency: ctx.services.config.GLEANER_HOST_CONCURRENCY }),
});

const crawlInput = z
  .object({
    url: httpUrl.describe('Where the crawl starts; only pages of the same site are crawled'),
    mode: z.enum(['sitemap', 'recursive']).default('sitemap').describe('sitemap: the pages the sitemaps list; recursive: follow links from the start URL'),
    maxPages: z.number().int().min(1).max(500).optional().describe('Most pages to scrape (1 to 500, default 100); 1 credit per page scraped'),
    limit: z.number().int().min(1).max(500).optional().describe('Same as maxPages (the name the Supadata SDK sends)'),
    format,
    webhook: httpUrl.optional().describe('URL that receives a signed POST with the job when it finishes'),
  })
  .superRefine((input, ctx) => {
    if (input.maxPages !== undefined && input.limit !== undefined && input.maxPages !== input.limit) {
      ctx.addIssue({ code: 'custom', path: ['limit'], message: 'maxPages and limit disagree; give one of them' });
    }
  });

const DEFAULT_MAX_PAGES = 100;
const pagesWanted = (input: z.output<typeof crawlInput>) => input.maxPages ?? input.limit ?? DEFAULT_MAX_PAGES;

export const webCrawl = defineOperation({
  name: 'web_crawl',
  title: 'Crawl a website',
  description:
    "Scrapes up to maxPages pages of one website, from its sitemaps (mode sitemap, default) or by following links from the start URL (mode recursive), obeying robots.txt. Runs as a job: returns a job id to poll with job_status; the result lists each page's content and the pages that failed. Optionally POSTs the finished job to a webhook. Pro plan or higher; 1 credit per page scraped.",
  http: { method: 'POST', path: '/v1/web/crawl' },
  input: crawlInput,
  output: crawlResult,
  plan: 'Pro',
  // A short balance crawls as many pages as it pays for (at least one), and the result says so.
  cost: { reserve: (input) => pagesWanted(input), settle: (_input, result: CrawlResult) => result.pages.length, floor: () => 1 },
  kind: 'job',
  readOnly: true,
  openWorld: true,
  // The SSRF guard on the start and webhook URLs before anything is charged or queued.
  async check(input, ctx) {
    await ctx.services.http.assertAllowed(input.url);
    if (input.webhook) await ctx.services.http.assertAllowed(input.webhook);
  },
  async run(input, ctx) {
    // Delivered by whichever process ends the job (see WebhookCourier), even after a restart.
    if (input.webhook && ctx.jobId) await registerWebhook(ctx.services.jobs, ctx.services.store, ctx.jobId, input.webhook);
    const wanted = pagesWanted(input);
    const maxPages = Math.min(wanted, ctx.budget);
    const result = await crawlSite(ctx.services.http, input.url, {
      mode: input.mode,
      maxPages,
      format: input.format,
      concurrency: ctx.services.config.GLEANER_HOST_CONCURRENCY,
      signal: ctx.signal,
      progress: (done, total) => ctx.progress(done, total),
    });
    const short = maxPages < wanted && result.pages.length + result.failed.length >= maxPages;
    return short ? { ...result, stoppedOn: 'credits' as const } : result;
  },
});
