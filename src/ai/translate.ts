/**
 * AI translation of transcript segments, in batches, keeping every segment's timing: the model
 * sees numbered texts and must return the same numbers, so no segment is merged, lost or shifted.
 */
import type { ChatModel } from './chat.js';
import { GleanerError } from '../errors.js';
import type { TranscriptSegment } from '../model/content.js';

const BATCH = 40;

const answerSchema = {
  type: 'object',
  properties: {
    segments: {
      type: 'array',
      items: { type: 'object', properties: { i: { type: 'integer' }, text: { type: 'string' } }, required: ['i', 'text'] },
    },
  },
  required: ['segments'],
};

export async function translateSegments(model: ChatModel, segments: TranscriptSegment[], targetLang: string, signal?: AbortSignal): Promise<TranscriptSegment[]> {
  const translated: TranscriptSegment[] = [];
  for (let start = 0; start < segments.length; start += BATCH) {
    const batch = segments.slice(start, start + BATCH);
    const texts = await translateBatch(model, batch, targetLang, signal);
    batch.forEach((segment, i) => translated.push({ ...segment, text: texts[i], lang: targetLang }));
  }
  return translated;
}

async function translateBatch(model: ChatModel, batch: TranscriptSegment[], targetLang: string, signal?: AbortSignal): Promise<string[]> {
  const numbered = batch.map((segment, i) => ({ i, text: segment.text }));
  let problem = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    const answer = await model.complete({
      system: 'You translate video subtitles faithfully and naturally. Keep each numbered segment separate; never merge or split segments.',
      prompt: `Translate the "text" of every segment into the language with code "${targetLang}". Return {"segments":[{"i":<same number>,"text":<translation>}]} with exactly ${batch.length} segments.${problem ? `\nA previous answer was rejected: ${problem}` : ''}\n\n${JSON.stringify(numbered)}`,
      schema: answerSchema,
      maxTokens: 4_000,
      signal,
    });
    try {
      const parsed = JSON.parse(answer.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '')) as { segments?: Array<{ i: number; text: string }> };
      const byIndex = new Map((parsed.segments ?? []).map((s) => [s.i, s.text]));
      const texts = numbered.map((s) => byIndex.get(s.i));
      if (texts.every((t): t is string => typeof t === 'string')) return texts;
      problem = `segments ${numbered.filter((_, i) => typeof texts[i] !== 'string').map((s) => s.i).join(', ')} were missing`;
    } catch (error) {
      problem = `not valid JSON (${(error as Error).message})`;
    }
  }
  throw new GleanerError('UPSTREAM_ERROR', `The language model did not return a usable translation: ${problem}.`);
}
