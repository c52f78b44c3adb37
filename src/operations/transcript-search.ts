/**
 * `transcript_search`: ranked passages of the transcripts of a YouTube channel, a playlist or a list of
 * video URLs (any platform), each with its time and a link that opens the video there. Transcripts
 * kept in the store (store/kept-transcripts.ts) are searched as they are and charged nothing; the
 * others are fetched once (captions only: 1 credit each, as transcripts are charged) and kept. When
 * more than SYNC_FETCHES must be fetched the call becomes a job with progress. Reference:
 * docs/transcript-search.md.
 */
import { z } from 'zod';
import { defineOperation, JobHandoff, type OperationContext } from './define.js';
import { languageCode } from './inputs.js';
import { channelId, eachInBatch, oneSource, playlistId } from './youtube-batch.js';
import { GleanerError, isGleanerError, toGleanerError } from '../errors.js';
import { isYoutubeUrl, videoIdFromUrl } from '../platforms/youtube/ids.js';
import { youtubeChannelVideos, youtubePlaylistVideos } from '../platforms/youtube/listings.js';
import { sourceFor } from '../sources/registry.js';
import { keepFetched, keptForm, keptTranscripts, keptUrlId } from '../sources/kept.js';
import { youtubeVideoTranscript } from '../sources/youtube.js';
import { transcriptCredits } from '../media/credits.js';
import type { KeptTranscript } from '../store/kept-transcripts.js';
import { keptTranscriptKey } from '../store/kept-transcripts.js';
import { parseQuery, TranscriptIndex, type PassageHit } from './transcript-index.js';

/** Transcripts a call fetches in the request; more make it a job. */
export const SYNC_FETCHES = 5;
export const MAX_QUERY_CHARS = 200;
export const MAX_URLS = 100;
export const MAX_LISTED_VIDEOS = 500;

const passage = z.object({
  videoId: z.string(),
  platform: z.string(),
  url: z.string(),
  title: z.string().nullable(),
  /** Seconds from the video's start; `time` says it as [h:]mm:ss, `link` opens the video there. */
  start: z.number().int(),
  time: z.string(),
  link: z.string(),
  /** The lines around the hit, one per line. */
  text: z.string(),
  score: z.number(),
});

export const transcriptSearchReply = z.object({
  query: z.string(),
  passages: z.array(passage),
  /** Videos searched; of those, already kept (free) and fetched by this call (charged). */
  videos: z.object({ searched: z.number().int(), kept: z.number().int(), fetched: z.number().int() }),
  /** Videos without a transcript to search, and why. */
  failed: z.array(z.object({ url: z.string(), errorCode: z.string(), message: z.string() })),
  creditsUsed: z.number().int(),
});
type Reply = z.infer<typeof transcriptSearchReply>;

const input = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'give words to search for')
      .max(MAX_QUERY_CHARS, `at most ${MAX_QUERY_CHARS} characters`)
      .describe('Words, "a phrase", prefix*'),
    urls: z.array(z.string().min(1).max(2048)).min(1).max(MAX_URLS).optional().describe('Video URLs'),
    channelId: channelId.optional(),
    playlistId: playlistId.optional(),
    watchId: z.string().min(1).max(100).optional().describe("A watch's uploads"),
    limit: z.number().int().min(1).max(MAX_LISTED_VIDEOS).default(50).describe('Most videos listed'),
    lang: languageCode.optional().describe('Language code'),
    maxResults: z.number().int().min(1).max(50).default(10).describe('Most passages'),
  })
  .superRefine(oneSource(['urls', 'playlistId', 'channelId', 'watchId']));
type Input = z.output<typeof input>;

/** A video to search: its platform and id (a YouTube id; elsewhere its URL), and the URL shown. */
interface VideoRef {
  platform: string;
  videoId: string;
  url: string;
}

/**
 * The videos a search names: a list of URLs, a channel's or a playlist's videos, or the uploads a watch
 * of the caller's delivered (the newest `limit`; their transcripts were kept when the watch made them).
 */
