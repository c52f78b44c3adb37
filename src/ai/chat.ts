/**
 * A chat model behind a small interface: an OpenAI-compatible chat-completions endpoint configured
 * by the operator, or the connected MCP client's own model through sampling.
 */
/** A picture sent with the prompt: a frame of a video, with the moment it shows. */
export interface ChatImage {
  /** JPEG bytes. */
  jpeg: Buffer;
  /** Where in the video, in seconds. */
  atSeconds: number;
}

export interface ChatRequest {
  system: string;
  prompt: string;
  /** Pictures after the prompt, each labelled with its moment; only for a model that can see. */
  images?: ChatImage[];
  /** A JSON Schema the answer must follow; the model is asked for JSON only. */
  schema?: Record<string, unknown>;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface ChatModel {
  /** Who answers, for logs and replies (e.g. "openai-compatible:gpt-4o-mini", "mcp-sampling"). */
  readonly name: string;
  complete(request: ChatRequest): Promise<string>;
}

/**
 * The model (or the client lending it) says it cannot take pictures: the caller may ask again
 * without them.
 */
export class ImagesRefused extends Error {
  constructor(readonly detail: string) {
    super(`the model does not take images: ${detail}`);
    this.name = 'ImagesRefused';
  }
}

/** How endpoints word a refusal of image input (OpenAI, vLLM, Ollama, LM Studio, llama.cpp, MCP clients). */
export const IMAGE_REFUSAL = /image|vision|multi-?modal|image_url|mime type/i;

/** "mm:ss" (or "h:mm:ss") of a moment, as timestamps are written in prompts and answers. */
export function clock(ms: number): string {
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mm = String(m).padStart(2, '0');
  const ss = String(s).padStart(2, '0');
  return h ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}
