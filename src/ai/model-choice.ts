/**
 * Which language model answers a call: the configured endpoint when there is one (the operator
 * chose it, its cost is known, it supports structured output), else the MCP client's own model
 * through sampling.
 */
import { GleanerError } from '../errors.js';
import type { ChatModel } from './chat.js';

/** Where a model can come from: the operator's endpoint, or the MCP client's through sampling. */
export interface ModelSources {
  services: { chat?: ChatModel };
  sampling?: ChatModel;
}

export function chatModelFor(ctx: ModelSources): ChatModel | undefined {
  return ctx.services.chat ?? ctx.sampling;
}

/** The model, or NOT_CONFIGURED saying what it was needed for and how to provide one. */
export function requireChatModel(ctx: ModelSources, neededFor: string): ChatModel {
  const model = chatModelFor(ctx);
  if (model) return model;
  throw new GleanerError(
    'NOT_CONFIGURED',
    `No language model is available for ${neededFor}: set GLEANER_LLM_URL (with GLEANER_LLM_API_KEY and GLEANER_LLM_MODEL) to an OpenAI-compatible endpoint, or call over MCP from a client that supports sampling.`,
  );
}
