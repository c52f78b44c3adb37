/**
 * Views of jobs in the shapes the Supadata JavaScript SDK (@supadata/js 1.4.0) reads: its batch,
 * crawl and extract results. Thin: each reads a job of this key and reshapes it; the work itself
 * is done by youtube_*_batch, web_crawl and video_analysis.
 */
import { z } from 'zod';
import { defineOperation, type OperationContext } from './define.js';
import { GleanerError } from '../errors.js';
import type { JobRecord } from '../jobs/jobs.js';
import { crawlResult, transcriptBatchReply, videoBatchReply, youtubeVideo } from './outputs.js';
import { transcriptResponse } from '../model/content.js';
import { FREE_LOOKUP, jobIdInput } from './lookups.js';


/** The job if it is this key's and was started by one of `operations`; NOT_FOUND otherwise. */
async function jobOf(ctx: OperationContext, jobId: string, operations: string[]): Promise<JobRecord> {
  const job = await ctx.services.jobs.get(jobId, ctx.account.id);
  if (!operations.includes(job.operation)) throw new GleanerError('NOT_FOUND', `Job "${jobId}" was started by ${job.operation}, not by ${operations.join(' or ')}.`);
  return job;
}

/** The SDK's four job states: a cancelled job is a failed one to it. */
const sdkStatus = z.enum(['queued', 'active', 'completed', 'failed']);
function statusOf(job: JobRecord): z.infer<typeof sdkStatus> {
  if (job.status === 'processing') return 'active';
  if (job.status === 'cancelled') return 'failed';
  return job.status;
}

/** The SDK's error object: a kebab-case code (`transcript-unavailable`), the message, details. */
const sdkError = z.object({ error: z.string(), message: z.string(), details: z.string() }).nullable();
function errorOf(job: JobRecord): z.infer<typeof sdkError> {
  if (job.status === 'cancelled') return { error: 'cancelled', message: 'The job was cancelled.', details: 'The job was cancelled before it finished.' };
  if (!job.error) return null;
  return { error: job.error.code.toLowerCase().replace(/_/g, '-'), message: job.error.message, details: job.error.message };
}

const batchItem = z.object({
  videoId: z.string(),
  transcript: transcriptResponse.optional(),
  video: youtubeVideo.optional(),
  errorCode: z.string().optional(),
  message: z.string().optional(),
});
const batchStats = z.object({ total: z.number().int(), succeeded: z.number().int(), failed: z.number().int() });

export const youtubeBatchResults = defineOperation({
  name: 'youtube_batch_results',
  title: 'Results of a YouTube batch',
  description:
    "Shows a batch job started by youtube_transcript_batch (with videoIds, playlistId or channelId) or youtube_video_batch, in the Supadata SDK's shape: status (queued, active, completed, failed), one result per video (its transcript or video, or an errorCode), stats and completedAt. Free to call.",
  http: { method: 'GET', path: '/v1/youtube/batch/{jobId}', aliases: ['/v1/vidsite/batch/{jobId}'] },
  input: z.object({ jobId: jobIdInput }),
  output: z.object({
    status: sdkStatus,
    results: z.array(batchItem).optional(),
    stats: batchStats.optional(),
    completedAt: z.string().optional(),
    error: sdkError,
  }),
  ...FREE_LOOKUP,
  // On MCP, job_status shows the same job.
  restOnly: true,
  async run(input, ctx) {
    const job = await jobOf(ctx, input.jobId, ['youtube_transcript_batch', 'youtube_video_batch']);
    const base = { status: statusOf(job), error: errorOf(job), ...(job.finishedAt ? { completedAt: job.finishedAt } : {}) };
    if (job.status !== 'completed' || !job.result) return base;
    const results =
      job.operation === 'youtube_video_batch'
        ? videoBatchReply.parse(job.result).results
        : transcriptBatchReply.parse(job.result).results.map(({ url, videoId, ...rest }) => ({ videoId: videoId ?? url, ...rest }));
    const succeeded = results.filter((item) => !item.errorCode).length;
    return { ...base, results, stats: { total: results.length, succeeded, failed: results.length - succeeded } };
  },
});

/** Pages per reply of web_crawl_results when the caller does not say. */
const CRAWL_PAGE_SIZE = 50;

