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
import { youtubeSearch } from '../platforms/youtube/search.js';
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
  options: { lang?: string; translate?: string; timestamps: boolean; text?: boolean; aiTranslation?: boolean; captionsOnly?: boolean },
  ctx: OperationContext,
): Promise<TranscriptResponse> {
  const { transcript, cached } = await youtubeTranscript(transcriptDeps(ctx, options.aiTranslation ?? false, options.captionsOnly), { videoId, lang: options.lang, translate: options.translate });
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

const timestamps = z.boolean().default(true).describe('Include each segment\'s offset and duration in milliseconds (default true)');
const textFlag = z.boolean().default(false).describe('Return the transcript as one plain string in content instead of segments');

export const youtubeTranscriptOp = defineOperation({
  name: 'youtube_transcript',
  title: 'YouTube video transcript',
  description:
    "Returns the transcript of a YouTube video from its captions: segments with text, start offset and duration (ms), or one plain string with text=true. Give the video as url (watch, youtu.be, shorts, embed, live links) or video_id. lang picks a caption language (else the video's default track; the reply's lang says which was used, availableLangs lists all); translate asks YouTube's own translation of the captions, else a language model where the server has one (the configured endpoint or the MCP client's model; 30 more credits per started minute; translatedBy says which). Manual captions are preferred to automatic ones. Costs 1 credit. A video without captions is transcribed by speech to text when the server has a provider (aiGenerated: true, 2 credits per started minute); without one it is TRANSCRIPT_UNAVAILABLE and costs nothing.",
  http: { method: 'GET', path: '/v1/youtube/transcript', aliases: ['/v1/vidsite/transcript'] },
  input: z
    .object({
      url: z.string().min(1).max(2048).optional().describe('The video URL (watch, youtu.be, shorts, embed, live; m. and music. hosts)'),
      video_id: z.string().min(1).max(64).optional().describe('The 11-character video id (instead of url)'),
      videoId: z.string().min(1).max(64).optional().describe('Same as video_id'),
      lang: langCode('Preferred caption language; when the video has none in it, its default track is used').optional(),
      translate: langCode("Translate the captions to this language: YouTube's caption translation, else a language model").optional(),
      timestamps,
      text: textFlag,
    })
    .superRefine(oneVideo),
  output: transcriptReply,
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
const channelId = z.string().min(1).max(300).describe('Channel id (UC...), @handle, or channel URL (/channel/, /@, /c/, /user/)');
const playlistId = z.string().min(1).max(2048).describe('Playlist id (PL...) or playlist URL');

const batchSource = {
  videoIds: z.array(z.string().min(1).max(2048)).min(1).max(50).optional().describe('Up to 50 video ids or URLs'),
  playlistId: playlistId.optional(),
  channelId: channelId.optional(),
  limit: z.number().int().min(1).max(50).default(10).describe('Most videos read from the playlist or channel (1 to 50)'),
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
  title: 'YouTube transcripts of many videos',
  description:
    'Returns the transcripts of up to 50 YouTube videos, one result per video in order: either the transcript or an errorCode with a message (a bad URL, a video without captions, a private video). Give urls (answered at once) or exactly one of videoIds, playlistId or channelId (the Supadata SDK\'s shape: runs as a job; its result is the same reply, also at GET /v1/youtube/batch/{jobId}). Costs 1 credit per caption transcript returned (2 per started minute where speech to text made it); failed items cost nothing (creditsUsed says the total). Pro plan or higher.',
  http: { method: 'POST', path: '/v1/youtube/transcript/batch', aliases: ['/v1/vidsite/transcript/batch'] },
  input: z
    .object({
      urls: z.array(z.string().max(2048)).min(1).max(50).optional().describe('1 to 50 video URLs (or ids); the reply comes at once'),
      ...batchSource,
      lang: langCode('Preferred caption language for every video').optional(),
      text: z.boolean().default(false).describe('Each transcript as one plain string instead of segments'),
    })
    .superRefine(oneSource(['urls', 'videoIds', 'playlistId', 'channelId'])),
  output: transcriptBatchReply,
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
    "Returns a YouTube video's transcript translated into targetLang, using YouTube's own caption translation where the video's captions allow it, and otherwise a language model (the configured endpoint, or the MCP client's model), keeping every segment's timing; translatedBy says which. POST { url, targetLang }, or GET with url or videoId and lang. Costs 30 credits per started minute of video. Pro plan or higher.",
  http: { method: 'POST', path: '/v1/youtube/transcript/translate', aliases: ['/v1/vidsite/transcript/translate'], alsoGet: true },
  input: z
    .object({
      url: z.string().min(1).max(2048).optional().describe('The video URL'),
      videoId: z.string().min(1).max(64).optional().describe('The video id (instead of url)'),
      video_id: z.string().min(1).max(64).optional().describe('Same as videoId'),
      targetLang: langCode('The language to translate to').optional(),
      lang: langCode('Same as targetLang (the GET form)').optional(),
      timestamps,
      text: textFlag,
    })
    .superRefine((input, ctx) => {
      oneVideo(input, ctx);
      if (!input.targetLang && !input.lang) ctx.addIssue({ code: 'custom', path: ['targetLang'], message: 'give the language to translate to' });
      if (input.targetLang && input.lang && input.targetLang !== input.lang) ctx.addIssue({ code: 'custom', path: ['lang'], message: 'targetLang and lang disagree' });
    }),
  output: transcriptReply,
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
    return result;
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
  features?: Array<'hd' | 'subtitles'>;
}>(input: I) {
  const { nextPageToken, uploadDate, features = [], ...rest } = input;
  const since = uploadDate && uploadDate !== 'all' ? new Date(Date.now() - UPLOAD_WINDOW_HOURS[uploadDate] * 3_600_000).toISOString() : undefined;
  return {
    ...rest,
    duration: input.duration === 'all' ? undefined : input.duration,
    sortBy: input.sortBy === 'views' ? ('viewCount' as const) : input.sortBy,
    definition: features.includes('hd') ? ('high' as const) : input.definition,
    caption: features.includes('subtitles') ? ('closedCaption' as const) : input.caption,
    publishedAfter: input.publishedAfter ?? since,
    pageToken: input.pageToken ?? nextPageToken,
  };
}

export const youtubeSearchOp = defineOperation({
  name: 'youtube_search',
  title: 'Search YouTube',
  description:
    'Searches YouTube for videos, channels and playlists. Filters: type, duration (short < 3 min, medium 3-20, long > 20), sortBy, definition, caption, publishedAfter/publishedBefore. Fetches page after page up to limit (default 20, max 5000); pass nextPageToken back as pageToken (with the same query) to continue. Costs 1 credit per 50 results returned (at least 1).',
  http: { method: 'GET', path: '/v1/youtube/search', aliases: ['/v1/vidsite/search'] },
  input: z.object({
    query: z.string().min(1).max(500).describe('What to search for (up to 500 characters)'),
    type: z.enum(['all', 'video', 'channel', 'playlist']).default('all').describe('Kind of results'),
    duration: z.enum(['short', 'medium', 'long', 'all']).optional().describe('Video length: short (under 3 minutes), medium (3 to 20), long (over 20); all: any'),
    sortBy: z
      .enum(['relevance', 'date', 'viewCount', 'rating', 'views'])
      .default('relevance')
      .describe('Order of results; YouTube may now honour only relevance and viewCount'),
    definition: z
      .enum(['any', 'high', 'standard'])
      .default('any')
      .describe('high: HD/4K only (YouTube filter); standard: results showing an HD/4K badge are left out (best effort, applied here)'),
    caption: z
      .enum(['any', 'closedCaption', 'none'])
      .default('any')
      .describe('closedCaption: videos with captions (YouTube filter); none: results showing a CC badge are left out (best effort, applied here)'),
    publishedAfter: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('RFC 3339; YouTube narrows by upload-date window, then results are compared by their shown age (approximate); channels and playlists are left out'),
    publishedBefore: z.iso.datetime({ offset: true }).optional().describe('RFC 3339; compared with each result\'s shown age (approximate)'),
    limit: z.number().int().min(1).max(5000).default(20).describe('Most results to return (1 to 5000); pages are fetched automatically'),
    pageToken: z.string().min(1).max(8192).optional().describe('nextPageToken of an earlier reply with the same query, to continue from there'),
    // The Supadata SDK's names for some of the filters above.
    nextPageToken: z.string().min(1).max(8192).optional().describe('Same as pageToken'),
    uploadDate: z.enum(['all', 'hour', 'today', 'week', 'month', 'year']).optional().describe('Uploaded within the last hour, day, week, month or year (sets publishedAfter)'),
    features: z.array(z.enum(['hd', 'subtitles'])).max(2).optional().describe('hd: as definition=high; subtitles: as caption=closedCaption'),
  }),
  output: searchReply,
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
  description: 'Returns a YouTube channel: id, name, handle, description, subscriber and video counts, avatar and banner. Accepts a channel id, @handle or channel URL. Costs 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/channel', aliases: ['/v1/vidsite/channel'] },
  input: z.object({ id: channelId }),
  output: channelReply,
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  run: (input, ctx) => youtubeChannel(ctx.services.http, input.id),
});

export const youtubeChannelVideosOp = defineOperation({
  name: 'youtube_channel_videos',
  title: 'Videos of a YouTube channel',
  description:
    "Lists the video ids of a YouTube channel, newest first: videoIds (regular uploads), shortIds (Shorts) and liveIds (live streams), up to limit each (default 30, max 5000), following YouTube's pages. complete is false when YouTube stopped answering before the end. Costs 1 credit.",
  http: { method: 'GET', path: '/v1/youtube/channel/videos', aliases: ['/v1/vidsite/channel/videos'] },
  input: z.object({
    id: channelId,
    limit: z.number().int().min(1).max(5000).default(30).describe('Most ids per list (1 to 5000)'),
    type: z.enum(['all', 'video', 'short', 'live']).default('all').describe('Which lists to fill: all, or only video, short or live'),
  }),
  output: channelVideosReply,
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
  description: 'Returns a YouTube playlist: id, title, description, video count, view count, last update, thumbnail and owner channel. Costs 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/playlist', aliases: ['/v1/vidsite/playlist'] },
  input: z.object({ id: playlistId }),
  output: playlistReply,
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  run: (input, ctx) => youtubePlaylist(ctx.services.http, input.id),
});

export const youtubePlaylistVideosOp = defineOperation({
  name: 'youtube_playlist_videos',
  title: 'Videos of a YouTube playlist',
  description:
    "Lists the video ids of a YouTube playlist in playlist order (videoIds), up to limit (default 100, max 5000), following YouTube's pages. complete is false when YouTube stopped answering before the end. Costs 1 credit.",
  http: { method: 'GET', path: '/v1/youtube/playlist/videos', aliases: ['/v1/vidsite/playlist/videos'] },
  input: z.object({
    id: playlistId,
    limit: z.number().int().min(1).max(5000).default(100).describe('Most ids to return (1 to 5000)'),
  }),
  output: playlistVideosReply,
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
  title: 'Metadata of many YouTube videos',
  description:
    'Returns the metadata of many YouTube videos (title, description, duration, channel, tags, thumbnail, upload date, views, likes, caption languages): give exactly one of videoIds (up to 50), playlistId or channelId (its latest uploads); limit (1 to 50, default 10) caps how many videos of a playlist or channel are read. Runs as a job (poll GET /v1/jobs/{jobId} or /v1/youtube/batch/{jobId}): one result per video with the video or an errorCode. Costs 1 credit, nothing when no video could be read. Pro plan or higher.',
  http: { method: 'POST', path: '/v1/youtube/video/batch', aliases: ['/v1/vidsite/video/batch'] },
  input: z.object(batchSource).superRefine(oneSource(['videoIds', 'playlistId', 'channelId'])),
  output: videoBatchReply,
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
  title: 'Metadata of a YouTube video',
  description:
    'Returns the metadata of one YouTube video (title, description, duration, channel, tags, thumbnail, upload date, views, likes, caption languages) from its id or URL. Costs 1 credit.',
  http: { method: 'GET', path: '/v1/youtube/video', aliases: ['/v1/vidsite/video'] },
  input: z.object({ id: z.string().min(1).max(2048).describe('The video id or URL') }),
  output: youtubeVideo,
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
