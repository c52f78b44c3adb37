/**
 * A chat model behind a small interface: an OpenAI-compatible chat-completions endpoint configured
 * by the operator, or the connected MCP client's own model through sampling.
 */
export interface ChatRequest {
  system: string;
  prompt: string;
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
