/**
 * Transcripts of social posts and media files: the platform's own captions where it publishes
 * them (1 credit), else speech to text through the media pipeline (2 credits per started minute,
 * reserved once the media's length is known). Also the URL handlers that let `metadata` and
 * `transcript` reach TikTok, Instagram, X, Facebook and direct media files.
 */
import path from 'node:path';
import type { OperationContext } from './define.js';
import type { TranscriptOptions, UrlHandler } from './url-handlers.js';
import type { Metadata, TranscriptResponse } from '../platforms/types.js';
import { GleanerError, isGleanerError } from '../errors.js';
import { sameLanguage } from '../ai/languages.js';
import { transcribeMedia, minutesOf, type MediaSegment } from '../media/pipeline.js';
import { parseSubtitles } from '../platforms/subtitles.js';
import type { CaptionTrack, PlatformAdapter, PlatformPost } from '../platforms/post.js';
import type { TranscriptFallback } from '../platforms/youtube/transcript.js';
import { tiktokAdapter } from '../platforms/tiktok/tiktok.js';
import { instagramAdapter } from '../platforms/instagram/instagram.js';
import { xAdapter } from '../platforms/x/x.js';
import { facebookAdapter } from '../platforms/facebook/facebook.js';

export const PLATFORM_ADAPTERS: PlatformAdapter[] = [tiktokAdapter, instagramAdapter, xAdapter, facebookAdapter];

