/**
 * `transcript`: one entry point for every platform. The first URL handler that owns the URL and
 * can transcribe answers; any other URL is UNSUPPORTED_URL, naming the platforms that are.
 */
import { z } from 'zod';
import { httpUrl, languageCode } from './inputs.js';
import { defineOperation } from './define.js';
import { GleanerError, isGleanerError } from '../errors.js';
import { handlerFor, URL_HANDLERS, type UrlHandler } from './url-handlers.js';
import type { TranscriptResponse, TranscriptSegment } from '../platforms/types.js';
import { transcriptCredits } from '../media/credits.js';
import { translateSegments } from '../ai/translate.js';
import { chatModelFor } from './models.js';
import type { OperationContext } from './define.js';
import { transcriptReply } from './outputs.js';

/** AI translation costs what the translate operation costs: 30 credits per started minute. */
const AI_TRANSLATION_CREDITS_PER_MINUTE = 30;
export const aiTranslationCredits = (minutes: number) => AI_TRANSLATION_CREDITS_PER_MINUTE * Math.max(1, Math.ceil(minutes));


export const transcriptOperation = defineOperation({
  name: 'transcript',
  title: 'Video transcript',
  description:
    'Transcript of a video on YouTube, TikTok, Instagram, X, Facebook or a media file URL: timed segments, or text=true. Use it for any video link. 1 credit from captions, else 2 per started minute; model translation 30 per minute.',
  http: { method: 'GET', path: '/v1/transcript' },
  input: z.object({
    url: httpUrl,
    lang: languageCode.optional().describe('Preferred language code'),
    translate: languageCode.optional().describe('Translate to this language code'),
    timestamps: z.boolean().default(true).describe('Segment times in ms'),
    text: z.boolean().default(false).describe('One plain string instead of segments'),
    // The Supadata SDK's two further options.
    mode: z.enum(['native', 'auto']).default('auto').describe('native: captions only; auto: else speech to text'),
    chunkSize: z.number().int().min(1).max(100_000).optional().describe('Join segments into chunks of this many characters'),
  }),
  output: transcriptReply,
  groups: ['video', 'youtube'],
  plan: 'Free',
  // AI transcripts reserve their minutes through ctx.reserveCredits once the media's length is known.
  cost: {
    reserve: () => 1,
    settle: (_input, result: TranscriptResponse) => transcriptCredits(result) + (result.translatedBy === 'ai' ? aiTranslationCredits(result.durationMinutes) : 0),
  },
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
    const options = { lang: input.lang, timestamps: input.timestamps, text: input.text, captionsOnly: input.mode === 'native' };
    try {
      return chunked(await handler.transcript(url, { ...options, translate: input.translate }, ctx), input.chunkSize);
    } catch (error) {
      // The platform cannot translate into that language: a language model can, where there is one.
      const model = chatModelFor(ctx);
      if (!input.translate || !model || !isGleanerError(error) || error.code !== 'TRANSCRIPT_UNAVAILABLE') throw error;
      return chunked(await translateWithModel(handler, url, input.translate, options, ctx), input.chunkSize);
    }
  },
});

async function translateWithModel(
  handler: UrlHandler,
  url: URL,
  targetLang: string,
  options: { lang?: string; timestamps: boolean; text: boolean },
  ctx: OperationContext,
): Promise<TranscriptResponse> {
  const original = await handler.transcript!(url, { lang: options.lang, timestamps: true }, ctx);
  await ctx.reserveCredits(aiTranslationCredits(original.durationMinutes));
  const segments = await translateSegments(chatModelFor(ctx)!, original.content as TranscriptSegment[], targetLang, ctx.signal);
  const content = options.text
    ? segments.map((segment) => segment.text).join(' ')
    : segments.map((segment) => (options.timestamps ? segment : { text: segment.text, lang: segment.lang }));
  return { ...original, lang: targetLang, translatedTo: targetLang, translatedBy: 'ai', content };
}

/**
 * Consecutive segments joined until a chunk holds about `size` characters (the Supadata SDK's
 * chunkSize): fewer, longer segments, each timed from its first part to the end of its last.
 */
export function chunked(result: TranscriptResponse, size: number | undefined): TranscriptResponse {
  if (size === undefined || typeof result.content === 'string') return result;
  const chunks: TranscriptSegment[] = [];
  for (const segment of result.content as TranscriptSegment[]) {
    const last = chunks.at(-1);
    if (!last || last.text.length + 1 + segment.text.length > size) {
      chunks.push({ ...segment });
      continue;
    }
    last.text = `${last.text} ${segment.text}`;
    if (last.offset !== undefined && segment.offset !== undefined && segment.duration !== undefined) last.duration = segment.offset + segment.duration - last.offset;
  }
  return { ...result, content: chunks };
}
