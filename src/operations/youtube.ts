/**
 * YouTube operations: transcripts (single, batch, translated), search, channels, playlists and a
 * video metadata batch. Canonical paths say `youtube`; the spec's `vidsite` paths are aliases.
 */
import { z } from 'zod';
import { languageCode } from './inputs.js';
import { defineOperation, type OperationContext } from './define.js';
import { GleanerError, isGleanerError, toGleanerError } from '../errors.js';
import type { TranscriptResponse } from '../platforms/types.js';
import { parseVideoRef } from '../platforms/youtube/ids.js';
import { renderTranscript, youtubeTranscript, type SegmentTranslator, type TranscriptFallback } from '../platforms/youtube/transcript.js';
import { translateSegments } from '../ai/translate.js';
import { transcriptCredits } from '../media/credits.js';
import { chatModelFor, requireChatModel } from './models.js';
import { aiTranslationCredits } from './transcript.js';
import { chunked } from '../media/segments.js';
import { SEARCH_FEATURES, youtubeSearch, type SearchFeature } from '../platforms/youtube/search.js';
import { youtubeChannel, youtubeChannelVideos, youtubePlaylist, youtubePlaylistVideos } from '../platforms/youtube/listings.js';
import { innertube } from '../platforms/youtube/client.js';
import { loadVideo, toVideo, type YoutubeVideo } from '../platforms/youtube/video.js';
import { onFreshExits } from '../platforms/youtube/clients.js';
import { youtubeSpeechFallback } from './youtube-fallback.js';
import { youtubeVideo, channelReply, channelVideosReply, playlistReply, playlistVideosReply, searchReply, transcriptBatchReply, transcriptReply, videoBatchReply } from './outputs.js';

/**
 * Where speech-to-text slots in for videos without captions (see youtube-fallback.ts): it reserves
 * its credits through ctx.reserveCredits, and transcriptCredits below then settles them.
 */
export const youtubeTranscriptHooks: { fallback?: (ctx: OperationContext) => TranscriptFallback | undefined } = { fallback: youtubeSpeechFallback };


const langCode = (what: string) => languageCode.describe(what);

function transcriptDeps(ctx: OperationContext, aiTranslation: boolean, captionsOnly = false) {
  return {
    http: ctx.services.http,
    store: ctx.services.store,
    fallback: captionsOnly ? undefined : youtubeTranscriptHooks.fallback?.(ctx),
    youtube: { poTokenProvider: ctx.services.config.GLEANER_YOUTUBE_POT_PROVIDER_URL },
    ...(aiTranslation ? { translator: aiTranslator(ctx) } : {}),
  };
}

/**
 * Translation by a language model, for the translate operation where YouTube offers none: the
 * configured endpoint when there is one, else the MCP client's model through sampling.
 */
function aiTranslator(ctx: OperationContext): SegmentTranslator {
  return async (segments, targetLang) => {
    const model = requireChatModel(ctx, `translating into "${targetLang}", which YouTube does not offer for this video`);
    const translated = await translateSegments(model, segments.map((s) => ({ ...s, lang: '' })), targetLang, ctx.signal);
    return translated.map(({ text, offset, duration }) => ({ text, offset: offset ?? 0, duration: duration ?? 0 }));
  };
}

/** One YouTube transcript in the reply shape (shared by the operations and the URL handler). */
export async function transcriptFor(
  videoId: string,
  options: { lang?: string; translate?: string; timestamps: boolean; text?: boolean; aiTranslation?: boolean; captionsOnly?: boolean; generate?: boolean },
  ctx: OperationContext,
): Promise<TranscriptResponse> {
  const request = { videoId, lang: options.lang, translate: options.translate, ...(options.generate ? { generate: true } : {}) };
  const { transcript, cached } = await youtubeTranscript(transcriptDeps(ctx, options.aiTranslation ?? false, options.captionsOnly), request);
  return renderTranscript(transcript, { timestamps: options.timestamps, text: options.text, cached });
}

/** `url`, `video_id` or `videoId`: exactly one video, else a 400 that says which rule broke. */
function oneVideo(input: { url?: string; video_id?: string; videoId?: string }, ctx: z.RefinementCtx): void {
  const ids = [input.video_id, input.videoId].filter((v): v is string => v !== undefined);
  if (ids.length === 2 && ids[0] !== ids[1]) ctx.addIssue({ code: 'custom', path: ['videoId'], message: 'video_id and videoId disagree; give one of them' });
  if (input.url !== undefined && ids.length > 0) ctx.addIssue({ code: 'custom', path: ['url'], message: 'give either url or video_id, not both' });
  if (input.url === undefined && ids.length === 0) ctx.addIssue({ code: 'custom', path: ['url'], message: 'give the video as url or video_id' });
}

function videoIdOfInput(input: { url?: string; video_id?: string; videoId?: string }): string {
  return parseVideoRef(input.url ?? input.video_id ?? input.videoId ?? '');
}

