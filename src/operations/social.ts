/**
 * Transcripts of TikTok, Instagram, X and Facebook videos and of direct media files. Canonical
 * paths name the platform; the spec's neutral words (shortclip, photogram, microblog, social) are
 * aliases.
 */
import { z } from 'zod';
import { defineOperation } from './define.js';
import { GleanerError } from '../errors.js';
import type { TranscriptResponse } from '../platforms/types.js';
import type { PlatformAdapter } from '../platforms/post.js';
import { tiktokAdapter } from '../platforms/tiktok/tiktok.js';
import { instagramAdapter } from '../platforms/instagram/instagram.js';
import { xAdapter } from '../platforms/x/x.js';
import { facebookAdapter } from '../platforms/facebook/facebook.js';
import { fileTranscript, postTranscript } from './media-transcripts.js';
import { handlerFor } from './url-handlers.js';
import { transcriptCredits } from './youtube.js';

const LANG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

function transcriptInput(urlHelp: string) {
  return z.object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).describe(urlHelp),
    lang: z
      .string()
      .regex(LANG, 'must be a language code such as en, de or pt-BR')
      .optional()
      .describe('The spoken language, or the caption language wanted; without it the platform captions in the spoken language are used, or speech to text detects the language'),
    timestamps: z.boolean().default(true).describe("Include each segment's offset and duration in milliseconds (default true)"),
  });
}

// AI transcripts reserve their minutes through ctx.reserveCredits once the media's length is known.
const cost = { reserve: () => 1, settle: (_input: unknown, result: TranscriptResponse) => transcriptCredits(result) };

const PRICE =
  'Uses the captions the platform publishes where they exist (1 credit); otherwise the audio is transcribed by speech to text (aiGenerated: true, 2 credits per started minute of media; needs a configured speech-to-text provider).';

function platformTranscript(adapter: PlatformAdapter, name: string, canonical: string, alias: string, what: string, example: string) {
  return defineOperation({
    name,
    title: `${adapter.label} video transcript`,
    description: `Returns the transcript of ${what} from its URL (e.g. ${example}): segments with text, offset and duration in ms, the language, and durationMinutes. ${PRICE} Private, removed or region-locked posts are an error and cost nothing.`,
    http: { method: 'GET', path: canonical, aliases: [alias] },
    input: transcriptInput(`The ${adapter.label} post URL, e.g. ${example}`),
    plan: 'Free',
    cost,
    kind: 'sync',
    readOnly: true,
    openWorld: true,
    async run(input, ctx) {
      const url = new URL(input.url);
      if (!adapter.matches(url)) throw new GleanerError('UNSUPPORTED_URL', `${input.url} is not a ${adapter.label} video URL (e.g. ${example}).`);
      return postTranscript(adapter, url, { lang: input.lang, timestamps: input.timestamps }, ctx);
    },
  });
}

export const tiktokTranscript = platformTranscript(tiktokAdapter, 'tiktok_transcript', '/v1/tiktok/transcript', '/v1/shortclip/transcript', 'a TikTok video', 'https://www.tiktok.com/@user/video/7571863205253778710');
export const instagramTranscript = platformTranscript(instagramAdapter, 'instagram_transcript', '/v1/instagram/transcript', '/v1/photogram/transcript', 'an Instagram video post or reel', 'https://www.instagram.com/reel/CN2VQ1yI_MA/');
export const xTranscript = platformTranscript(xAdapter, 'x_transcript', '/v1/x/transcript', '/v1/microblog/transcript', 'a video in a post on X (Twitter)', 'https://x.com/user/status/1841206275088290279');
export const facebookTranscript = platformTranscript(facebookAdapter, 'facebook_transcript', '/v1/facebook/transcript', '/v1/social/transcript', 'a Facebook video', 'https://www.facebook.com/Nintendo/videos/286348296528911/');

export const videoTranscript = defineOperation({
  name: 'video_transcript',
  title: 'Transcript of a media file or any supported video URL',
  description:
    'Returns the transcript of a direct media file URL (mp4, webm, mov, m4a, mp3, wav, HLS .m3u8 ...) by speech to text, or of any supported platform URL (YouTube, TikTok, Instagram, X, Facebook) as that platform does it. The file is checked by its content type and by ffprobe, not by its name; a page or other non-media URL is refused before anything is charged. 2 credits per started minute of media (1 when native captions are used); needs a configured speech-to-text provider and ffmpeg.',
  http: { method: 'GET', path: '/v1/video/transcript' },
  input: transcriptInput('A direct media file URL, or a video URL on a supported platform'),
  plan: 'Free',
  cost,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const url = new URL(input.url);
    const handler = handlerFor(url);
    const options = { lang: input.lang, timestamps: input.timestamps };
    if (handler?.transcript && handler.platform !== 'video') return handler.transcript(url, options, ctx);
    return fileTranscript(url, options, ctx);
  },
});

export const MEDIA_OPERATIONS = [tiktokTranscript, instagramTranscript, xTranscript, facebookTranscript, videoTranscript];
