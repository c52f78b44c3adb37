/**
 * The reply of every operation as a zod schema: the table declares them beside the inputs, and the
 * OpenAPI document, the MCP tools' outputSchema and the reply-validating tests are derived from
 * them. Field names follow the specification's reply shapes (the floor); objects are closed, so a
 * field added to a reply without being declared here fails the suite's reply validation.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { metadata, transcriptResponse } from '../model/content.js';

const text = z.string().nullable();
const count = z.number().nullable();

const errorCode = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

/** The error envelope of every failed call. */
export const errorBody = z.object({
  error: z.object({ code: errorCode, message: z.string(), requestId: z.string() }),
  message: z.string().describe('error.message again, for clients that read a flat error'),
});

export const transcriptReply = transcriptResponse;

export const accountReply = z.object({
  id: z.string(),
  plan: z.string(),
  credits: z.number().int().describe('Credits left this month; on a plan without a monthly limit (Enterprise) the largest 32-bit integer'),
  unlimited: z.boolean().describe('True on a plan without a monthly credit limit'),
  monthlyCredits: z.number().int().nullable().describe('The monthly allowance; null when unlimited'),
  creditsUsed: z.number().int(),
  creditsResetAt: z.string(),
});

const jobError = z.object({ code: errorCode, message: z.string() });
const jobProgress = z.object({ done: z.number(), total: z.number().optional(), message: z.string().optional() });
const jobStatus = z.enum(['queued', 'processing', 'completed', 'failed', 'cancelled']);

/** A job as GET /v1/jobs/{jobId} and job_status show it; `result` is the operation's own reply. */
export function jobReply<R extends z.ZodType>(result: R) {
  return z.object({
    jobId: z.string(),
    status: jobStatus,
    result: result.nullable(),
    error: jobError.nullable(),
    progress: jobProgress.nullable(),
    operation: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    finishedAt: z.string().optional(),
    creditsUsed: z.number().int().describe('Credits charged so far: 0 until the job is settled'),
    /** Set while a cancel asked for is not yet carried out. */
    cancelRequested: z.boolean().optional(),
    /** Set on a job that stopped early because the balance ran out. */
    stoppedOn: z.literal('credits').optional(),
    /** Only on the reply that starts a job, and on an MCP call that stopped waiting. */
    message: z.string().optional(),
  });
}

const metadataAuthor = z.object({
  name: text.optional(),
  id: z.string().optional(),
  url: z.string().optional(),
  handle: z.string().optional(),
  username: text,
  displayName: text,
  avatarUrl: text,
  verified: z.boolean().nullable(),
});

const imageMedia = z.object({ type: z.literal('image'), url: text, width: count, height: count });
const metadataMedia = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('video'), url: text, duration: count, width: count, height: count, thumbnailUrl: text }),
    imageMedia,
    z.object({ type: z.literal('carousel'), items: z.array(imageMedia) }),
    z.object({ type: z.literal('post'), text: z.string() }),
  ])
  .nullable();

export const metadataReplySchema = metadata.extend({
  platform: z.enum(['youtube', 'tiktok', 'instagram', 'twitter', 'facebook', 'web']),
  type: z.enum(['video', 'image', 'carousel', 'post', 'page']),
  id: z.string(),
  author: metadataAuthor,
  stats: z.object({ views: count, likes: count, comments: count, shares: count }),
  media: metadataMedia,
  tags: z.array(z.string()),
  createdAt: text,
  additionalData: z.record(z.string(), z.unknown()),
  /** Web pages only: read from the DOM a browser built. */
  rendered: z.boolean().optional(),
  warnings: z.array(z.string()).optional(),
});

const scrapedPage = z.object({
  url: z.string(),
  title: text,
  name: text.describe('The page title'),
  description: text,
  ogUrl: text,
  content: z.string(),
  format: z.enum(['markdown', 'text', 'html', 'summary', 'answer', 'json']),
  countCharacters: z.number().int(),
  language: text,
  statusCode: z.number().int(),
  contentType: z.string(),
  metadata,
  rendered: z.boolean().describe('True when a browser ran the page before it was read'),
  warnings: z.array(z.string()).optional().describe('How the page was read, when it matters: not rendered though it needs JavaScript, requests refused, a fallback conversion (plain text instead of markdown)'),
  data: z.unknown().optional().describe('format json: the answer'),
  model: z.string().optional().describe('Who answered'),
});

/** What changed since this key's last scrape of the page with changeTracking (web/changes.ts). */
const pageChange = z.object({
  changeStatus: z.enum(['new', 'same', 'changed']),
  previousScrapeAt: z.string().nullable().describe('When this key last scraped the page with changeTracking; null the first time'),
  diff: z.string().optional().describe('Unified diff of the main text from the previous scrape; only when changed'),
});