const timestamps = z.boolean().default(true).describe('Segment times in ms');
const textFlag = z.boolean().default(false).describe('Plain text, no segments');

export const youtubeTranscriptOp = defineOperation({
  name: 'youtube_transcript',
  title: 'YouTube video transcript',
  description:
    'Transcript of a YouTube video (captions, else speech to text). 1 credit, else 2 per minute.',
  http: { method: 'GET', path: '/v1/youtube/transcript', aliases: ['/v1/vidsite/transcript'] },
  input: z
    .object({
      url: z.string().min(1).max(2048).optional().describe('The video URL or id'),
      video_id: z.string().min(1).max(64).optional().describe('The video id (instead of url)'),
      videoId: z.string().min(1).max(64).optional().describe('Same as video_id'),
      lang: langCode('Preferred caption language code').optional(),
      translate: langCode('Translate to this language code').optional(),
      timestamps,
      text: textFlag,
    })
    .superRefine(oneVideo),
  output: transcriptReply,
  restAliases: ['video_id', 'videoId'],
  groups: ['youtube'],
  plan: 'Free',
  cost: {
    reserve: () => 1,
    settle: (_input, result: TranscriptResponse) => transcriptCredits(result) + (result.translatedBy === 'ai' ? aiTranslationCredits(result.durationMinutes) : 0),
  },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  // translate behaves as on /v1/transcript: YouTube's translation, else the model where there is one.
  async run(input, ctx) {
    const result = await transcriptFor(videoIdOfInput(input), { ...input, aiTranslation: Boolean(input.translate && chatModelFor(ctx)) }, ctx);
    if (result.translatedBy === 'ai') await ctx.reserveCredits(aiTranslationCredits(result.durationMinutes));
    return result;
  },
});

/** Runs `work` over `items` with at most `width` at once, results in the order of the items. */
async function inOrder<T, R>(items: T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** Items in flight at once in a batch; the outbound client's per-host politeness bounds it further. */
const BATCH_WIDTH = 10;

interface BatchTranscriptItem {
  url: string;
  videoId: string | null;
  transcript?: TranscriptResponse;
  errorCode?: string;
  message?: string;
}

/**
 * The videos a batch names: exactly one of videoIds, playlistId or channelId (the Supadata SDK's
 * batch source); `limit` caps how many a playlist or channel gives.
 */
const channelId = z.string().min(1).max(300).describe('Channel id, @handle or URL');
const playlistId = z.string().min(1).max(2048).describe('Playlist id or URL');

const batchSource = {
  videoIds: z.array(z.string().min(1).max(2048)).min(1).max(50).optional().describe('Video ids or URLs'),
  playlistId: playlistId.optional(),
  channelId: channelId.optional(),
  limit: z.number().int().min(1).max(50).default(10).describe('Most videos of the playlist or channel'),
};
type BatchSource = { videoIds?: string[]; playlistId?: string; channelId?: string; limit: number };

const oneSource = (sources: Array<'urls' | 'videoIds' | 'playlistId' | 'channelId'>) => (input: Partial<BatchSource> & { urls?: string[] }, ctx: z.RefinementCtx): void => {
  const given = sources.filter((name) => input[name] !== undefined);
  const names = `${sources.slice(0, -1).join(', ')} or ${sources.at(-1)}`;
  if (given.length === 0) ctx.addIssue({ code: 'custom', path: ['videoIds'], message: `give one of ${names}` });
  if (given.length > 1) ctx.addIssue({ code: 'custom', path: [given[1]], message: `give only one of ${names} (got ${given.join(' and ')})` });
};

async function batchRefs(input: BatchSource, ctx: OperationContext): Promise<string[]> {
  if (input.playlistId) return (await youtubePlaylistVideos(ctx.services.http, input.playlistId, input.limit, ctx.log)).videoIds;
  if (input.channelId) return (await youtubeChannelVideos(ctx.services.http, input.channelId, { type: 'video', limit: input.limit }, ctx.log)).videoIds;
  return input.videoIds ?? [];
}

export const youtubeTranscriptBatch = defineOperation({
  name: 'youtube_transcript_batch',
  title: 'YouTube transcripts, batch',
  description:
    'Transcripts of up to 50 YouTube videos (urls, or a playlistId or channelId), one result per video. Pro plan; 1 credit per transcript.',
  http: { method: 'POST', path: '/v1/youtube/transcript/batch', aliases: ['/v1/vidsite/transcript/batch'] },
  input: z
    .object({
      urls: z.array(z.string().max(2048)).min(1).max(50).optional().describe('Video URLs or ids'),
      ...batchSource,
      lang: langCode('Preferred caption language code').optional(),
      text: textFlag,
    })
    .superRefine(oneSource(['urls', 'videoIds', 'playlistId', 'channelId'])),
  output: transcriptBatchReply,
  // The SDK's videoIds is a synonym of urls (it runs as a job): one list is enough for a model.
  restAliases: ['videoIds'],
  groups: ['youtube'],
  plan: 'Pro',
  cost: {
    reserve: (input) => input.urls?.length ?? input.videoIds?.length ?? input.limit,
    settle: (_input, result: { creditsUsed: number }) => result.creditsUsed,
  },
  kind: 'sync',
  jobWhen: (input) => input.urls === undefined,
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const refs = input.urls ?? (await batchRefs(input, ctx));
    const results = await inOrder(refs, BATCH_WIDTH, async (url): Promise<BatchTranscriptItem> => {
      let videoId: string | null = null;
      try {
        videoId = parseVideoRef(url);
        const transcript = await transcriptFor(videoId, { lang: input.lang, timestamps: true, text: input.text }, ctx);
        return { url, videoId, transcript };
      } catch (error) {
        const failure = toGleanerError(error);
        if (!isGleanerError(error)) ctx.log.error({ err: error, url }, 'batch transcript failed');
        return { url, videoId, errorCode: failure.code, message: failure.message };
      }
    });
    const creditsUsed = results.reduce((sum, item) => sum + (item.transcript ? transcriptCredits(item.transcript) : 0), 0);
    return { results, creditsUsed };
  },
});

