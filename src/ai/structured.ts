/**
 * A JSON answer from a chat model, checked: parsed, validated against the caller's JSON Schema when
 * there is one, and asked again once with the errors when it fails. Video analysis and page answers
 * both ask this way, so both refuse the same answers with the same words.
 */
import { GleanerError } from '../errors.js';
import { compileSchema, describeValidationErrors } from './json-schema.js';

/** The model's answer never became JSON that follows the schema: the call fails, and charges nothing. */
export class SchemaMismatch extends GleanerError {
  constructor(problem: string) {
    super('UPSTREAM_ERROR', `The model's answer did not follow the schema, even after a retry: ${problem}.`);
  }
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch (error) {
    return { ok: false, error: `not valid JSON (${(error as Error).message})` };
  }
}

/**
 * `ask(rejected)` puts one question to the model; `rejected` is empty the first time, then says what
 * was wrong with the previous answer. Without a schema any JSON value will do.
 */
export async function askForJson(ask: (rejected: string) => Promise<string>, schema: Record<string, unknown> | undefined): Promise<{ value: unknown; retried: boolean }> {
  const validate = schema ? compileSchema(schema) : undefined;
  let rejected = '';
  let problem = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    const answer = await ask(rejected);
    const parsed = parseJson(answer);
    if (parsed.ok && (!validate || validate(parsed.value))) return { value: parsed.value, retried: attempt > 1 };
    problem = parsed.ok ? describeValidationErrors(validate!) : parsed.error;
    const wanted = schema ? 'JSON that follows the schema exactly' : 'one JSON value only';
    rejected = `\n\nYour previous answer was:\n${answer}\n\nIt was rejected: ${problem}. Answer again with ${wanted}.`;
  }
  throw new SchemaMismatch(problem);
}
