/** Web operations: scrape one page, map a site's URLs, crawl a site (a job). */
import { z } from 'zod';
import { actionsInput, httpUrl, languageCode, renderMode, screenshotInput, waitForInput } from './inputs.js';
import { assertRenderable, pagePrice, renderChoice, renderPrice, PAGE_COST } from './render.js';
import { defineOperation, type OperationContext } from './define.js';
import type { Config } from '../config.js';
import { scrape } from '../web/scrape.js';
import { mapSite } from '../web/map.js';
import { crawlSite, type CrawledPage, type CrawlResult } from '../web/crawl.js';
import { registerWebhook } from '../jobs/webhook-courier.js';
import { crawlResult, mapReply, scrapeReply } from './outputs.js';
import { documentSettings } from './documents.js';
import { changeTracking, withChanges } from './web-changes.js';
import { keepScreenshot } from './screenshots.js';
import { MAX_PATH_PATTERNS, MAX_PATH_PATTERN_LENGTH, pathPatternProblem } from '../web/scope.js';
import { answerKind, answerPrice, assertAnswerable, checkAnswerInput, contentFormat, pageAnswerer, pageFormat, promptInput, schemaInput } from './page-answers.js';
import { SchemaMismatch } from '../ai/structured.js';
import { deadline } from '../deadline.js';

/** Supadata's two page options: the language asked of the site, and content without URLs. */
const lang = languageCode.optional().describe('Accept-Language');

/** Path globs (web/scope.ts: `*` within a segment, `**` across); refused before anything is charged when malformed. */
const pathPattern = z
  .string()
  .min(1)
  .max(MAX_PATH_PATTERN_LENGTH)
  .superRefine((pattern, ctx) => {
    const problem = pathPatternProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: `pattern "${pattern}" ${problem}` });
  });
const pathPatterns = (what: string) => z.array(pathPattern).max(MAX_PATH_PATTERNS).optional().describe(what);
const includePaths = pathPatterns('Globs: /blog/**');
const excludePaths = pathPatterns('Skip globs');

export const webScrape = defineOperation({
  name: 'web_scrape',
  title: 'Scrape a web page',
  description:
    'A web page, PDF or Word file as markdown, text or HTML, JavaScript pages too; or a summary, answer (to prompt) or json (schema) of it. 1 credit; +1 if rendered in a browser, +2 summary or answer, +3 json.',
  // POST too: a JSON body carries actions that hold commas, which a query string's list splits.
  http: { method: 'GET', path: '/v1/web/scrape', alsoPost: true },
  input: z
    .object({
      url: httpUrl,
      format: pageFormat,
      onlyMainContent: z.boolean().default(true).describe('false: whole body'),
      render: renderMode,
      waitFor: waitForInput,
      noLinks: z.boolean().default(false).describe('Links as text, images as alt'),
      lang,
      prompt: promptInput,
      schema: schemaInput,
      changeTracking,
      actions: actionsInput,
      screenshot: screenshotInput,
    })
    .superRefine(checkAnswerInput),
  output: scrapeReply,
  groups: ['web'],
  plan: 'Free',
  // A page answer's price is added to the page's; a failed answer fails the call, which charges nothing.
  cost: {
    reserve: (input, config) => PAGE_COST.reserve(input, config) + answerPrice(input),
    settle: (input, result, config) => PAGE_COST.settle(input, result, config) + answerPrice(input),
  },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async check(input, ctx) {
    assertRenderable(input, ctx);
    assertAnswerable(input, ctx);
  },
  async run(input, ctx) {
    const answer = pageAnswerer(input, ctx);
    const { screenshot, ...page } = await scrape(ctx.services.http, input.url, {
      format: contentFormat(input),
      onlyMainContent: input.onlyMainContent,
      noLinks: input.noLinks,
      lang: input.lang,
      signal: ctx.signal,
      render: renderChoice(input, ctx),
      documents: documentSettings(ctx),
    });
    const tracked = await withChanges({ ...input, format: contentFormat(input) }, ctx, page);
    // The PNG is kept for a while and the reply names it (REST: its URL; MCP adds the image itself).
    const shown = screenshot ? { ...tracked, screenshot: await keepScreenshot(ctx, screenshot) } : tracked;
    return answer ? answer(shown) : shown;
  },
});

