/**
 * Transcripts of short-video and social posts and of direct media files. Native captions where the
 * platform publishes them (1 credit); otherwise speech to text, 2 credits per started minute.
 */
import { z } from 'zod';
import { httpUrl, languageCode } from './inputs.js';
import { defineOperation, type Operation } from './define.js';
import { sourceFor } from '../sources/registry.js';
import type { Source } from '../sources/contract.js';
import { GleanerError } from '../errors.js';
import { TRANSCRIPT_COST } from '../media/credits.js';
import { assertCanTranscribe } from '../media/pipeline.js';
import { transcribeFile } from '../sources/direct-file.js';
import type { TranscriptResponse } from '../model/content.js';
import { transcriptReply } from './outputs.js';

const transcriptInput = z.object({
  url: httpUrl,
  lang: languageCode.optional().describe('Expected language code'),
  timestamps: z.boolean().default(true).describe('Segment times in ms'),
});

const COST_NOTE = '1 credit from captions, else 2 per started minute.';

interface PlatformInfo {
  name: string;
  platform: Source['platform'];
  label: string;
  alias: string;
  examples: string;
  captions: boolean;
}

function platformTranscript(info: PlatformInfo): Operation<typeof transcriptInput, TranscriptResponse> {
  return defineOperation({
    name: info.name,
    title: `${info.label} transcript`,
    description: `Transcript of a ${info.label} video, as timed segments${info.captions ? ', from its captions or speech to text' : ', by speech to text'}. ${COST_NOTE}`,
    http: { method: 'GET', path: `/v1/${info.platform}/transcript`, aliases: [`/v1/${info.alias}/transcript`] },
    input: transcriptInput,
    output: transcriptReply,
    groups: ['video'],
    mcpOnRequest: true,
    plan: 'Free',
    cost: TRANSCRIPT_COST,
    kind: 'sync',
    readOnly: true,
    openWorld: true,
    // No speech-to-text pre-check: a post with captions needs none, on this route as on
    // /v1/transcript; one without them is NOT_CONFIGURED from the pipeline, free of charge.
    async run(input, ctx) {
      const url = new URL(input.url);
      const source = sourceFor(url);
      if (source?.platform !== info.platform || !source.transcript) {
        throw new GleanerError('UNSUPPORTED_URL', `${input.url} is not a ${info.label} video URL (for example ${info.examples}).`);
      }
      return source.transcript(url, { lang: input.lang, timestamps: input.timestamps }, ctx);
    },
  });
}

export const tiktokTranscript = platformTranscript({
  name: 'tiktok_transcript',
  platform: 'tiktok',
  label: 'TikTok',
  alias: 'shortclip',
  examples: 'https://www.tiktok.com/@user/video/123',
  captions: true,
});

export const instagramTranscript = platformTranscript({
  name: 'instagram_transcript',
  platform: 'instagram',
  label: 'Instagram',
  alias: 'photogram',
  examples: 'https://www.instagram.com/reel/SHORTCODE/ or /p/SHORTCODE/',
  captions: false,
});

export const xTranscript = platformTranscript({
  name: 'x_transcript',
  platform: 'x',
  label: 'X (Twitter)',
  alias: 'microblog',
  examples: 'https://x.com/user/status/123',
  captions: false,
});

export const facebookTranscript = platformTranscript({
  name: 'facebook_transcript',
  platform: 'facebook',
  label: 'Facebook',
  alias: 'social',
  examples: 'https://www.facebook.com/watch/?v=123 or /user/videos/123',
  captions: false,
});

export const videoTranscript = defineOperation({
  name: 'video_transcript',
  title: 'Media file transcript',
  description: `Transcript of an audio or video file URL (mp4, mp3, m3u8 ...) by speech to text. ${COST_NOTE}`,
  http: { method: 'GET', path: '/v1/video/transcript' },
  input: transcriptInput,
  output: transcriptReply,
  groups: ['video'],
  plan: 'Free',
  cost: TRANSCRIPT_COST,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async check(input, ctx) {
    const source = sourceFor(new URL(input.url));
    if (!source || source.platform === 'video') await assertCanTranscribe(ctx.services);
  },
  async run(input, ctx) {
    const url = new URL(input.url);
    const options = { lang: input.lang, timestamps: input.timestamps };
    const source = sourceFor(url);
    if (source?.transcript) return source.transcript(url, options, ctx);
    return transcribeFile(url, options, ctx);
  },
});

