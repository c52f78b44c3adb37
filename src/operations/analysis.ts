import { z } from 'zod';
import { httpUrl } from './inputs.js';
import { defineOperation, type OperationContext } from './define.js';
import { sourceFor, SOURCES } from '../sources/registry.js';
import type { Source } from '../sources/contract.js';
import { videoFrames, type Frame } from '../media/frames.js';
import { GleanerError, isGleanerError } from '../errors.js';
import { analyzeVideo } from '../ai/analyze.js';
import { schemaInput } from './page-answers.js';
import { requireChatModel } from '../ai/model-choice.js';
import type { Metadata, TranscriptResponse } from '../model/content.js';
import { analysisResult } from './outputs.js';

const input = z
  .object({
    url: httpUrl,
    prompt: z.string().min(1).max(1000).optional().describe('What to find out'),
    schema: schemaInput.describe('JSON Schema the answer follows'),
  })
  .refine((value) => value.prompt !== undefined || value.schema !== undefined, {
    message: 'give a prompt, a schema, or both',
    path: ['prompt'],
  });

export const videoAnalysis = defineOperation({
  name: 'video_analysis',
  title: 'Video analysis',
  description:
    'Answers a prompt (or fills a JSON Schema) about a video from its frames, transcript and metadata. Pro plan; 5 credits.',
  // /v1/extract is the Supadata SDK's name for it (its results: GET /v1/extract/{jobId}).
  http: { method: 'POST', path: '/v1/video/analysis', aliases: ['/v1/extract'] },
  input,
  output: analysisResult,
  groups: ['analysis'],
  plan: 'Pro',
  cost: { reserve: () => 5, settle: (_input, result: { creditsUsed: number }) => result.creditsUsed },
  kind: 'job',
  openWorld: true,
  async check(value, ctx) {
    if (!sourceFor(new URL(value.url))) {
      throw new GleanerError('UNSUPPORTED_URL', `No supported platform for ${value.url}. Supported: ${SOURCES.map((s) => s.platform).join(', ')}.`);
    }
    requireChatModel(ctx, 'video analysis');
  },
  async run(value, ctx) {
    const model = requireChatModel(ctx, 'this analysis (the MCP session that lent its model may have closed, or the server restarted)');
    const url = new URL(value.url);
    const source = sourceFor(url)!;
    let extraCredits = 0;
    const counted: OperationContext = {
      ...ctx,
      reserveCredits: async (amount) => {
        await ctx.reserveCredits(amount);
        extraCredits += amount;
      },
    };
    ctx.progress(0, 4, 'reading metadata');
    const notes: string[] = [];
    // Metadata only adds context: the analysis goes on without it, and says so.
    const metadata: Metadata | null = source.metadata
      ? await source.metadata(url, counted).catch((error: unknown) => {
          if (!isGleanerError(error)) throw error;
          notes.push(`The video's metadata could not be read (${error.code}); the analysis used the transcript only.`);
          return null;
        })
      : null;
    ctx.progress(1, 4, 'reading the transcript');
    const transcript: TranscriptResponse | null = source.transcript ? await source.transcript(url, { timestamps: true }, counted).catch(soft) : null;
    ctx.progress(2, 4, 'sampling frames');
    const frames = await framesOf(source, url, counted, notes);
    if (!metadata && !transcript && frames.length === 0) throw new GleanerError('TRANSCRIPT_UNAVAILABLE', `Neither frames, a transcript nor metadata could be read for ${value.url}.`);
    ctx.progress(3, 4, `asking ${model.name}`);
    const analysis = await analyzeVideo(model, {
      prompt: value.prompt,
      schema: value.schema,
      metadata,
      transcript,
      frames,
      contextChars: ctx.services.config.GLEANER_LLM_CONTEXT_CHARS,
      signal: ctx.signal,
    });
    ctx.progress(4, 4, 'done');
    const { frames: shown, ...answer } = analysis;
    return { ...answer, notes: [...notes, ...answer.notes], frames: { count: shown.length, atSeconds: shown }, url: value.url, creditsUsed: 5 + extraCredits };
  },
});

/** The video's frames, or none with a note saying why (the analysis goes on from the rest). */
async function framesOf(source: Source, url: URL, ctx: OperationContext, notes: string[]): Promise<Frame[]> {
  const max = ctx.services.config.GLEANER_ANALYSIS_MAX_FRAMES;
  if (max === 0 || !source.videoMedia) return [];
  try {
    const media = await source.videoMedia(url, ctx);
    const frames = media ? await videoFrames(media, ctx, max) : [];
    if (frames.length === 0) notes.push('The video gave no pictures to look at (no video stream, or an audio-only file): the analysis used the transcript and metadata.');
    return frames;
  } catch (error) {
    if (!isGleanerError(error)) throw error;
    notes.push(`The video's frames could not be read (${error.code}): the analysis used the transcript and metadata.`);
    return [];
  }
}

/** A part the analysis can do without (no captions, metadata blocked) becomes null; other failures stand. */
function soft(error: unknown): null {
  // UNSUPPORTED_CONTENT: a file without a sound track (a silent video), which its frames may still explain.
  if (isGleanerError(error) && ['TRANSCRIPT_UNAVAILABLE', 'NOT_CONFIGURED', 'CONTENT_UNAVAILABLE', 'UNSUPPORTED_CONTENT'].includes(error.code)) return null;
  throw error;
}
