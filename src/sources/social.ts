/**
 * The short-video and social platforms as sources: each joins a platform adapter (metadata, media
 * URL, native captions) to the speech-to-text pipeline.
 */
import type { Source, SourceContext, TranscriptOptions } from './contract.js';
import { captionsOnlyRefusal } from './contract.js';
import type { Metadata, TranscriptResponse, TranscriptSegment } from '../model/content.js';
import type { CaptionTrack, PlatformPost } from '../platforms/post.js';
import { GleanerError } from '../errors.js';
import { transcribeMedia } from '../media/pipeline.js';
import { durationMinutes } from '../media/credits.js';
import { finishTranscript } from '../media/segments.js';
import { fetchPlatform } from '../platforms/browser.js';
import { parseCaptions } from '../platforms/captions.js';
import { fetchTikTok } from '../platforms/tiktok/adapter.js';
import { parseTikTokUrl } from '../platforms/tiktok/url.js';
import { fetchInstagram } from '../platforms/instagram/adapter.js';
import { parseInstagramUrl } from '../platforms/instagram/url.js';
import { fetchXPost } from '../platforms/x/adapter.js';
import { parseXUrl } from '../platforms/x/url.js';
import { fetchFacebook } from '../platforms/facebook/adapter.js';
import { parseFacebookUrl } from '../platforms/facebook/url.js';
import { keepFetched, keptForm, keptUrlId } from './kept.js';

type FetchPost = (url: URL, ctx: SourceContext) => Promise<PlatformPost>;

/** The caption track for a requested language: an exact match, then the same language, then the spoken one. */
export function chooseTrack(tracks: CaptionTrack[], lang: string | undefined): CaptionTrack | undefined {
  const ranked = [...tracks].sort((a, b) => Number(a.source === 'translation') - Number(b.source === 'translation'));
  if (lang) {
    const wanted = lang.toLowerCase().replace('_', '-');
    const exact = ranked.find((t) => t.lang.toLowerCase() === wanted);
    const same = ranked.find((t) => t.lang.toLowerCase().split('-')[0] === wanted.split('-')[0]);
    if (exact ?? same) return exact ?? same;
  }
  return ranked.find((t) => t.original) ?? ranked[0];
}

async function postTranscript(post: PlatformPost, url: URL, options: TranscriptOptions, ctx: SourceContext): Promise<TranscriptResponse> {
  const { platform, id } = post.metadata;
  const availableLangs = [...new Set(post.captions.map((t) => t.lang))];
  const extra = { platform, videoId: id, ...(availableLangs.length ? { availableLangs } : {}) };
  let track = chooseTrack(post.captions, options.lang);
  let translatedTo: string | undefined;
  if (options.translate && !options.generate) {
    // Only the platform's own caption tracks translate here (TikTok publishes machine translations);
    // refused before any media is fetched or charged.
    const wanted = options.translate.toLowerCase().split('-')[0];
    const target = post.captions.find((t) => t.lang.toLowerCase().split('-')[0] === wanted);
    if (!target) {
      throw new GleanerError(
        'TRANSCRIPT_UNAVAILABLE',
        `This ${platform} post has no captions in "${options.translate}"${availableLangs.length ? ` (it has: ${availableLangs.join(', ')})` : ''}, and transcripts of it are not translated.`,
      );
    }
    if (target !== track) translatedTo = target.lang;
    track = target;
  }
  if (track && !options.generate) {
    const body = await fetchPlatform(ctx.services.http, track.url, 'The caption track', { headers: post.captionHeaders, signal: ctx.signal });
    const content = parseCaptions(body.text(), track.lang);
    if (content.length > 0) {
      const last = content.at(-1)!;
      const seconds = post.metadata.durationSeconds ?? ((last.offset ?? 0) + (last.duration ?? 0)) / 1000;
      const timed = { lang: track.lang, aiGenerated: false, durationMinutes: durationMinutes(seconds), cached: false, content };
      if (!translatedTo) await keepPost(post, url, timed, options, ctx);
      return { ...finishTranscript(timed, options), ...extra, ...(translatedTo ? { translatedTo } : {}) };
    }
  }
  if (options.captionsOnly) throw captionsOnlyRefusal(`This ${platform} post`);
  if (!post.media) throw post.noMedia ?? new GleanerError('TRANSCRIPT_UNAVAILABLE', `This ${platform} post has no video or audio to transcribe.`);
  // Speech to text is slow and paid for: its result is kept a day, per post and language hint.
  const cacheKey = `transcript:${platform}:${id ?? post.media.url}:${options.lang?.toLowerCase() ?? '-'}`;
  const stored = await ctx.services.store.get<TranscriptWithSegments>(cacheKey);
  if (stored) {
    await keepPost(post, url, stored, options, ctx);
    return { ...finishTranscript({ ...stored, cached: true }, options), ...extra };
  }
  const result = (await transcribeMedia({ ...post.media, expectedSeconds: post.media.durationSeconds }, { ...options, timestamps: true, text: false }, ctx)) as TranscriptWithSegments;
  await ctx.services.store.set(cacheKey, result, AI_TRANSCRIPT_TTL_MS);
  await keepPost(post, url, result, options, ctx);
  return { ...finishTranscript(result, options), ...extra };
}

/** Keeps a post's timed transcript for search (see kept.ts), under the URL it was asked by (as transcript_search names it). */
async function keepPost(post: PlatformPost, url: URL, timed: TranscriptWithSegments, options: TranscriptOptions, ctx: SourceContext): Promise<void> {
  const { platform, title } = post.metadata;
  await keepFetched(ctx, keptForm(timed, { platform, videoId: keptUrlId(url), url: url.toString(), title }), options.lang);
}

type TranscriptWithSegments = TranscriptResponse & { content: TranscriptSegment[] };
const AI_TRANSCRIPT_TTL_MS = 24 * 60 * 60 * 1000;

function platformSource(platform: Metadata['platform'], matches: (url: URL) => boolean, fetchPost: FetchPost): Source {
  return {
    platform,
    matches,
    metadata: async (url, ctx) => {
      const post = await fetchPost(url, ctx);
      const type = post.metadata.type ?? (post.media ? 'video' : post.metadata.thumbnails.length ? 'image' : 'post');
      return { ...post.metadata, type, ...(post.media ? { mediaUrl: post.media.url } : {}) };
    },
    transcript: async (url, options, ctx) => postTranscript(await fetchPost(url, ctx), url, options, ctx),
    videoMedia: async (url, ctx) => (await fetchPost(url, ctx)).media,
  };
}

export const tiktokSource = platformSource('tiktok', (url) => Boolean(parseTikTokUrl(url)), (url, ctx) => fetchTikTok(ctx.services.http, url, ctx.signal));

export const instagramSource = platformSource('instagram', (url) => Boolean(parseInstagramUrl(url)), (url, ctx) => fetchInstagram(ctx.services.http, url, ctx.signal));

export const xSource = platformSource('x', (url) => Boolean(parseXUrl(url)), (url, ctx) =>
  fetchXPost(ctx.services.http, url, ctx.signal),
);

export const facebookSource = platformSource('facebook', (url) => Boolean(parseFacebookUrl(url)), (url, ctx) => fetchFacebook(ctx.services.http, url, ctx.signal));
