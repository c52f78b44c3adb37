/**
 * Speech to text for YouTube videos without captions: the smallest audio-only stream goes through
 * the media pipeline, which reserves the AI minutes once ffprobe has read the length (the
 * calling operation's reserve of 1 credit counts toward them). With no provider configured there is
 * no fallback, and such a video stays TRANSCRIPT_UNAVAILABLE (free).
 */
import type { SourceContext } from './contract.js';
import type { TranscriptFallback } from '../platforms/youtube/transcript.js';
import type { TranscriptSegment } from '../model/content.js';
import { transcribeMedia } from '../media/pipeline.js';

export function youtubeSpeechFallback(ctx: SourceContext): TranscriptFallback | undefined {
  if (!ctx.services.stt) return undefined;
  return async (video) => {
    if (!video.audioUrl) return undefined;
    const result = await transcribeMedia(
      { url: video.audioUrl, expectedSeconds: video.durationSeconds || undefined, headers: { referer: 'https://www.youtube.com/' } },
      { lang: video.lang, timestamps: true },
      ctx,
    );
    const segments = (result.content as TranscriptSegment[]).map((s) => ({ text: s.text, offset: s.offset ?? 0, duration: s.duration ?? 0, ...(s.speaker ? { speaker: s.speaker } : {}) }));
    // The billed length: durationMinutes as the pipeline reserved it, so settling charges exactly that.
    return { videoId: video.videoId, lang: result.lang, aiGenerated: true, durationSeconds: result.durationMinutes * 60, availableLangs: [], segments };
  };
}
