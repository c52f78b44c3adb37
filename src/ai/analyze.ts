/**
 * Video analysis: a prompt and/or a JSON Schema applied to a video's transcript and metadata by a
 * chat model. Answers to a schema are validated, and the model gets one retry with the errors.
 * A transcript longer than the context budget is condensed in parts first, and the reply says so.
 */
import type { ChatModel } from './chat.js';
import { compileSchema, describeValidationErrors } from './json-schema.js';
import { GleanerError } from '../errors.js';
import type { Metadata, TranscriptResponse } from '../platforms/types.js';

export interface AnalysisRequest {
  prompt?: string;
  schema?: Record<string, unknown>;
  metadata: Metadata | null;
  transcript: TranscriptResponse | null;
  /** Characters of transcript the model may see at once. */
  contextChars: number;
  signal?: AbortSignal;
}

const TEXT_ANSWER_SCHEMA = { type: 'string' };

export interface AnalysisResult {
  data: unknown;
  schema: Record<string, unknown>;
  model: string;
  notes: string[];
}

const SYSTEM = 'You analyse videos from their transcript and metadata. Be faithful to the material: do not invent facts that are not in it.';

export function transcriptText(transcript: TranscriptResponse): string {
  if (typeof transcript.content === 'string') return transcript.content;
  return transcript.content
    .map((segment) => (segment.offset !== undefined ? `[${clock(segment.offset)}] ${segment.text}` : segment.text))
    .join('\n');
}

function clock(ms: number): string {
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(s).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

function chunks(text: string, size: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const cut = rest.lastIndexOf('\n', size);
    const at = cut > size / 2 ? cut : size;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  if (rest) parts.push(rest);
  return parts;
}

function describeTask(request: AnalysisRequest): string {
  const parts = [];
  if (request.prompt) parts.push(`Task: ${request.prompt}`);
  if (request.schema) parts.push(`The answer must be JSON following this schema: ${JSON.stringify(request.schema)}`);
  return parts.join('\n');
}

function metadataText(metadata: Metadata | null): string {
  if (!metadata) return '(no metadata)';
  const { platform, title, description, author, publishedAt, durationSeconds, counts, tags } = metadata;
  return JSON.stringify({ platform, title, description, author: author?.name, publishedAt, durationSeconds, counts, tags });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch (error) {
    return { ok: false, error: `not valid JSON (${(error as Error).message})` };
  }
}

export async function analyzeVideo(model: ChatModel, request: AnalysisRequest): Promise<AnalysisResult> {
  const notes: string[] = [];
  let material = request.transcript ? transcriptText(request.transcript) : '';
  if (!request.transcript) notes.push('No transcript was available: the analysis used the metadata only.');

  if (material.length > request.contextChars) {
    const parts = chunks(material, request.contextChars);
    const condensed: string[] = [];
    for (const [index, part] of parts.entries()) {
      condensed.push(
        await model.complete({
          system: SYSTEM,
          prompt: `${describeTask(request)}\n\nThis is part ${index + 1} of ${parts.length} of a video transcript. Write compact notes of everything in it that the task needs, keeping timestamps.\n\n${part}`,
          maxTokens: 1_500,
          signal: request.signal,
        }),
      );
    }
    notes.push(`The transcript (${material.length} characters) was longer than the model's budget (${request.contextChars}); it was condensed in ${parts.length} parts before the final answer.`);
    material = condensed.map((c, i) => `Notes on part ${i + 1}:\n${c}`).join('\n\n');
  }

  const question = `${describeTask(request) || 'Task: summarise the video.'}\n\nVideo metadata: ${metadataText(request.metadata)}\n\nTranscript:\n${material || '(none)'}`;

  if (!request.schema) {
    const answer = await model.complete({ system: SYSTEM, prompt: question, signal: request.signal });
    // With a prompt alone the answer is text: `schema` says so, as the reply shape asks.
    return { data: answer.trim(), schema: TEXT_ANSWER_SCHEMA, model: model.name, notes };
  }

  const validate = compileSchema(request.schema);
  let prompt = question;
  let problem = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    const answer = await model.complete({ system: SYSTEM, prompt, schema: request.schema, signal: request.signal });
    const parsed = parseJson(answer);
    if (parsed.ok && validate(parsed.value)) {
      if (attempt > 1) notes.push('The first answer did not follow the schema; the model corrected it on a retry.');
      return { data: parsed.value, schema: request.schema, model: model.name, notes };
    }
    problem = parsed.ok ? describeValidationErrors(validate) : parsed.error;
    prompt = `${question}\n\nYour previous answer was:\n${answer}\n\nIt was rejected: ${problem}. Answer again with JSON that follows the schema exactly.`;
  }
  throw new GleanerError('UPSTREAM_ERROR', `The model's answer did not follow the schema, even after a retry: ${problem}.`);
}