export const webMap = defineOperation({
  name: 'web_map',
  title: 'Map a website',
  description:
    'Lists the URLs of a website (sitemaps, then links). 1 credit.',
  http: { method: 'GET', path: '/v1/web/map' },
  input: z.object({
    url: httpUrl,
    limit: z.number().int().min(1).max(500).default(200),
    render: renderMode,
    waitFor: waitForInput,
    lang,
    noLinks: z.boolean().default(false).describe('Accepted; a map lists URLs only'),
    search: z.string().trim().min(1).max(100).optional().describe('Rank URLs by this term'),
    includePaths,
    excludePaths,
  }),
  output: mapReply,
  // Supadata's API names these for map as for scrape, so REST takes them. The SDK cannot send them
  // (@supadata/js 1.4.0's web.map(url) and web.scrape(url) send only { url }). noLinks changes
  // nothing on a map and lang little, so MCP does not list them.
  // The path filters as well: the tool list's budget goes to crawl's, where they save pages and credits.
  restAliases: ['noLinks', 'lang', 'includePaths', 'excludePaths'],
  groups: ['web'],
  plan: 'Free',
  // Each render is reserved when it happens (a map does not know in advance how many pages it reads).
  cost: { reserve: () => 1, settle: (_input, result, config) => 1 + result.renderedPages * renderPrice(config) },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async check(input, ctx) {
    assertRenderable(input, ctx);
  },
  run: (input, ctx) =>
    mapSite(ctx.services.http, input.url, {
      limit: input.limit,
      lang: input.lang,
      signal: ctx.signal,
      concurrency: ctx.services.config.GLEANER_HOST_CONCURRENCY,
      render: renderChoice(input, ctx, false),
      search: input.search,
      scope: { includePaths: input.includePaths, excludePaths: input.excludePaths },
    }),
});

/** Deepest link depth a crawl may ask for (0: the start page alone). */
const MAX_CRAWL_DEPTH = 25;
/** Most pages of a crawl a model answers about (format summary, answer or json): each is a model call. */
const MAX_ANSWERED_PAGES = 50;

const crawlInput = z
  .object({
    url: httpUrl.describe('Start URL'),
    mode: z.enum(['sitemap', 'recursive']).default('sitemap'),
    maxPages: z.number().int().min(1).max(500).optional().describe('default 100'),
    limit: z.number().int().min(1).max(500).optional().describe('Same as maxPages (the name the Supadata SDK sends)'),
    format: pageFormat,
    prompt: promptInput,
    schema: schemaInput,
    render: renderMode,
    waitFor: waitForInput,
    webhook: httpUrl.optional().describe('POSTed when done'),
    includePaths,
    excludePaths,
    maxDepth: z.number().int().min(0).max(MAX_CRAWL_DEPTH).optional().describe('Link depth'),
    allowSubdomains: z.boolean().default(false),
    allowExternal: z.boolean().default(false),
  })
  .superRefine((input, ctx) => {
    if (input.maxPages !== undefined && input.limit !== undefined && input.maxPages !== input.limit) {
      ctx.addIssue({ code: 'custom', path: ['limit'], message: 'maxPages and limit disagree; give one of them' });
    }
    checkAnswerInput(input, ctx);
    const asked = input.maxPages ?? input.limit;
    if (answerKind(input) && asked !== undefined && asked > MAX_ANSWERED_PAGES) {
      ctx.addIssue({ code: 'custom', path: ['maxPages'], message: `at most ${MAX_ANSWERED_PAGES} with format ${input.format} (a model answers each page)` });
    }
  });

