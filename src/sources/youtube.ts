/**
 * YouTube as a source: any URL naming a video. Its transcript (captions through the InnerTube
 * clients, else speech to text, translated by YouTube or a language model) is also what the
 * youtube_* transcript operations read.
 */
import type { YT } from 'youtubei.js';
import type { Source, SourceContext } from './contract.js';
import type { TranscriptResponse } from '../model/content.js';
import { chaptersFromMarkers, watchPageChapters } from '../platforms/youtube/chapters.js';
import { isYoutubeUrl, videoIdFromUrl } from '../platforms/youtube/ids.js';
import { innertube } from '../platforms/youtube/client.js';
import { loadVideo, toMetadata, videoStreamUrl } from '../platforms/youtube/video.js';
import { onFreshExits, throughClients, type InnerTubeClient } from '../platforms/youtube/clients.js';
import { profileOf } from '../platforms/profile.js';
import { renderTranscript, youtubeTranscript, type SegmentTranslator, type StoredTranscript } from '../platforms/youtube/transcript.js';
import { translateSegments } from '../ai/translate.js';
import { requireChatModel } from '../ai/model-choice.js';
import { youtubeSpeechFallback } from './youtube-speech.js';
import { keepFetched } from './kept.js';
import type { KeptTranscript } from '../store/kept-transcripts.js';

export interface YoutubeTranscriptOptions {
  lang?: string;
  translate?: string;
  timestamps: boolean;
  text?: boolean;
  /** Translate with a language model where YouTube offers no translation. */
  aiTranslation?: boolean;
  captionsOnly?: boolean;
  generate?: boolean;
}

/**
 * The watch replies a call has loaded or is loading, by video: `read` asks for a video's facts and
 * its transcript at once, and the transcript's auto-chapters then come from that reply, not from a
 * second watch request.
 */
const watchReplies = new WeakMap<SourceContext, Map<string, Promise<YT.VideoInfo>>>();

/** The player-bar chapters of the call's watch reply where it has one, else of one watch request. */
async function markerChapters(videoId: string, ctx: SourceContext) {
  const loading = watchReplies.get(ctx)?.get(videoId);
  if (loading) return chaptersFromMarkers(await loading);
  return watchPageChapters(await innertube(ctx.services.http), videoId);
}

/** One YouTube transcript in the reply shape (shared by the operations and the source). */
export async function youtubeVideoTranscript(videoId: string, options: YoutubeTranscriptOptions, ctx: SourceContext): Promise<TranscriptResponse> {
  const request = { videoId, lang: options.lang, translate: options.translate, ...(options.generate ? { generate: true } : {}) };
  const deps = {
    http: ctx.services.http,
    store: ctx.services.store,
    // Speech to text reserves its credits through ctx.reserveCredits; the operation's settle then charges them.
    fallback: options.captionsOnly ? undefined : youtubeSpeechFallback(ctx),
    youtube: { poTokenProvider: ctx.services.config.GLEANER_YOUTUBE_POT_PROVIDER_URL },
    ...(options.aiTranslation ? { translator: aiTranslator(ctx) } : {}),
    markers: () => markerChapters(videoId, ctx),
    log: ctx.log,
  };
  const { transcript, cached } = await youtubeTranscript(deps, request);
  if (!transcript.translatedTo) await keepFetched(ctx, keptYoutube(transcript), options.lang);
  return renderTranscript(transcript, { timestamps: options.timestamps, text: options.text, cached });
}

/** The kept form of a YouTube transcript (its segments are always timed). */
function keptYoutube(transcript: StoredTranscript): KeptTranscript {
  const { videoId } = transcript;
  return {
    platform: 'youtube',
    videoId,
    url: `https://www.youtube.com/watch?v=${videoId}`,
    ...(transcript.title ? { title: transcript.title } : {}),
    lang: transcript.lang,
    aiGenerated: transcript.aiGenerated,
    durationSeconds: transcript.durationSeconds,
    segments: transcript.segments,
    ...(transcript.chapters?.length ? { chapters: transcript.chapters } : {}),
    keptAt: new Date().toISOString(),
  };
}

/**
 * Translation by a language model where YouTube offers none: the configured endpoint when there is
 * one, else the MCP client's model through sampling.
 */
function aiTranslator(ctx: SourceContext): SegmentTranslator {
  return async (segments, targetLang) => {
    const model = requireChatModel(ctx, `translating into "${targetLang}", which YouTube does not offer for this video`);
    const translated = await translateSegments(model, segments.map((s) => ({ ...s, lang: '' })), targetLang, ctx.signal);
    return translated.map(({ text, offset, duration }) => ({ text, offset: offset ?? 0, duration: duration ?? 0 }));
  };
}

export const youtubeSource: Source = {
  platform: 'youtube',
  // Channel and playlist pages are not videos: metadata reads them as web pages.
  matches: (url) => isYoutubeUrl(url) && videoIdFromUrl(url) !== undefined,
  async metadata(url, ctx) {
    const videoId = videoIdFromUrl(url)!;
    const yt = await innertube(ctx.services.http);
    const loading = onFreshExits(ctx.services.http, () => loadVideo(yt, videoId));
    const replies = watchReplies.get(ctx) ?? new Map<string, Promise<YT.VideoInfo>>();
    watchReplies.set(ctx, replies.set(videoId, loading));
    return toMetadata(await loading);
  },
  transcript: (url, options, ctx) => youtubeVideoTranscript(videoIdFromUrl(url)!, options, ctx),
  async videoMedia(url, ctx) {
    const http = ctx.services.http;
    // The clients that give direct stream URLs are the profile's audio order (WEB's formats have none).
    const clients = profileOf(http).youtube.order.audio as InnerTubeClient[];
    const { result } = await throughClients(http, await innertube(http), videoIdFromUrl(url)!, clients, async ({ info }) => videoStreamUrl(info));
    return result ? { url: result, headers: { referer: 'https://www.youtube.com/' } } : undefined;
  },
};
