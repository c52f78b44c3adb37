/**
 * Video analysis: a prompt and/or a JSON Schema applied to a video's frames, transcript and metadata
 * by a chat model. Answers to a schema are validated, and the model gets one retry with the errors.
 * A transcript longer than the context budget is condensed in parts first, and the reply says so.
 * A model that cannot take pictures is asked again without them, and the reply says that too.
 */
import { clock, ImagesRefused, type ChatImage, type ChatModel } from './chat.js';
import { askForJson } from './structured.js';
import type { Metadata, TranscriptResponse } from '../model/content.js';

export interface AnalysisRequest {
  prompt?: string;
  schema?: Record<string, unknown>;
  metadata: Metadata | null;
  transcript: TranscriptResponse | null;
  /** Frames sampled from the video, in time order (none when the video gave none). */
  frames?: ChatImage[];
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
  /** The moments (seconds) of the frames the model was shown; empty when it saw none. */
  frames: number[];
}

const SYSTEM =
  'You analyse videos from their frames (pictures taken at the moments given), timestamped transcript and metadata. ' +
  'Be faithful to the material: do not invent facts that are not in it. When you state something that happens at a moment, give its timestamp as [mm:ss].';

export function transcriptText(transcript: TranscriptResponse): string {
  if (typeof transcript.content === 'string') return transcript.content;
  return transcript.content
    .map((segment) => (segment.offset !== undefined ? `[${clock(segment.offset)}] ${segment.text}` : segment.text))
    .join('\n');
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

export async function analyzeVideo(model: ChatModel, request: AnalysisRequest): Promise<AnalysisResult> {
  const notes: string[] = [];
  let material = request.transcript ? transcriptText(request.transcript) : '';
  if (!request.transcript) notes.push(request.frames?.length ? 'No transcript was available: the analysis used the frames and metadata.' : 'No transcript was available: the analysis used the metadata only.');

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

  let images = request.frames ?? [];
  const framesLine = (shown: ChatImage[]) =>
    shown.length ? `\n\n${shown.length} frames of the video follow, each after its timestamp (${shown.map((f) => clock(f.atSeconds * 1000)).join(', ')}).` : '';
  const question = (shown: ChatImage[]) =>
    `${describeTask(request) || 'Task: summarise the video.'}\n\nVideo metadata: ${metadataText(request.metadata)}\n\nTranscript:\n${material || '(none)'}${framesLine(shown)}`;
  /** One call with the frames; a model that refuses pictures is asked once more without them. */
  const ask = async (prompt: (shown: ChatImage[]) => string, schema?: Record<string, unknown>): Promise<string> => {
    try {
      return await model.complete({ system: SYSTEM, prompt: prompt(images), schema, signal: request.signal, ...(images.length ? { images } : {}) });
    } catch (error) {
      if (!(error instanceof ImagesRefused) || images.length === 0) throw error;
      notes.push(`The model (${model.name}) does not take images (${error.detail.slice(0, 160)}): the analysis used the transcript and metadata only.`);
      images = [];
      return model.complete({ system: SYSTEM, prompt: prompt(images), schema, signal: request.signal });
    }
  };
  const seen = () => images.map((frame) => frame.atSeconds);

  if (!request.schema) {
    const answer = await ask(question);
    // With a prompt alone the answer is text: `schema` says so, as the reply shape asks.
    return { data: answer.trim(), schema: TEXT_ANSWER_SCHEMA, model: model.name, notes, frames: seen() };
  }

  const { value, retried } = await askForJson((rejected) => ask((shown) => `${question(shown)}${rejected}`, request.schema), request.schema);
  if (retried) notes.push('The first answer did not follow the schema; the model corrected it on a retry.');
  return { data: value, schema: request.schema, model: model.name, notes, frames: seen() };
}