export async function videosToSearch(request: Pick<Input, 'urls' | 'channelId' | 'playlistId' | 'watchId' | 'limit'>, ctx: OperationContext): Promise<Array<VideoRef | { url: string; error: GleanerError }>> {
  const youtube = (id: string): VideoRef => ({ platform: 'youtube', videoId: id, url: `https://www.youtube.com/watch?v=${id}` });
  if (request.playlistId) return (await youtubePlaylistVideos(ctx.services.http, request.playlistId, request.limit, ctx.log)).videoIds.map(youtube);
  if (request.channelId) return (await youtubeChannelVideos(ctx.services.http, request.channelId, { type: 'video', limit: request.limit }, ctx.log)).videoIds.map(youtube);
  const urls = request.watchId ? await watchUploads(request.watchId, request.limit, ctx) : (request.urls ?? []);
  return urls.map((text) => {
    const url = URL.canParse(text) ? new URL(text) : undefined;
    if (!url || !/^https?:$/.test(url.protocol)) return { url: text, error: new GleanerError('INVALID_REQUEST', `"${text}" is not an http or https URL.`) };
    if (isYoutubeUrl(url)) {
      const id = videoIdFromUrl(url);
      return id ? youtube(id) : { url: text, error: new GleanerError('INVALID_REQUEST', `${text} is not a YouTube video URL.`) };
    }
    const source = sourceFor(url);
    if (!source?.transcript) return { url: text, error: new GleanerError('UNSUPPORTED_URL', `${text} is not a video on a platform this server can transcribe.`) };
    return { platform: source.platform, videoId: keptUrlId(url), url: url.toString() };
  });
}

/** The URLs of the uploads a watch of the caller's delivered, newest last, at most `limit` (a 404 for another key's watch). */
async function watchUploads(watchId: string, limit: number, ctx: OperationContext): Promise<string[]> {
  const watch = await ctx.services.watches.get(watchId, ctx.account.id);
  const { events } = await ctx.services.watches.events(watch, 0, watch.eventCount);
  return events.flatMap((event) => (event.type === 'watch.upload' && event.item ? [event.item.url] : [])).slice(-limit);
}

/** The process's index of kept transcripts (see transcript-index.ts). */
const shared = new TranscriptIndex();

/** Where a video is (or is to be) kept and indexed. */
const keyOf = (video: VideoRef, lang: string | undefined) => keptTranscriptKey(video.platform, video.videoId, lang);

/** Fetches one transcript (captions only: speech to text is for `transcript`, whose result is kept too). */
async function fetchOne(video: VideoRef, lang: string | undefined, ctx: OperationContext) {
  if (video.platform === 'youtube') return youtubeVideoTranscript(video.videoId, { lang, timestamps: true, captionsOnly: true }, ctx);
  const url = new URL(video.url);
  const transcript = await sourceFor(url)!.transcript!(url, { lang, timestamps: true, captionsOnly: true }, ctx);
  return transcript;
}

