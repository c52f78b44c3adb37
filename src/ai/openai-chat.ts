/**
 * An OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, vLLM, LM Studio, OpenRouter ...).
 * Asks for JSON-schema structured output where a schema is given; an endpoint that refuses that
 * option is asked again for plain JSON, and the caller validates the answer either way.
 */
import type { HttpClient } from '../net/http.js';
import { endpointUrl } from './endpoint.js';
import { GleanerError } from '../errors.js';
import { clock, IMAGE_REFUSAL, ImagesRefused, type ChatModel, type ChatRequest } from './chat.js';

export interface OpenAiChatOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

interface ChatCompletion {
  choices?: Array<{ message?: { content?: string | null } }>;
  error?: { message?: string };
}

export function openAiChatModel(http: HttpClient, options: OpenAiChatOptions): ChatModel {
  const endpoint = endpointUrl(options.baseUrl, 'chat/completions');

  async function post(request: ChatRequest, responseFormat: Record<string, unknown> | undefined) {
    const schemaNote = request.schema ? `\n\nAnswer with one JSON value only that validates against this JSON Schema:\n${JSON.stringify(request.schema)}` : '';
    const text = `${request.prompt}${schemaNote}`;
    // Pictures go as image_url parts (data URLs), each after a line naming its moment.
    const user = request.images?.length
      ? [
          { type: 'text', text },
          ...request.images.flatMap((image) => [
            { type: 'text', text: `Frame at ${clock(image.atSeconds * 1000)}:` },
            { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${image.jpeg.toString('base64')}`, detail: 'low' } },
          ]),
        ]
      : text;
    const body = {
      model: options.model,
      messages: [
        { role: 'system', content: request.system },
        { role: 'user', content: user },
      ],
      max_tokens: request.maxTokens ?? 2_000,
      temperature: 0.2,
      ...(responseFormat ? { response_format: responseFormat } : {}),
    };
    return http.fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      body: JSON.stringify(body),
      timeoutMs: options.timeoutMs ?? 120_000,
      signal: request.signal,
      // The endpoint is operator configuration (GLEANER_LLM_URL), often a local server: not a user URL.
      guard: false,
    });
  }

  return {
    name: `openai-compatible:${options.model}`,
    async complete(request) {
      const structured = request.schema ? { type: 'json_schema', json_schema: { name: 'answer', schema: request.schema, strict: false } } : undefined;
      let response = await post(request, structured);
      if (structured && response.status === 400) {
        // Older or smaller servers know only JSON mode; the schema is still in the prompt.
        response = await post(request, { type: 'json_object' });
      }
      let completion: ChatCompletion = {};
      try {
        completion = response.json<ChatCompletion>();
      } catch {
        /* reported below */
      }
      if (response.status >= 400 && response.status < 500 && request.images?.length) {
        const detail = completion.error?.message ?? response.text().slice(0, 200);
        if (IMAGE_REFUSAL.test(detail)) throw new ImagesRefused(detail);
      }
      if (response.status >= 400) {
        throw new GleanerError('UPSTREAM_ERROR', `The language model at ${new URL(endpoint).host} answered ${response.status}: ${completion.error?.message ?? response.text().slice(0, 200)}`);
      }
      const content = completion.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new GleanerError('UPSTREAM_ERROR', 'The language model returned no message content.');
      return content;
    },
  };
}