/** What is cached: everything needed to render any reply format. */
interface StoredMediaTranscript {
  lang: string;
  aiGenerated: boolean;
  durationSeconds: number;
  segments: MediaSegment[];
  availableLangs?: string[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function renderMediaTranscript(
  stored: StoredMediaTranscript,
  options: Pick<TranscriptOptions, 'timestamps' | 'text'>,
  extra: { cached: boolean; platform: string; videoId?: string },
): TranscriptResponse {
  const { lang } = stored;
  return {
    lang,
    aiGenerated: stored.aiGenerated,
    durationMinutes: minutesOf(stored.durationSeconds),
    cached: extra.cached,
    content: options.text
      ? stored.segments.map((s) => s.text).join(' ')
      : stored.segments.map((s) => (options.timestamps ? { text: s.text, offset: s.offset, duration: s.duration, lang } : { text: s.text, lang })),
    ...(stored.availableLangs?.length ? { availableLangs: stored.availableLangs } : {}),
    platform: extra.platform,
    ...(extra.videoId ? { videoId: extra.videoId } : {}),
  };
}

function refuseTranslation(options: TranscriptOptions, what: string): void {
  if (options.translate) {
    throw new GleanerError('INVALID_REQUEST', `translate is offered for YouTube videos only; ask for the ${what} transcript without it (lang picks the spoken language).`);
  }
}

/** The platform's track to use: the asked language (original before translation), else the spoken one. */
export function pickCaption(captions: CaptionTrack[], lang: string | undefined): CaptionTrack | undefined {
  const originals = captions.filter((c) => c.kind !== 'translation');
  if (lang) {
    const matching = captions.filter((c) => sameLanguage(lang, c.lang));
    return matching.find((c) => c.kind !== 'translation') ?? matching[0];
  }
  // Without a language, only captions in the spoken language will do; translations alone are not the transcript.
  return originals.find((c) => c.kind === 'manual') ?? originals[0];
}

async function readCaption(track: CaptionTrack, post: PlatformPost, ctx: OperationContext): Promise<MediaSegment[] | undefined> {
  try {
    const reply = await ctx.services.http.fetch(track.url, { headers: post.media?.headers, maxBytes: 4 * 1024 * 1024, signal: ctx.signal });
    if (reply.status >= 400) throw new GleanerError('UPSTREAM_ERROR', `HTTP ${reply.status}`);
    const cues = parseSubtitles(reply.text());
    return cues.length ? cues : undefined;
  } catch (error) {
    // Caption URLs expire; speech to text still gives a transcript.
    if (isGleanerError(error) && error.code === 'URL_NOT_ALLOWED') throw error;
    ctx.log.warn({ err: error, url: track.url }, 'platform captions could not be read; falling back to speech to text');
    return undefined;
  }
}

async function cachedOr(key: string, ctx: OperationContext, produce: () => Promise<StoredMediaTranscript>): Promise<{ stored: StoredMediaTranscript; cached: boolean }> {
  const hit = await ctx.services.store.get<StoredMediaTranscript>(key);
  if (hit) return { stored: hit, cached: true };
  const stored = await produce();
  await ctx.services.store.set(key, stored, DAY_MS);
  return { stored, cached: false };
}

/** A post's transcript: its captions where they fit, else speech to text of its media. */
export async function postTranscript(adapter: PlatformAdapter, url: URL, options: TranscriptOptions, ctx: OperationContext): Promise<TranscriptResponse> {
  refuseTranslation(options, adapter.label);
  const post = await adapter.load(ctx.services.http, url, ctx.signal);
  const id = post.metadata.id ?? url.toString();
  const key = `media:transcript:${adapter.platform}:${id}:${options.lang?.toLowerCase() ?? '-'}`;
  const { stored, cached } = await cachedOr(key, ctx, async () => {
    const availableLangs = [...new Set(post.captions.map((c) => c.lang))];
    const track = pickCaption(post.captions, options.lang);
    const cues = track ? await readCaption(track, post, ctx) : undefined;
    if (track && cues) {
      const last = cues[cues.length - 1];
      const seconds = post.media?.durationSeconds ?? post.metadata.durationSeconds ?? (last.offset + last.duration) / 1000;
      return { lang: track.lang, aiGenerated: false, durationSeconds: seconds, segments: cues, availableLangs };
    }
    if (!post.media) {
      throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `This ${adapter.label} post has no video or audio to transcribe.`);
    }
    const media = await transcribeMedia(post.media.url, { lang: options.lang, headers: post.media.headers, expectedSeconds: post.media.durationSeconds }, ctx);
    return { lang: media.lang, aiGenerated: true, durationSeconds: media.durationSeconds, segments: media.segments, availableLangs };
  });
  return renderMediaTranscript(stored, options, { cached, platform: adapter.platform, videoId: post.metadata.id });
}

/** A direct media file (mp4, webm, mov, m4a, mp3, wav, HLS ...) through speech to text. */
export async function fileTranscript(url: URL, options: TranscriptOptions, ctx: OperationContext): Promise<TranscriptResponse> {
  refuseTranslation(options, 'media file');
  const key = `media:transcript:file:${url.toString()}:${options.lang?.toLowerCase() ?? '-'}`;
  const { stored, cached } = await cachedOr(key, ctx, async () => {
    const media = await transcribeMedia(url.toString(), { lang: options.lang }, ctx);
    return { lang: media.lang, aiGenerated: true, durationSeconds: media.durationSeconds, segments: media.segments };
  });
  return renderMediaTranscript(stored, options, { cached, platform: 'video' });
}

/**
 * Speech to text for a YouTube video without captions, in the shape of youtubeTranscriptHooks.fallback:
 * `youtubeTranscriptHooks.fallback = youtubeSpeechFallback`. Undefined (no fallback) when no provider
 * is configured, so such a video stays TRANSCRIPT_UNAVAILABLE; a video whose audio stream URL is
 * ciphered has no fallback either.
 */
export function youtubeSpeechFallback(ctx: OperationContext): TranscriptFallback | undefined {
  if (!ctx.services.stt) return undefined;
  return async ({ videoId, durationSeconds, lang, audioUrl }) => {
    if (!audioUrl) return undefined;
    const media = await transcribeMedia(audioUrl, { lang, expectedSeconds: durationSeconds || undefined }, ctx);
    return { videoId, lang: media.lang, aiGenerated: true, durationSeconds: media.durationSeconds, availableLangs: [], segments: media.segments };
  };
}

const MEDIA_FILE = /\.(mp4|m4v|webm|mov|mkv|m4a|mp3|wav|ogg|oga|opus|flac|aac|m3u8)$/i;

export function looksLikeMediaFile(url: URL): boolean {
  return MEDIA_FILE.test(url.pathname);
}

/** What a HEAD request says about a media file; its length needs the file itself, so it is not guessed. */
async function fileMetadata(url: URL, ctx: OperationContext): Promise<Metadata> {
  const reply = await ctx.services.http.fetch(url.toString(), { method: 'HEAD', signal: ctx.signal });
  if (reply.status === 404 || reply.status === 410) throw new GleanerError('CONTENT_NOT_FOUND', `There is no file at ${url} (HTTP ${reply.status}).`);
  if (reply.status >= 400) throw new GleanerError('UPSTREAM_ERROR', `${url.host} answered HTTP ${reply.status}.`);
  const type = reply.headers['content-type']?.split(';')[0].trim().toLowerCase();
  const name = decodeURIComponent(path.posix.basename(url.pathname)) || null;
  const mediaType = type?.startsWith('audio/') ? 'audio' : 'video';
  return { platform: 'video', url: url.toString(), title: name, description: null, author: null, thumbnails: [], media: { type: mediaType, url: url.toString() } };
}

function platformHandler(adapter: PlatformAdapter): UrlHandler {
  return {
    platform: adapter.platform,
    matches: (url) => adapter.matches(url),
    metadata: async (url, ctx) => (await adapter.load(ctx.services.http, url, ctx.signal)).metadata,
    transcript: (url, options, ctx) => postTranscript(adapter, url, options, ctx),
  };
}

export const directMediaHandler: UrlHandler = {
  platform: 'video',
  matches: looksLikeMediaFile,
  metadata: fileMetadata,
  transcript: fileTranscript,
};

export const MEDIA_URL_HANDLERS: UrlHandler[] = [...PLATFORM_ADAPTERS.map(platformHandler), directMediaHandler];
