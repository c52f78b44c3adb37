/**
 * web_scrape_batch: several pages with the same options as one job. Each page is read by
 * web_scrape's own run (so whatever web_scrape does, formats, rendering, change tracking, a batch
 * does) and priced by web_scrape's own cost; a page that fails is reported with its error and
 * charged nothing. web_scrape_batch_results shows the job's pages in parts over REST.
 * Choices and limits: docs/web-batch-and-changes.md.
 */
import { z } from 'zod';
import { defineOperation, reserveCost, settleCost, type CheckContext, type OperationContext } from './define.js';
import { httpUrl } from './inputs.js';
import { webScrape } from './web.js';
import { checkAnswerInput } from './page-answers.js';
import { eachInBatch } from './youtube-batch.js';
import { scrapeBatchResult, jobReply } from './outputs.js';
import { FREE_LOOKUP, jobIdInput } from './lookups.js';
import { registerWebhook } from '../jobs/webhook-courier.js';
import { GleanerError, isGleanerError, toGleanerError } from '../errors.js';
import { publicJob } from '../jobs/jobs.js';
import { normalizeUrl } from '../web/urls.js';
import { BATCH_SCRAPE_URLS, MAX_BATCH_SCRAPE_URLS, PLANS, PLAN_NAMES } from '../accounts/plans.js';
import type { Config } from '../config.js';

type PageInput = z.output<typeof webScrape.input>;
type BatchResult = z.infer<typeof scrapeBatchResult>;
type BatchItem = BatchResult['results'][number];

// Every option of web_scrape but its url, with the same bounds and defaults (the only place they live).
const { url: _url, ...pageOptions } = webScrape.input.shape;

const batchInput = z
  .object({
    urls: z.array(httpUrl).min(1).max(MAX_BATCH_SCRAPE_URLS).describe('Pages (up to 100, by plan)'),
    ...pageOptions,
    webhook: httpUrl.optional().describe('POSTed when done'),
  })
  .superRefine(checkAnswerInput);
type BatchInput = z.output<typeof batchInput>;

