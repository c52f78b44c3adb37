/**
 * Page answers on web_scrape and web_crawl: `format` summary, answer or json has a chat model read
 * the page (its markdown) and reply instead of the page's text — the configured model
 * (GLEANER_LLM_URL) or, over MCP, the client's own, as video analysis does. Priced per page on top
 * of the page's own price; see docs/page-answers.md for the choices.
 */
import { z } from 'zod';
import { schemaProblem } from '../ai/json-schema.js';
import { answerPage, type PageAnswerKind } from '../ai/page-answer.js';
import { requireChatModel } from '../ai/model-choice.js';
import type { ChatModel } from '../ai/chat.js';
import type { CheckContext, OperationContext } from './define.js';
import type { ScrapeResult } from '../web/scrape.js';
import type { CrawledPage } from '../web/crawl.js';

export const ANSWER_KINDS = ['summary', 'answer', 'json'] as const;

/** The content formats, then the answers a model gives about the page. */
export const pageFormat = z.enum(['markdown', 'text', 'html', ...ANSWER_KINDS]).default('markdown');

/** Credits a page answer adds to the page's price: a json answer may take a second call (the retry). */
export const ANSWER_CREDITS: Record<PageAnswerKind, number> = { summary: 2, answer: 2, json: 3 };

/** Longest prompt: it goes to the model with every page (the schema's bounds are in ai/json-schema.ts). */
export const MAX_PROMPT_CHARS = 2_000;

// No .describe() on these two: the tool descriptions say what each goes with (the tool list's budget).
export const promptInput = z.string().trim().min(1).max(MAX_PROMPT_CHARS).optional();

/** A caller's JSON Schema: bounded, then compiled (the gate took the call's rate token before parsing it). */
export const schemaInput = z
  .record(z.string(), z.unknown())
  .optional()
  .superRefine((schema, ctx) => {
    const problem = schema === undefined ? undefined : schemaProblem(schema);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export interface AnswerInput {
  format: z.output<typeof pageFormat>;
  prompt?: string;
  schema?: Record<string, unknown>;
}

export function answerKind(input: AnswerInput): PageAnswerKind | undefined {
  return (ANSWER_KINDS as readonly string[]).includes(input.format) ? (input.format as PageAnswerKind) : undefined;
}

/** Credits one page's answer adds (0 for the page's own text). */
export function answerPrice(input: AnswerInput): number {
  const kind = answerKind(input);
  return kind ? ANSWER_CREDITS[kind] : 0;
}

/** The format the page is read in: what was asked, or markdown for the model to read. */
export function contentFormat(input: AnswerInput): 'markdown' | 'text' | 'html' {
  return answerKind(input) ? 'markdown' : (input.format as 'markdown' | 'text' | 'html');
}

/** The pairings `prompt` and `schema` need, as zod issues (refused before anything is charged). */
export function checkAnswerInput(input: AnswerInput, ctx: z.RefinementCtx): void {
  const kind = answerKind(input);
  if (kind === 'answer' && input.prompt === undefined) ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'format=answer needs the question in prompt' });
  if (kind === 'json' && input.prompt === undefined && input.schema === undefined) ctx.addIssue({ code: 'custom', path: ['schema'], message: 'format=json needs a schema, a prompt, or both' });
  if (!kind && input.prompt !== undefined) ctx.addIssue({ code: 'custom', path: ['prompt'], message: 'goes with format summary, answer or json' });
  if (kind !== 'json' && input.schema !== undefined) ctx.addIssue({ code: 'custom', path: ['schema'], message: 'goes with format json' });
}

/** No model to answer: refused before the page is read or charged (NOT_CONFIGURED names GLEANER_LLM_URL). */
export function assertAnswerable(input: AnswerInput, ctx: CheckContext): void {
  const kind = answerKind(input);
  if (kind) requireChatModel(ctx, `format=${kind}`);
}

/** The answerer of one call: the page's reply with the model's answer in place of its text. */
export function pageAnswerer(input: AnswerInput, ctx: OperationContext): (<P extends CrawledPage | ScrapeResult>(page: P) => Promise<P>) | undefined {
  const kind = answerKind(input);
  if (!kind) return undefined;
  const model: ChatModel = requireChatModel(ctx, `format=${kind} (the MCP session that lent its model may have closed)`);
  return async (page) => {
    const answer = await answerPage(model, {
      kind,
      prompt: input.prompt,
      schema: input.schema,
      page: { url: page.url, title: page.title, content: page.content },
      contextChars: ctx.services.config.GLEANER_LLM_CONTEXT_CHARS,
      signal: ctx.signal,
    });
    const content = typeof answer.data === 'string' ? answer.data : JSON.stringify(answer.data);
    const warnings = [...(page.warnings ?? []), ...answer.notes];
    // The page's links are its content too: an answer alone was asked (scrape the page for them).
    const links = 'urls' in page ? { urls: [] } : {};
    return {
      ...page,
      ...links,
      content,
      format: kind,
      countCharacters: content.length,
      ...(kind === 'json' ? { data: answer.data } : {}),
      model: answer.model,
      ...(warnings.length ? { warnings } : {}),
    };
  };
}
