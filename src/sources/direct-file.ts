/** Direct media files (mp4, mp3, m3u8 ...): metadata from the file itself, transcripts by speech to text. */
import type { Source } from './contract.js';
import { captionsOnlyRefusal } from './contract.js';
import { directMediaMetadata, looksLikeMediaFile } from '../media/direct.js';
import { transcribeMedia } from '../media/pipeline.js';

export const directFileSource: Source = {
  platform: 'video',
  matches: looksLikeMediaFile,
  metadata: (url, ctx) => directMediaMetadata(url, ctx),
  transcript: (url, options, ctx) => {
    if (options.captionsOnly) throw captionsOnlyRefusal('A media file');
    return transcribeMedia(url.toString(), options, ctx);
  },
  videoMedia: async (url) => ({ url: url.toString() }),
};
