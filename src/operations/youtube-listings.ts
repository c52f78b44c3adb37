/**
 * YouTube listings: search, channels, playlists, one video and a video metadata batch. Canonical
 * paths say `youtube`; the spec's `vidsite` paths are aliases.
 */
import { z } from 'zod';
import { defineOperation, type ToolGroup } from './define.js';
import { toGleanerError } from '../errors.js';
import { parseVideoRef } from '../platforms/youtube/ids.js';
import { SEARCH_FEATURES, youtubeSearch, type SearchFeature } from '../platforms/youtube/search.js';
import { youtubeChannel, youtubeChannelVideos, youtubePlaylist, youtubePlaylistVideos } from '../platforms/youtube/listings.js';
import { innertube } from '../platforms/youtube/client.js';
import { loadVideo, toVideo, type YoutubeVideo } from '../platforms/youtube/video.js';
import { onFreshExits } from '../platforms/youtube/clients.js';
import { batchRefs, batchSource, channelId, eachInBatch, oneSource, playlistId } from './youtube-batch.js';
import { youtubeVideo, channelReply, channelVideosReply, playlistReply, playlistVideosReply, searchReply, videoBatchReply } from './outputs.js';

/** What the one-credit YouTube reads share: listed in the youtube group, on every plan, asking YouTube only. */
const YOUTUBE_READ = { groups: ['youtube'] as ToolGroup[], plan: 'Free', cost: 1, kind: 'sync', readOnly: true, openWorld: true } as const;

/** Results per charged search page (1 credit each). */
const SEARCH_PAGE = 50;

/** How far back each of the SDK's uploadDate windows reaches, in hours. */
const UPLOAD_WINDOW_HOURS = { hour: 1, today: 24, week: 24 * 7, month: 24 * 31, year: 24 * 366 } as const;

/** The search filters with the Supadata SDK's synonyms turned into Gleaner's own. */
function searchOptions<I extends {
  duration?: 'short' | 'medium' | 'long' | 'all';
  sortBy: 'relevance' | 'date' | 'viewCount' | 'rating' | 'views';
  definition: 'any' | 'high' | 'standard';
  caption: 'any' | 'closedCaption' | 'none';
  publishedAfter?: string;
  pageToken?: string;
  nextPageToken?: string;
  uploadDate?: keyof typeof UPLOAD_WINDOW_HOURS | 'all';
  features?: SearchFeature[];
}>(input: I) {
  const { nextPageToken, uploadDate, features = [], ...rest } = input;
  const since = uploadDate && uploadDate !== 'all' ? new Date(Date.now() - UPLOAD_WINDOW_HOURS[uploadDate] * 3_600_000).toISOString() : undefined;
  return {
    ...rest,
    duration: input.duration === 'all' ? undefined : input.duration,
    sortBy: input.sortBy === 'views' ? ('viewCount' as const) : input.sortBy,
    definition: features.includes('hd') ? ('high' as const) : input.definition,
    caption: features.includes('subtitles') ? ('closedCaption' as const) : input.caption,
    features: features.filter((feature) => feature !== 'hd' && feature !== 'subtitles'),
    publishedAfter: input.publishedAfter ?? since,
    pageToken: input.pageToken ?? nextPageToken,
  };
}

