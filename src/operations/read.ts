/**
 * `read`: one call for any link. A model handed a URL should not have to pick among the video, web and
 * listing tools first: the URL's kind picks the operation (a video on any platform → its transcript with a
 * short header of facts; a YouTube channel or playlist → its title and videos; anything else → the page,
 * PDF or Word file as markdown), the reply names that route, and the call is charged as that operation.
 */
import { z } from 'zod';
import { httpUrl, languageCode } from './inputs.js';
import { defineOperation, reserveCost, settleCost, type AnyOperation, type CheckContext, type OperationContext } from './define.js';
import { isYoutubeUrl, parseChannelRef, videoIdFromUrl } from '../platforms/youtube/ids.js';
import { sourceFor } from '../sources/registry.js';
import { metadataReply } from '../platforms/metadata-reply.js';
import { transcriptOperation } from './transcript.js';
import { webScrape } from './web.js';
import { youtubeChannelOp, youtubeChannelVideosOp, youtubePlaylistOp, youtubePlaylistVideosOp } from './youtube-listings.js';
import { channelVideosReply, metadataReplySchema, playlistVideosReply, scrapeReply, transcriptReply } from './outputs.js';
import type { Config } from '../config.js';

export const READ_ROUTES = ['transcript', 'youtube_playlist_videos', 'youtube_channel_videos', 'web_scrape'] as const;
export type ReadRoute = (typeof READ_ROUTES)[number];

/** Videos listed for a channel or playlist: enough to choose from, short enough to read. */
const LISTING_LIMIT = 50;

/** The operation a URL goes to; pure, so the price is known before anything is fetched. */
export function readRoute(url: URL): ReadRoute {
  if (isYoutubeUrl(url) && !videoIdFromUrl(url)) {
    const first = url.pathname.split('/').filter(Boolean)[0];
    if (url.searchParams.get('list') || first === 'playlist') return 'youtube_playlist_videos';
    try {
      parseChannelRef(url.href);
      return 'youtube_channel_videos';
    } catch {
      return 'web_scrape';
    }
  }
  return sourceFor(url)?.transcript ? 'transcript' : 'web_scrape';
}

const readInput = z.object({
  url: httpUrl.describe('Any link'),
  lang: languageCode.optional().describe('Preferred language'),
});
type ReadInput = z.output<typeof readInput>;

/** The routed operation and the input it gets, parsed by its own schema (its defaults and bounds). */
function routed(input: ReadInput): { route: ReadRoute; operation: AnyOperation; input: unknown } {
  const route = readRoute(new URL(input.url));
  switch (route) {
    case 'transcript':
      return { route, operation: transcriptOperation, input: transcriptOperation.input.parse({ url: input.url, lang: input.lang }) };
    case 'youtube_playlist_videos':
      return { route, operation: youtubePlaylistVideosOp, input: youtubePlaylistVideosOp.input.parse({ id: input.url, limit: LISTING_LIMIT }) };
    case 'youtube_channel_videos':
      return { route, operation: youtubeChannelVideosOp, input: youtubeChannelVideosOp.input.parse({ id: input.url, limit: LISTING_LIMIT }) };
    case 'web_scrape':
      return { route, operation: webScrape, input: webScrape.input.parse({ url: input.url, lang: input.lang }) };
  }
}

const facts = metadataReplySchema.describe('Facts about the video (for a video link), when the platform gave them');

export const readReply = z.object({
  url: z.string(),
  route: z.enum(READ_ROUTES).describe('The operation that answered; the call is charged as it'),
  title: z.string().nullable().describe('Title of the video, page, channel or playlist'),
  video: facts.optional(),
  result: z.union([transcriptReply, scrapeReply, channelVideosReply, playlistVideosReply]).describe("The routed operation's reply"),
});
export type ReadReply = z.infer<typeof readReply>;

/**
 * Facts for the header, and a channel's or playlist's title: best effort. The content is what was asked
 * for, so a read never fails for want of them (a refusal or an unreadable reply leaves them out).
 */
async function bestEffort<T>(what: string, work: () => Promise<T>, ctx: OperationContext): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    ctx.log.debug({ err: error }, `read: no ${what}`);
    return undefined;
  }
}

function videoFacts(url: URL, ctx: OperationContext) {
  const source = sourceFor(url);
  return source?.metadata ? bestEffort('video facts', async () => metadataReply(await source.metadata!(url, ctx)), ctx) : undefined;
}

async function listingTitle(route: ReadRoute, url: string, ctx: OperationContext): Promise<string | null> {
  const title = await bestEffort(
    'listing title',
    async () => (route === 'youtube_playlist_videos' ? (await youtubePlaylistOp.run({ id: url }, ctx)).title : (await youtubeChannelOp.run({ id: url }, ctx)).name),
    ctx,
  );
  return title ?? null;
}

export const readOperation = defineOperation({
  name: 'read',
  title: 'Read any link',
  description:
    'Start here for any URL: a video gives its transcript (YouTube, TikTok, Instagram, X, Facebook, files), a page, PDF or Word file its markdown, a YouTube channel or playlist its videos. Priced as that tool.',
  http: { method: 'GET', path: '/v1/read' },
  input: readInput,
  output: readReply,
  groups: ['video', 'youtube', 'web'],
  plan: 'Free',
  cost: {
    reserve: (input: ReadInput, config: Config) => {
      const { operation, input: inner } = routed(input);
      return reserveCost(operation.cost, inner, config);
    },
    settle: (input: ReadInput, result: ReadReply, config: Config) => {
      const { operation, input: inner } = routed(input);
      return settleCost(operation.cost, inner, result.result, config);
    },
  },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async check(input, ctx: CheckContext) {
    const { operation, input: inner } = routed(input);
    await operation.check?.(inner, ctx);
  },
  async run(input, ctx) {
    const { route, operation, input: inner } = routed(input);
    // The routed run answers here: a read never becomes a job of another operation's shape.
    const own = { ...ctx, prefersAsync: false };
    if (route === 'transcript') {
      const url = new URL(input.url);
      const [result, video] = await Promise.all([operation.run(inner, own), videoFacts(url, own)]);
      return { url: input.url, route, title: video?.title ?? null, ...(video ? { video } : {}), result };
    }
    if (route === 'web_scrape') {
      const result = await operation.run(inner, own);
      return { url: input.url, route, title: result.title ?? null, result };
    }
    const [result, title] = await Promise.all([operation.run(inner, own), listingTitle(route, input.url, own)]);
    return { url: input.url, route, title, result };
  },
});
