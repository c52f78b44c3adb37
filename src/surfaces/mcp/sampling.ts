/**
 * A chat request of Gleaner's as the params of an MCP sampling request (sampling/createMessage):
 * the same message whether it goes to a 2025 client as a request or to a 2026-07-28 client inside an
 * input_required result.
 */
import { clock, type ChatRequest } from '../../ai/chat.js';

export interface SamplingParams {
  systemPrompt: string;
  messages: Array<{ role: 'user'; content: { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string } }>;
  maxTokens: number;
  includeContext: 'none';
}

export function samplingParams(request: ChatRequest): SamplingParams {
  const schemaNote = request.schema
    ? `\n\nAnswer with one JSON value only, no prose and no code fence, that validates against this JSON Schema:\n${JSON.stringify(request.schema)}`
    : '';
  // Frames go as image messages, each after a text message naming its moment.
  const pictures = (request.images ?? []).flatMap((image) => [
    { role: 'user' as const, content: { type: 'text' as const, text: `Frame at ${clock(image.atSeconds * 1000)}:` } },
    { role: 'user' as const, content: { type: 'image' as const, data: image.jpeg.toString('base64'), mimeType: 'image/jpeg' } },
  ]);
  return {
    systemPrompt: request.system,
    messages: [{ role: 'user', content: { type: 'text', text: `${request.prompt}${schemaNote}` } }, ...pictures],
    maxTokens: request.maxTokens ?? 2_000,
    includeContext: 'none',
  };
}

/** The text of a sampling result's content (one block or several). */
export function sampledText(content: unknown): string {
  const parts = Array.isArray(content) ? content : [content];
  return parts.map((part) => (part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
}