/** A screenshot kept for a while (operations/screenshots.ts): fetched by URL with the same key. */
const screenshotRef = z.object({ url: z.string(), width: z.number().int(), height: z.number().int(), expiresAt: z.string() });

export const scrapeReply = scrapedPage.extend({
  urls: z.array(z.string()).describe('Links found on the page'),
  changeTracking: pageChange.optional().describe('Only when changeTracking was asked'),
  screenshot: screenshotRef.optional(),
});

/** web_scrape_batch's result: one item per distinct URL, in the order given, a page or an error. */
export const scrapeBatchResult = z.object({
  results: z.array(z.object({ url: z.string(), page: scrapeReply.optional(), error: jobError.optional() })),
  stats: z.object({ total: z.number().int(), succeeded: z.number().int(), failed: z.number().int(), durationMs: z.number() }),
  creditsUsed: z.number().int(),
  /** Set when the balance paid for fewer pages than asked: the rest failed with CREDITS_EXHAUSTED. */
  stoppedOn: z.literal('credits').optional(),
});

export const mapReply = z.object({
  urls: z.array(z.string()),
  renderedPages: z.number().int().describe('Pages whose links were read after rendering them in a browser'),
  warnings: z.array(z.string()).optional(),
});

export const crawlResult = z.object({
  url: z.string(),
  mode: z.enum(['sitemap', 'recursive']),
  pages: z.array(scrapedPage),
  failed: z.array(z.object({ url: z.string(), error: jobError })),
  stats: z.object({ pages: z.number().int(), failed: z.number().int(), durationMs: z.number() }),
  /** Set when the crawl stopped because the balance could pay for no more pages. */
  stoppedOn: z.literal('credits').optional(),
});

const channelRef = z.object({ id: text, name: text });

export const youtubeVideo = z.object({
  id: z.string(),
  title: text,
  description: text,
  duration: count.describe('Seconds'),
  channel: channelRef,
  tags: z.array(z.string()),
  thumbnail: text,
  uploadDate: text,
  viewCount: count,
  likeCount: count,
  transcriptLanguages: z.array(z.string()),
});

const searchItem = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('video'),
    id: z.string(),
    title: text,
    description: text,
    thumbnail: text,
    duration: count,
    viewCount: count,
    uploadDate: text,
    publishedText: text,
    channel: channelRef,
    isShort: z.boolean(),
    isLive: z.boolean(),
    badges: z.array(z.string()),
  }),
  z.object({
    type: z.literal('channel'),
    id: z.string(),
    name: text,
    handle: text,
    description: text,
    thumbnail: text,
    subscriberCount: count,
    videoCount: count,
  }),
  z.object({ type: z.literal('playlist'), id: z.string(), title: text, description: text, thumbnail: text, videoCount: count, channel: channelRef }),
]);

export const searchReply = z.object({
  query: z.string(),
  results: z.array(searchItem),
  nextPageToken: text,
  totalResults: z.number().int().nullable(),
  /** Set when the search stopped early because the balance could pay for no more pages. */
  stoppedOn: z.literal('credits').optional(),
});

export const channelReply = z.object({
  id: z.string(),
  name: text,
  handle: text,
  description: text,
  subscriberCount: count,
  videoCount: count,
  thumbnail: text,
  banner: text,
  url: z.string(),
  keywords: z.array(z.string()),
});

export const playlistReply = z.object({
  id: z.string(),
  title: text,
  videoCount: count,
  viewCount: count,
  lastUpdated: text,
  description: text,
  thumbnail: text,
  channel: channelRef,
});

const videoIdLists = z.object({
  videoIds: z.array(z.string()),
  shortIds: z.array(z.string()),
  liveIds: z.array(z.string()),
  complete: z.boolean().describe('False when YouTube stopped answering before the limit was reached'),
});
export const channelVideosReply = videoIdLists.extend({ channelId: z.string() });
export const playlistVideosReply = videoIdLists.extend({ playlistId: z.string() });

export const transcriptBatchReply = z.object({
  results: z.array(
    z.object({
      url: z.string(),
      videoId: z.string().nullable(),
      transcript: transcriptResponse.optional(),
      errorCode: z.string().optional(),
      message: z.string().optional(),
    }),
  ),
  creditsUsed: z.number().int(),
});

export const videoBatchReply = z.object({
  results: z.array(z.object({ videoId: z.string(), video: youtubeVideo.optional(), errorCode: z.string().optional(), message: z.string().optional() })),
  stats: z.object({ total: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
});

export const analysisResult = z.object({
  data: z.unknown().describe("The model's answer; follows `schema`"),
  schema: z.record(z.string(), z.unknown()),
  model: z.string(),
  notes: z.array(z.string()),
  frames: z
    .object({ count: z.number().int(), atSeconds: z.array(z.number()) })
    .describe('The frames of the video the model was shown: how many, and the moment of each'),
  url: z.string(),
  creditsUsed: z.number().int(),
});