export const transcriptSearch = defineOperation({
  name: 'transcript_search',
  title: 'Search inside videos',
  description:
    'Search inside the transcripts of a YouTube channel, playlist, video URLs or a watch: ranked passages with time and a link to that moment. 1 credit per transcript not yet kept.',
  http: { method: 'POST', path: '/v1/transcript/search' },
  input,
  output: transcriptSearchReply,
  // The youtube group has the job tools that follow it (a search that fetches many becomes a job).
  groups: ['youtube'],
  plan: 'Free',
  cost: {
    reserve: (request) => request.urls?.length ?? request.limit,
    // Kept transcripts cost nothing: a key with few credits still searches them (and fetches what it can pay).
    floor: () => 0,
    settle: (_request, result: Reply) => result.creditsUsed,
  },
  kind: 'sync',
  handsOffToJobs: true,
  handsOffAlways: true,
  readOnly: true,
  openWorld: true,
  async run(request, ctx) {
    const kept = keptTranscripts(ctx.services);
    // Without keeping, a call's transcripts live in an index of its own, gone with the call.
    const index = kept.enabled ? shared : new TranscriptIndex();
    const listed = await videosToSearch(request, ctx);
    const failed: Reply['failed'] = [];
    const seen = new Set<string>();
    const videos: VideoRef[] = [];
    for (const item of listed) {
      if ('error' in item) failed.push({ url: item.url, errorCode: item.error.code, message: item.error.message });
      else if (!seen.has(keyOf(item, undefined))) {
        seen.add(keyOf(item, undefined));
        videos.push(item);
      }
    }

    // Indexed or kept: nothing to fetch. The index key is the kept record's own (its language's).
    const searchable = new Map<VideoRef, string>();
    const missing: VideoRef[] = [];
    await eachInBatch(videos, async (video) => {
      const asked = keyOf(video, request.lang);
      if (index.has(asked)) return void searchable.set(video, asked);
      const found = await kept.find(video.platform, video.videoId, request.lang);
      if (!found) return void missing.push(video);
      index.add(asked, found, Date.parse(found.keptAt) + kept.ttlMs);
      searchable.set(video, asked);
    });
    const keptCount = searchable.size;
    if (missing.length > SYNC_FETCHES && ctx.prefersAsync) throw new JobHandoff(`${missing.length} transcripts to fetch`);

    let spent = 0;
    let fetched = 0;
    let done = 0;
    ctx.progress(0, missing.length, `${missing.length} transcripts to fetch, ${keptCount} kept`);
    await eachInBatch(missing, async (video) => {
      if (ctx.signal.aborted) return void failed.push({ url: video.url, errorCode: 'CANCELLED', message: 'The search was cancelled before this video was fetched.' });
      // One credit is set aside before the fetch, so concurrent fetches never spend more than the budget.
      if (spent + 1 > ctx.budget) return void failed.push({ url: video.url, errorCode: 'CREDITS_EXHAUSTED', message: "Not fetched: the key's credits ran out." });
      spent += 1;
      try {
        const transcript = await fetchOne(video, request.lang, ctx);
        spent += transcriptCredits(transcript) - 1;
        // The source kept it (with what only it knows, such as the title); read back, or kept here when it could not be.
        let form = await kept.find(video.platform, video.videoId, request.lang).catch(() => undefined);
        if (!form) {
          form = keptForm(transcript, video);
          if (!form) throw new GleanerError('TRANSCRIPT_UNAVAILABLE', 'The transcript has no timed lines to search.');
          await keepFetched(ctx, form, request.lang);
        }
        const key = keyOf(video, request.lang);
        index.add(key, form, Date.now() + (kept.enabled ? kept.ttlMs : 60 * 60_000));
        searchable.set(video, key);
        fetched++;
      } catch (error) {
        spent -= 1;
        const failure = toGleanerError(error);
        if (!isGleanerError(error)) ctx.log.error({ err: error, url: video.url }, 'search transcript failed');
        failed.push({ url: video.url, errorCode: failure.code, message: failure.message });
      } finally {
        ctx.progress(++done, missing.length, `${done} of ${missing.length} transcripts fetched`);
      }
    });

    const hits = index.query(parseQuery(request.query), new Set(searchable.values()), request.maxResults);
    return {
      query: request.query,
      passages: hits.map(toPassage),
      videos: { searched: searchable.size, kept: keptCount, fetched },
      failed,
      creditsUsed: spent,
    };
  },
});

/** [h:]mm:ss of whole seconds. */
function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${String(m).padStart(2, '0')}:${s}`;
}

/** A link that opens the video at `seconds`: YouTube's `t`, a media fragment elsewhere (players that know it seek). */
export function deepLink(transcript: Pick<KeptTranscript, 'platform' | 'videoId' | 'url'>, seconds: number): string {
  if (transcript.platform === 'youtube') return `https://www.youtube.com/watch?v=${transcript.videoId}&t=${seconds}`;
  const url = new URL(transcript.url);
  url.hash = `t=${seconds}`;
  return url.toString();
}

function toPassage(hit: PassageHit): Reply['passages'][number] {
  const { transcript } = hit;
  const start = Math.floor(transcript.segments[hit.line].offset / 1000);
  return {
    videoId: transcript.platform === 'youtube' ? transcript.videoId : transcript.url,
    platform: transcript.platform,
    url: transcript.url,
    title: transcript.title ?? null,
    start,
    time: clock(start),
    link: deepLink(transcript, start),
    text: hit.lines.map((line) => line.text).join('\n'),
    score: Math.round(hit.score * 1000) / 1000,
  };
}