export const webCrawlResults = defineOperation({
  name: 'web_crawl_results',
  title: 'Results of a crawl',
  description:
    "Shows a crawl started by web_crawl in the Supadata SDK's shape: status (scraping, completed, failed, cancelled) and, once it ended, its pages, `limit` at a time from `skip`; `next` is the URL of the following part (absent on the last). Free to call.",
  http: { method: 'GET', path: '/v1/web/crawl/{jobId}' },
  input: z.object({
    jobId: jobIdInput,
    skip: z.number().int().min(0).max(100_000).default(0).describe('Pages to skip (from a previous next)'),
    limit: z.number().int().min(1).max(500).default(CRAWL_PAGE_SIZE).describe(`Pages per reply (1 to 500, default ${CRAWL_PAGE_SIZE})`),
  }),
  output: z.object({
    status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
    pages: crawlResult.shape.pages.optional(),
    failed: crawlResult.shape.failed.optional(),
    next: z.string().optional().describe('The URL of the next part of the pages; absent on the last'),
    stoppedOn: z.literal('credits').optional(),
    error: sdkError,
  }),
  ...FREE_LOOKUP,
  // On MCP, job_status shows the same job.
  restOnly: true,
  async run(input, ctx) {
    const job = await jobOf(ctx, input.jobId, ['web_crawl']);
    const status = job.status === 'queued' || job.status === 'processing' ? 'scraping' : job.status;
    if (!job.result) return { status, error: errorOf(job) };
    const result = crawlResult.parse(job.result);
    const end = input.skip + input.limit;
    const rest = end < result.pages.length;
    return {
      status,
      pages: result.pages.slice(input.skip, end),
      // Failures once, on the first part, as the SDK concatenates only pages.
      ...(input.skip === 0 ? { failed: result.failed } : {}),
      ...(rest ? { next: `${ctx.origin ?? ''}/v1/web/crawl/${encodeURIComponent(job.jobId)}?skip=${end}&limit=${input.limit}` } : {}),
      ...(result.stoppedOn ? { stoppedOn: result.stoppedOn } : {}),
      error: errorOf(job),
    };
  },
});

export const extractResults = defineOperation({
  name: 'extract_results',
  title: 'Results of a video analysis',
  description:
    "Shows a video analysis started by video_analysis (or POST /v1/extract) in the Supadata SDK's shape: status (queued, active, completed, failed) and, once completed, data (the model's answer) and the schema it follows. Free to call.",
  http: { method: 'GET', path: '/v1/extract/{jobId}' },
  input: z.object({ jobId: jobIdInput }),
  output: z.object({
    status: sdkStatus,
    data: z.unknown().optional().describe("The model's answer; follows schema"),
    schema: z.record(z.string(), z.unknown()).optional(),
    error: sdkError,
  }),
  ...FREE_LOOKUP,
  // On MCP, job_status shows the same job.
  restOnly: true,
  async run(input, ctx) {
    const job = await jobOf(ctx, input.jobId, ['video_analysis']);
    const result = job.status === 'completed' && job.result ? (job.result as { data: unknown; schema: Record<string, unknown> }) : undefined;
    return { status: statusOf(job), ...(result ? { data: result.data, schema: result.schema } : {}), error: errorOf(job) };
  },
});

export const transcriptResults = defineOperation({
  name: 'transcript_results',
  title: 'Result of a transcript job',
  description:
    "Shows a transcript job (started by GET /v1/transcript with `Prefer: respond-async` where speech to text runs) in the Supadata SDK's shape: status (queued, active, completed, failed), then result (the transcript) or error. Free to call.",
  http: { method: 'GET', path: '/v1/transcript/{jobId}' },
  input: z.object({ jobId: jobIdInput }),
  output: z.object({ status: sdkStatus, result: transcriptResponse.nullable(), error: sdkError }),
  restOnly: true,
  ...FREE_LOOKUP,
  async run(input, ctx) {
    const job = await jobOf(ctx, input.jobId, ['transcript']);
    const result = job.status === 'completed' && job.result ? transcriptResponse.parse(job.result) : null;
    return { status: statusOf(job), result, error: errorOf(job) };
  },
});

export const SUPADATA_VIEWS = [youtubeBatchResults, webCrawlResults, extractResults, transcriptResults];