const DEFAULT_MAX_PAGES = 100;
const pagesWanted = (input: z.output<typeof crawlInput>) => input.maxPages ?? input.limit ?? (answerKind(input) ? MAX_ANSWERED_PAGES : DEFAULT_MAX_PAGES);
/** What one page of this crawl reserves: its price, its render's if always rendered, its answer's. */
const crawlPagePrice = (input: z.output<typeof crawlInput>, config: Config) => pagePrice(input, config) + answerPrice(input);

export const webCrawl = defineOperation({
  name: 'web_crawl',
  title: 'Crawl a website',
  description:
    "Reads a website's pages (sitemap or links, robots.txt obeyed), or a summary, answer (to prompt) or json (schema) of each. Pro plan; 1 credit a page; +1 rendered, +2 summary or answer, +3 json.",
  http: { method: 'POST', path: '/v1/web/crawl' },
  input: crawlInput,
  output: crawlResult,
  restAliases: ['limit'],
  groups: ['web'],
  plan: 'Pro',
  // A short balance crawls as many pages as it pays for (at least one), and the result says so.
  // render=always reserves each page's render with it; under auto a page reserves its render when it needs one.
  cost: {
    reserve: (input, config) => pagesWanted(input) * crawlPagePrice(input, config),
    settle: (input, result: CrawlResult, config) => result.pages.length * (1 + answerPrice(input)) + result.pages.filter((page) => page.rendered).length * renderPrice(config),
    floor: crawlPagePrice,
  },
  kind: 'job',
  readOnly: true,
  openWorld: true,
  // The SSRF guard on the start and webhook URLs before anything is charged or queued.
  async check(input, ctx) {
    assertRenderable(input, ctx);
    assertAnswerable(input, ctx);
    await ctx.services.http.assertAllowed(input.url);
    if (input.webhook) await ctx.services.http.assertAllowed(input.webhook);
  },
  async run(input, ctx) {
    // Delivered by whichever process ends the job (see WebhookCourier), even after a restart.
    if (input.webhook && ctx.jobId) await registerWebhook(ctx.services.jobs, ctx.services.store, ctx.jobId, input.webhook);
    const wanted = pagesWanted(input);
    const maxPages = Math.min(wanted, Math.floor(ctx.budget / crawlPagePrice(input, ctx.services.config)));
    const answers = crawlAnswers(input, ctx);
    const result = await crawlSite(ctx.services.http, input.url, {
      mode: input.mode,
      maxPages,
      format: contentFormat(input),
      finish: answers?.finish,
      concurrency: ctx.services.config.GLEANER_HOST_CONCURRENCY,
      signal: answers?.signal ?? ctx.signal,
      progress: (done, total) => ctx.progress(done, total),
      documents: documentSettings(ctx),
      render: renderChoice(input, ctx),
      maxDepth: input.maxDepth,
      scope: { includePaths: input.includePaths, excludePaths: input.excludePaths, allowSubdomains: input.allowSubdomains, allowExternal: input.allowExternal },
    });
    // The model could not be asked (down, or the MCP client's turn to answer): the crawl fails, charging nothing.
    if (answers?.failure) throw answers.failure.error;
    const short = maxPages < wanted && result.pages.length + result.failed.length >= maxPages;
    return short ? { ...result, stoppedOn: 'credits' as const } : result;
  },
});

/**
 * A crawl's page answers. An answer that never follows the schema fails its page (listed in
 * `failed`, not charged); a model that cannot be asked stops the whole crawl, which then fails.
 */
function crawlAnswers(input: z.output<typeof crawlInput>, ctx: OperationContext) {
  const answer = pageAnswerer(input, ctx);
  if (!answer) return undefined;
  const stop = new AbortController();
  const state: { failure?: { error: unknown } } = {};
  return {
    signal: deadline(undefined, ctx.signal, stop.signal).signal,
    get failure() {
      return state.failure;
    },
    finish: async (page: CrawledPage) => {
      try {
        return await answer(page);
      } catch (error) {
        if (!(error instanceof SchemaMismatch)) {
          state.failure ??= { error };
          stop.abort();
        }
        throw error;
      }
    },
  };
}
