/**
 * `transcript`: one entry point for every platform. The first URL handler that owns the URL and
 * can transcribe answers; any other URL is UNSUPPORTED_URL, naming the platforms that are.
 */
import { z } from 'zod';
import { defineOperation } from './define.js';
import { GleanerError } from '../errors.js';
import { handlerFor, URL_HANDLERS } from './url-handlers.js';
import type { TranscriptResponse } from '../platforms/types.js';
import { transcriptCredits } from './youtube.js';

const LANG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

export const transcriptOperation = defineOperation({
  name: 'transcript',
  title: 'Transcript of a video on any supported platform',
  description:
    'Returns the transcript of a video from its URL, detecting the platform (YouTube and the other supported platforms). Segments with text, offset and duration in ms, or one plain string with text=true; lang picks a language, translate asks for a translation where the platform offers one. Costs 1 credit from native captions, 2 credits per started minute when AI transcribes.',
  http: { method: 'GET', path: '/v1/transcript' },
  input: z.object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).describe('The video URL'),
    lang: z.string().regex(LANG, 'must be a language code such as en, de or pt-BR').optional().describe('Preferred language'),
    translate: z.string().regex(LANG, 'must be a language code such as en, de or pt-BR').optional().describe('Translate the transcript to this language'),
    timestamps: z.boolean().default(true).describe("Include each segment's offset and duration in milliseconds (default true)"),
    text: z.boolean().default(false).describe('Return the transcript as one plain string in content'),
  }),
  plan: 'Free',
  // AI transcripts reserve their minutes through ctx.reserveCredits once the media's length is known.
  cost: { reserve: () => 1, settle: (_input, result: TranscriptResponse) => transcriptCredits(result) },
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  async run(input, ctx) {
    const url = new URL(input.url);
    const handler = handlerFor(url);
    if (!handler?.transcript) {
      const supported = URL_HANDLERS.filter((h) => h.transcript).map((h) => h.platform);
      throw new GleanerError(
        'UNSUPPORTED_URL',
        `${input.url} is not a video on a platform this server can transcribe; supported: ${supported.length ? supported.join(', ') : 'none'}.`,
      );
    }
    return handler.transcript(url, { lang: input.lang, translate: input.translate, timestamps: input.timestamps, text: input.text }, ctx);
  },
});
