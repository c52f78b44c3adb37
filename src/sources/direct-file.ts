/** Direct media files (mp4, mp3, m3u8 ...): metadata from the file itself, transcripts by speech to text. */
import { captionsOnlyRefusal, type Source, type SourceContext, type TranscriptOptions } from './contract.js';
import { directMediaMetadata, looksLikeMediaFile } from '../media/direct.js';
import { transcribeMedia } from '../media/pipeline.js';
import { finishTranscript } from '../media/segments.js';
import type { TranscriptResponse, TranscriptSegment } from '../model/content.js';
import { keepFetched, keptForm, keptUrlId } from './kept.js';

/** A media file by speech to text, kept for search under its URL (see kept.ts). */
export async function transcribeFile(url: URL, options: TranscriptOptions, ctx: SourceContext): Promise<TranscriptResponse> {
  const timed = (await transcribeMedia(url.toString(), { ...options, timestamps: true, text: false }, ctx)) as TranscriptResponse & { content: TranscriptSegment[] };
  await keepFetched(ctx, keptForm(timed, { platform: 'video', videoId: keptUrlId(url), url: url.toString() }), options.lang);
  return finishTranscript(timed, options);
}

export const directFileSource: Source = {
  platform: 'video',
  matches: looksLikeMediaFile,
  metadata: (url, ctx) => directMediaMetadata(url, ctx),
  transcript: (url, options, ctx) => {
    if (options.captionsOnly) throw captionsOnlyRefusal('A media file');
    return transcribeFile(url, options, ctx);
  },
  videoMedia: async (url) => ({ url: url.toString() }),
};