export const youtubeSearchOp = defineOperation({
  name: 'youtube_search',
  title: 'Search YouTube',
  description:
    'Searches YouTube (videos, channels, playlists) with filters. 1 credit per 50 results.',
  http: { method: 'GET', path: '/v1/youtube/search', aliases: ['/v1/vidsite/search'] },
  input: z.object({
    query: z.string().min(1).max(500).describe('What to search for'),
    type: z.enum(['all', 'video', 'channel', 'playlist', 'movie']).default('all').describe('movie: films, given as videos'),
    duration: z.enum(['short', 'medium', 'long', 'all']).optional().describe('short < 3 min, medium 3-20, long > 20'),
    sortBy: z.enum(['relevance', 'date', 'viewCount', 'rating', 'views']).default('relevance'),
    definition: z.enum(['any', 'high', 'standard']).default('any').describe('high: HD only'),
    caption: z.enum(['any', 'closedCaption', 'none']).default('any').describe('closedCaption: with captions'),
    publishedAfter: z.iso.datetime({ offset: true }).optional(),
    publishedBefore: z.iso.datetime({ offset: true }).optional(),
    limit: z.number().int().min(1).max(5000).default(20).describe('Most results'),
    pageToken: z.string().min(1).max(8192).optional().describe('nextPageToken of the previous reply, same query'),
    // The Supadata SDK's names for some of the filters above.
    nextPageToken: z.string().min(1).max(8192).optional().describe('Same as pageToken'),
    uploadDate: z.enum(['all', 'hour', 'today', 'week', 'month', 'year']).optional().describe('Uploaded within the last hour, day, week, month or year (sets publishedAfter)'),
    features: z
      .array(z.enum(SEARCH_FEATURES))
      .max(SEARCH_FEATURES.length)
      .optional()
      .describe('YouTube feature filters, all must hold: hd (as definition=high), subtitles (as caption=closedCaption), creative-commons, 3d, live, 4k, 360, location, hdr, vr180'),
  }),
  output: searchReply,
  restAliases: ['nextPageToken', 'uploadDate', 'features'],
  groups: ['youtube'],
  plan: 'Free',
  cost: {
    reserve: (input) => Math.ceil(input.limit / SEARCH_PAGE),
    settle: (_input, result: { results: unknown[] }) => Math.max(1, Math.ceil(result.results.length / 50)),
    // One page is worth returning: a short balance gets as many pages as it pays for.
    floor: () => 1,
  },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const limit = Math.min(input.limit, ctx.budget * SEARCH_PAGE);
    const { query, results, nextPageToken, totalResults } = await youtubeSearch(ctx.services.http, { ...searchOptions(input), limit });
    // Cut short by the balance: the reply says so, and nextPageToken continues once credits return.
    const short = limit < input.limit && results.length >= limit && nextPageToken !== null;
    return { query, results, nextPageToken, totalResults, ...(short ? { stoppedOn: 'credits' as const } : {}) };
  },
});


export const youtubeChannelOp = defineOperation({
  name: 'youtube_channel',
  title: 'YouTube channel',
  description: 'A YouTube channel: name, handle, description, subscriber and video counts. 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/channel', aliases: ['/v1/vidsite/channel'] },
  input: z.object({ id: channelId }),
  output: channelReply,
  ...YOUTUBE_READ,
  // metadata and read answer these for a model; listed with the youtube group.
  mcpGroupOnly: true,
  run: (input, ctx) => youtubeChannel(ctx.services.http, input.id),
});

export const youtubeChannelVideosOp = defineOperation({
  name: 'youtube_channel_videos',
  title: 'YouTube channel videos',
  description:
    'Video ids of a YouTube channel, newest first: uploads, Shorts and live streams. 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/channel/videos', aliases: ['/v1/vidsite/channel/videos'] },
  input: z.object({
    id: channelId,
    limit: z.number().int().min(1).max(5000).default(30).describe('Most ids per list'),
    type: z.enum(['all', 'video', 'short', 'live']).default('all'),
  }),
  output: channelVideosReply,
  ...YOUTUBE_READ,
  run: (input, ctx) => youtubeChannelVideos(ctx.services.http, input.id, { type: input.type, limit: input.limit }, ctx.log),
});

export const youtubePlaylistOp = defineOperation({
  name: 'youtube_playlist',
  title: 'YouTube playlist',
  description: 'A YouTube playlist: title, description, video and view counts, channel. 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/playlist', aliases: ['/v1/vidsite/playlist'] },
  input: z.object({ id: playlistId }),
  output: playlistReply,
  ...YOUTUBE_READ,
  // metadata and read answer these for a model; listed with the youtube group.
  mcpGroupOnly: true,
  run: (input, ctx) => youtubePlaylist(ctx.services.http, input.id),
});