/** The URLs once each, in the order first given: two spellings of one page (case of the host, a fragment) are one. */
export function distinctUrls(urls: string[]): string[] {
  const seen = new Set<string>();
  return urls.filter((url) => {
    const key = normalizeUrl(url) ?? url;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Each distinct URL as a web_scrape input (its own checks and refinements run on it). */
function pageInputs(input: BatchInput): PageInput[] {
  const { urls, webhook: _webhook, ...options } = input;
  return distinctUrls(urls).map((url) => {
    const parsed = webScrape.input.safeParse({ ...options, url });
    if (!parsed.success) throw new GleanerError('INVALID_REQUEST', `${url}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('; ')}`);
    return parsed.data;
  });
}

/** What one page reserves before it is read: web_scrape's own reservation. */
const pageReserve = (input: BatchInput, config: Config) => reserveCost(webScrape.cost, pageInputs(input)[0], config);

/** The plan's URL limit; over it, a 400 that names the limit and the plan that allows more. */
function assertWithinPlan(count: number, ctx: CheckContext): void {
  const plan = ctx.account.plan;
  const limit = BATCH_SCRAPE_URLS[plan];
  if (count <= limit) return;
  const larger = PLAN_NAMES.find((name) => BATCH_SCRAPE_URLS[name] >= count);
  throw new GleanerError(
    'INVALID_REQUEST',
    `urls: the ${PLANS[plan].name} plan scrapes at most ${limit} distinct URLs in one batch (this one has ${count}); split it${larger ? `, or use the ${larger} plan or above` : ''}. Nothing was charged.`,
  );
}

/** A page's context: its own progress and hand-off are the batch's business, not the page's. */
function pageContext(ctx: OperationContext): OperationContext {
  return { ...ctx, progress: () => undefined, prefersAsync: false };
}

export const webScrapeBatch = defineOperation({
  name: 'web_scrape_batch',
  title: 'Scrape several web pages',
  description:
    'Several pages in one job (up to 100 URLs by plan), options as web_scrape: use it instead of many web_scrape calls. 1 credit a page; failures free.',
  http: { method: 'POST', path: '/v1/web/scrape/batch' },
  input: batchInput,
  output: scrapeBatchResult,
  // REST takes these; the MCP tool leaves them out of the tool list, whose size every conversation pays:
  // a model follows the job itself (the tool waits for it), and noLinks and lang change little (as on web_map).
  // Kept to REST for the tool list's size: a model batching pages rarely needs per-page browser steps or diffs.
  restAliases: ['webhook', 'noLinks', 'lang', 'waitFor', 'actions', 'screenshot', 'changeTracking'],
  groups: ['web'],
  plan: 'Free',
  // Each page as web_scrape prices it; a short balance scrapes as many pages as it pays for (at least one).
  cost: {
    reserve: (input, config) => pageInputs(input).length * pageReserve(input, config),
    settle: (_input, result: BatchResult) => result.creditsUsed,
    floor: pageReserve,
  },
  kind: 'job',
  readOnly: true,
  openWorld: true,
  // Refused before anything is charged or queued: too many URLs for the plan, an option web_scrape
  // refuses, a webhook the SSRF guard refuses. A page's own URL is checked when it is read (its failure is its own).
  async check(input, ctx) {
    const pages = pageInputs(input);
    assertWithinPlan(pages.length, ctx);
    for (const page of pages) await webScrape.check?.(page, ctx);
    if (input.webhook) await ctx.services.http.assertAllowed(input.webhook);
  },
  async run(input, ctx) {
    // Delivered by whichever process ends the job (see WebhookCourier), even after a restart.
    if (input.webhook && ctx.jobId) await registerWebhook(ctx.services.jobs, ctx.services.store, ctx.jobId, input.webhook);
    const started = Date.now();
    const config = ctx.services.config;
    const pages = pageInputs(input);
    const affordable = Math.floor(ctx.budget / pageReserve(input, config));
    let done = 0;
    ctx.progress(0, pages.length);
    const outcomes = await eachInBatch(pages.map((page, index) => ({ page, index })), async ({ page, index }): Promise<{ item: BatchItem; credits: number } | undefined> => {
      if (index >= affordable) {
        const error = { code: 'CREDITS_EXHAUSTED' as const, message: `Not scraped: the balance paid for ${affordable} of the ${pages.length} pages. Nothing was charged for this one.` };
        return { item: { url: page.url, error }, credits: 0 };
      }
      // A cancelled batch leaves the pages it had not begun out of its result.
      if (ctx.signal.aborted) return undefined;
      try {
        const result = await webScrape.run(page, pageContext(ctx));
        return { item: { url: page.url, page: result }, credits: settleCost(webScrape.cost, page, result, config) };
      } catch (error) {
        if (ctx.signal.aborted) return undefined;
        const failure = toGleanerError(error);
        if (!isGleanerError(error)) ctx.log.error({ err: error, url: page.url }, 'batch page failed');
        return { item: { url: page.url, error: { code: failure.code, message: failure.message } }, credits: 0 };
      } finally {
        ctx.progress(++done, pages.length);
      }
    });
    const kept = outcomes.filter((outcome) => outcome !== undefined);
    const results = kept.map((outcome) => outcome.item);
    const succeeded = results.filter((item) => item.page).length;
    return {
      results,
      stats: { total: results.length, succeeded, failed: results.length - succeeded, durationMs: Date.now() - started },
      creditsUsed: kept.reduce((sum, outcome) => sum + outcome.credits, 0),
      ...(affordable < pages.length ? { stoppedOn: 'credits' as const } : {}),
    };
  },
});

/** Results per reply of web_scrape_batch_results when the caller does not say. */
const RESULTS_PAGE_SIZE = 20;

const sdkState = z.enum(['scraping', 'completed', 'failed', 'cancelled']);

export const webScrapeBatchResults = defineOperation({
  name: 'web_scrape_batch_results',
  title: 'Results of a batch scrape',
  description:
    'Shows a batch started by web_scrape_batch: status (scraping, completed, failed, cancelled), progress, and once it ended its results (a page or an error per URL), `limit` at a time from `skip`; `next` is the URL of the following part (absent on the last). Free to call.',
  http: { method: 'GET', path: '/v1/web/scrape/batch/{jobId}' },
  input: z.object({
    jobId: jobIdInput,
    skip: z.number().int().min(0).max(MAX_BATCH_SCRAPE_URLS).default(0).describe('Results to skip (from a previous next)'),
    limit: z.number().int().min(1).max(MAX_BATCH_SCRAPE_URLS).default(RESULTS_PAGE_SIZE).describe(`Results per reply (1 to ${MAX_BATCH_SCRAPE_URLS}, default ${RESULTS_PAGE_SIZE})`),
  }),
  output: z.object({
    status: sdkState,
    progress: jobReply(scrapeBatchResult).shape.progress,
    results: scrapeBatchResult.shape.results.optional(),
    stats: scrapeBatchResult.shape.stats.optional(),
    creditsUsed: z.number().int().describe('Credits charged: 0 until the batch ended'),
    next: z.string().optional().describe('The URL of the next part of the results; absent on the last'),
    stoppedOn: z.literal('credits').optional(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  }),
  ...FREE_LOOKUP,
  // On MCP, job_status shows the same job (and pages it).
  restOnly: true,
  async run(input, ctx) {
    const job = await ctx.services.jobs.get(input.jobId, ctx.account.id);
    if (job.operation !== webScrapeBatch.name) throw new GleanerError('NOT_FOUND', `Job "${input.jobId}" was started by ${job.operation}, not by ${webScrapeBatch.name}.`);
    const status: z.infer<typeof sdkState> = job.status === 'queued' || job.status === 'processing' ? 'scraping' : job.status;
    const base = { status, progress: job.progress, creditsUsed: publicJob(job).creditsUsed, error: job.error };
    if (!job.result) return base;
    const result = scrapeBatchResult.parse(job.result);
    const end = input.skip + input.limit;
    return {
      ...base,
      results: result.results.slice(input.skip, end),
      stats: result.stats,
      ...(end < result.results.length ? { next: `${ctx.origin ?? ''}/v1/web/scrape/batch/${encodeURIComponent(job.jobId)}?skip=${end}&limit=${input.limit}` } : {}),
      ...(result.stoppedOn ? { stoppedOn: result.stoppedOn } : {}),
    };
  },
});
