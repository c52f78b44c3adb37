/**
 * YouTube as a source: any URL naming a video. Its transcript (captions through the InnerTube
 * clients, else speech to text, translated by YouTube or a language model) is also what the
 * youtube_* transcript operations read.
 */
import type { Source, SourceContext } from './contract.js';
import type { TranscriptResponse } from '../model/content.js';
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
    const yt = await innertube(ctx.services.http);
    return toMetadata(await onFreshExits(ctx.services.http, () => loadVideo(yt, videoIdFromUrl(url)!)));
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