const CREDITS_PER_MINUTE = 30;

export const youtubeTranscriptTranslate = defineOperation({
  name: 'youtube_transcript_translate',
  title: 'Translated YouTube transcript',
  description:
    "A YouTube transcript translated into targetLang (YouTube's translation, else a model), timing kept. Pro plan; 30 credits per minute.",
  http: { method: 'POST', path: '/v1/youtube/transcript/translate', aliases: ['/v1/vidsite/transcript/translate'], alsoGet: true },
  input: z
    .object({
      url: z.string().min(1).max(2048).optional().describe('The video URL or id'),
      videoId: z.string().min(1).max(64).optional().describe('The video id (instead of url)'),
      video_id: z.string().min(1).max(64).optional().describe('Same as videoId'),
      targetLang: langCode('Language code to translate to').optional(),
      lang: langCode('Same as targetLang (the GET form)').optional(),
      timestamps,
      text: textFlag,
      chunkSize: z.number().int().min(1).max(100_000).optional().describe('Join segments up to this many characters'),
    })
    .superRefine((input, ctx) => {
      oneVideo(input, ctx);
      if (!input.targetLang && !input.lang) ctx.addIssue({ code: 'custom', path: ['targetLang'], message: 'give the language to translate to' });
      if (input.targetLang && input.lang && input.targetLang !== input.lang) ctx.addIssue({ code: 'custom', path: ['lang'], message: 'targetLang and lang disagree' });
    }),
  output: transcriptReply,
  restAliases: ['videoId', 'video_id', 'lang'],
  groups: ['youtube'],
  plan: 'Pro',
  cost: {
    reserve: () => CREDITS_PER_MINUTE,
    settle: (_input, result: TranscriptResponse) => CREDITS_PER_MINUTE * Math.max(1, Math.ceil(result.durationMinutes)),
  },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const videoId = videoIdOfInput(input);
    const target = (input.targetLang ?? input.lang)!;
    const result = await transcriptFor(videoId, { translate: target, timestamps: input.timestamps, text: input.text, aiTranslation: true }, ctx);
    // The first minute was reserved up front; the rest once the video's length is known.
    const minutes = Math.max(1, Math.ceil(result.durationMinutes));
    if (minutes > 1) await ctx.reserveCredits((minutes - 1) * CREDITS_PER_MINUTE);
    return chunked(result, input.chunkSize);
  },
});

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
  groups: ['youtube'],
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
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
  groups: ['youtube'],
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  run: (input, ctx) => youtubeChannelVideos(ctx.services.http, input.id, { type: input.type, limit: input.limit }, ctx.log),
});

export const youtubePlaylistOp = defineOperation({
  name: 'youtube_playlist',
  title: 'YouTube playlist',
  description: 'A YouTube playlist: title, description, video and view counts, channel. 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/playlist', aliases: ['/v1/vidsite/playlist'] },
  input: z.object({ id: playlistId }),
  output: playlistReply,
  groups: ['youtube'],
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
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
  groups: ['youtube'],
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
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
    const results = await inOrder(refs, BATCH_WIDTH, async (ref): Promise<VideoBatchItem> => {
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
  groups: ['youtube'],
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const videoId = parseVideoRef(input.id);
    return toVideo(await loadVideo(await innertube(ctx.services.http), videoId));
  },
});

export const YOUTUBE_OPERATIONS = [
  youtubeTranscriptOp,
  youtubeTranscriptBatch,
  youtubeTranscriptTranslate,
  youtubeSearchOp,
  youtubeChannelOp,
  youtubeChannelVideosOp,
  youtubePlaylistOp,
  youtubePlaylistVideosOp,
  youtubeVideoBatch,
  youtubeVideoOp,
];
