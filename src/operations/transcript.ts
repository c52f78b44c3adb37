/**
 * `transcript`: one entry point for every platform. The first source that owns the URL and
 * can transcribe answers; any other URL is UNSUPPORTED_URL, naming the platforms that are.
 */
import { z } from 'zod';
import { httpUrl, languageCode } from './inputs.js';
import { defineOperation } from './define.js';
import { GleanerError, isGleanerError } from '../errors.js';
import { sourceFor, SOURCES } from '../sources/registry.js';
import type { Source, TranscriptOptions } from '../sources/contract.js';
import type { TranscriptResponse, TranscriptSegment } from '../model/content.js';
import { aiTranslationCredits, TRANSCRIPT_COST } from '../media/credits.js';
import { translateSegments } from '../ai/translate.js';
import { chatModelFor } from '../ai/model-choice.js';
import { JobHandoff, type OperationContext } from './define.js';
import { transcriptReply } from './outputs.js';
import { chunked } from '../media/segments.js';

export const transcriptOperation = defineOperation({
  name: 'transcript',
  title: 'Video transcript',
  description:
    'Transcript of a video on YouTube, TikTok, Instagram, X, Facebook or a media file, with language, translation and mode choices. 1 credit from captions, else 2 a minute; 30 a minute translated.',
  http: { method: 'GET', path: '/v1/transcript' },
  input: z.object({
    url: httpUrl,
    lang: languageCode.optional().describe('Preferred language code'),
    translate: languageCode.optional().describe('Translate to this language code'),
    timestamps: z.boolean().default(true).describe('Segment times in ms'),
    text: z.boolean().default(false).describe('Plain text, no segments'),
    // The Supadata SDK's two further options.
    mode: z.enum(['native', 'auto', 'generate']).default('auto').describe('native: captions only; auto: else speech to text; generate: always speech to text'),
    chunkSize: z.number().int().min(1).max(100_000).optional().describe('Join segments up to this many characters'),
  }),
  output: transcriptReply,
  groups: ['video', 'youtube'],
  plan: 'Free',
  cost: TRANSCRIPT_COST,
  kind: 'sync',
  readOnly: true,
  openWorld: true,
  handsOffToJobs: true,
  async run(input, ctx) {
    const url = new URL(input.url);
    const source = sourceFor(url);
    if (!source?.transcript) {
      const supported = SOURCES.filter((s) => s.transcript).map((s) => s.platform);
      throw new GleanerError(
        'UNSUPPORTED_URL',
        `${input.url} is not a video on a platform this server can transcribe; supported: ${supported.length ? supported.join(', ') : 'none'}.`,
      );
    }
    const options = { lang: input.lang, timestamps: input.timestamps, text: input.text, captionsOnly: input.mode === 'native', generate: input.mode === 'generate' };
    // A caller that can poll gets a job for speech to text (minutes of work): captions, which come at
    // once, are still answered here. Without a provider the normal path gives the clear error.
    if (ctx.prefersAsync && ctx.services.stt && input.mode !== 'native') {
      if (options.generate) throw new JobHandoff('speech to text (mode=generate)');
      try {
        return await transcribe(source, url, input, { ...options, captionsOnly: true }, ctx);
      } catch (error) {
        if (isGleanerError(error) && error.code === 'TRANSCRIPT_UNAVAILABLE') throw new JobHandoff('no captions: speech to text');
        throw error;
      }
    }
    return transcribe(source, url, input, options, ctx);
  },
});

type TranscriptInput = { translate?: string; chunkSize?: number };
type SourceOptions = TranscriptOptions & { timestamps: boolean; text: boolean };

async function transcribe(source: Source, url: URL, input: TranscriptInput, options: SourceOptions, ctx: OperationContext): Promise<TranscriptResponse> {
  // Speech to text gives the spoken language: a translation of it is the language model's.
  if (input.translate && options.generate) return chunked(await translateWithModel(source, url, input.translate, options, ctx), input.chunkSize);
  try {
    return chunked(await source.transcript!(url, { ...options, translate: input.translate }, ctx), input.chunkSize);
  } catch (error) {
    // The platform cannot translate into that language: a language model can, where there is one.
    const model = chatModelFor(ctx);
    if (!input.translate || !model || !isGleanerError(error) || error.code !== 'TRANSCRIPT_UNAVAILABLE') throw error;
    return chunked(await translateWithModel(source, url, input.translate, options, ctx), input.chunkSize);
  }
}

async function translateWithModel(
  source: Source,
  url: URL,
  targetLang: string,
  options: SourceOptions,
  ctx: OperationContext,
): Promise<TranscriptResponse> {
  const model = chatModelFor(ctx);
  if (!model) {
    throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `Translating into "${targetLang}" needs a language model: set GLEANER_LLM_URL, or call over MCP from a client that offers sampling.`);
  }
  const original = await source.transcript!(url, { lang: options.lang, timestamps: true, generate: options.generate, captionsOnly: options.captionsOnly }, ctx);
  await ctx.reserveCredits(aiTranslationCredits(original.durationMinutes));
  const segments = await translateSegments(model, original.content as TranscriptSegment[], targetLang, ctx.signal);
  const content = options.text
    ? segments.map((segment) => segment.text).join(' ')
    : segments.map((segment) => (options.timestamps ? segment : { text: segment.text, lang: segment.lang }));
  return { ...original, lang: targetLang, translatedTo: targetLang, translatedBy: 'ai', content };
}
