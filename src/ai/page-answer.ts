/**
 * Page answers: a summary of a web page, the answer to a question about it, or JSON drawn from it
 * (following a JSON Schema and/or instructions), by a chat model that reads the page's main text.
 * The model reads at most the context budget of the page (its beginning); the answer says so when
 * the page was longer, rather than paying for a condensing pass the caller did not price in.
 */
import type { ChatModel } from './chat.js';
import { askForJson } from './structured.js';

export type PageAnswerKind = 'summary' | 'answer' | 'json';

export interface PageAnswerRequest {
  kind: PageAnswerKind;
  /** summary: what to focus on; answer: the question; json: what to draw out. */
  prompt?: string;
  /** json: the JSON Schema the answer must follow. */
  schema?: Record<string, unknown>;
  page: { url: string; title: string | null; content: string };
  /** Characters of the page the model may read. */
  contextChars: number;
  signal?: AbortSignal;
}

export interface PageAnswer {
  /** Text for summary and answer; a JSON value for json. */
  data: unknown;
  model: string;
  notes: string[];
}

const SYSTEM =
  'You read web pages for someone who has not opened them. Use only what the page says: do not add facts from elsewhere. ' +
  'When the page does not hold what is asked, say so plainly (in JSON, leave the value out or null where the schema allows).';

function task(request: PageAnswerRequest): string {
  switch (request.kind) {
    case 'summary':
      return `Task: summarise this page in a few short paragraphs or bullet points, keeping its key facts, names and figures.${request.prompt ? ` Focus: ${request.prompt}` : ''}`;
    case 'answer':
      return `Task: answer this question from the page, briefly and directly: ${request.prompt}`;
    case 'json':
      return `Task: ${request.prompt ?? 'draw the data out of the page'}. Answer with JSON only.`;
  }
}

export async function answerPage(model: ChatModel, request: PageAnswerRequest): Promise<PageAnswer> {
  const notes: string[] = [];
  let text = request.page.content;
  if (text.length > request.contextChars) {
    notes.push(`The page's text (${text.length} characters) is longer than the model's budget (${request.contextChars}): the model read its first ${request.contextChars} characters.`);
    text = text.slice(0, request.contextChars);
  }
  const question = `${task(request)}\n\nPage: ${request.page.title ? `${request.page.title} — ` : ''}${request.page.url}\n\n${text || '(the page has no text)'}`;
  if (request.kind !== 'json') {
    const answer = await model.complete({ system: SYSTEM, prompt: question, signal: request.signal });
    return { data: answer.trim(), model: model.name, notes };
  }
  const { value, retried } = await askForJson(
    (rejected) => model.complete({ system: SYSTEM, prompt: `${question}${rejected}`, schema: request.schema, signal: request.signal }),
    request.schema,
  );
  if (retried) notes.push('The first answer did not follow the schema; the model corrected it on a retry.');
  return { data: value, model: model.name, notes };
}