export const youtubePlaylistVideosOp = defineOperation({
  name: 'youtube_playlist_videos',
  title: 'YouTube playlist videos',
  description:
    'Video ids of a YouTube playlist, in order. 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/playlist/videos', aliases: ['/v1/vidsite/playlist/videos'] },
  input: z.object({
    id: playlistId,
    limit: z.number().int().min(1).max(5000).default(100).describe('Most ids'),
  }),
  output: playlistVideosReply,
  ...YOUTUBE_READ,
  run: (input, ctx) => youtubePlaylistVideos(ctx.services.http, input.id, input.limit, ctx.log),
});

interface VideoBatchItem {
  videoId: string;
  video?: YoutubeVideo;
  errorCode?: string;
  message?: string;
}

export const youtubeVideoBatch = defineOperation({
  name: 'youtube_video_batch',
  title: 'YouTube videos, batch',
  description:
    'Metadata of many YouTube videos: videoIds, or the latest of a playlistId or channelId. Pro plan; 1 credit.',
  // The spec's path answers with the results, as the spec gives it; the real-name path starts the SDK's job.
  http: { method: 'POST', path: '/v1/youtube/video/batch', inlineAliases: ['/v1/vidsite/video/batch'] },
  input: z.object(batchSource).superRefine(oneSource(['videoIds', 'playlistId', 'channelId'])),
  output: videoBatchReply,
  groups: ['youtube'],
  // read and metadata give a model one video at a time; listed with the youtube group.
  mcpGroupOnly: true,
  plan: 'Pro',
  // Failed work charges nothing: a batch in which every item failed is free.
  cost: { reserve: () => 1, settle: (_input, result: { stats: { succeeded: number } }) => (result.stats.succeeded > 0 ? 1 : 0) },
  // A job, as the Supadata SDK expects: GET /v1/jobs/{jobId} or /v1/youtube/batch/{jobId} gives the results.
  kind: 'job',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const http = ctx.services.http;
    const refs = await batchRefs(input, ctx);
    const yt = await innertube(http);
    const results = await eachInBatch(refs, async (ref): Promise<VideoBatchItem> => {
      try {
        const videoId = parseVideoRef(ref);
        return { videoId, video: toVideo(await onFreshExits(http, () => loadVideo(yt, videoId))) };
      } catch (error) {
        const failure = toGleanerError(error);
        return { videoId: ref, errorCode: failure.code, message: failure.message };
      }
    });
    const succeeded = results.filter((r) => r.video).length;
    return { results, stats: { total: results.length, succeeded, failed: results.length - succeeded } };
  },
});

/** One video's metadata in the batch's video shape: the Supadata SDK's `youtube.video({ id })`. */
export const youtubeVideoOp = defineOperation({
  name: 'youtube_video',
  title: 'YouTube video',
  description:
    'Metadata of a YouTube video: title, duration, channel, views, likes, caption languages. 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/video', aliases: ['/v1/vidsite/video'] },
  input: z.object({ id: z.string().min(1).max(2048).describe('The video id or URL') }),
  output: youtubeVideo,
  ...YOUTUBE_READ,
  // metadata and read answer these for a model; listed with the youtube group.
  mcpGroupOnly: true,
  async run(input, ctx) {
    const videoId = parseVideoRef(input.id);
    return toVideo(await loadVideo(await innertube(ctx.services.http), videoId));
  },
});

export const YOUTUBE_LISTING_OPERATIONS = [
  youtubeSearchOp,
  youtubeChannelOp,
  youtubeChannelVideosOp,
  youtubePlaylistOp,
  youtubePlaylistVideosOp,
  youtubeVideoBatch,
  youtubeVideoOp,
];
