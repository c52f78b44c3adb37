import { z } from 'zod';

const REQUIRED = 'is required';

/**
 * The parse options every input is checked with: a field left out reads "url is required" (zod's
 * own words are "expected string, received undefined"). A field's own message comes first.
 */
export const inputParseOptions = { error: (issue: { code?: string; input?: unknown }) => (issue.code === 'invalid_type' && issue.input === undefined ? REQUIRED : undefined) };

/**
 * Turns zod issues into one sentence naming each field and the bound it broke. No "Invalid
 * request:" before it: the error's code (INVALID_REQUEST) already says so wherever it is shown.
 */
export function describeIssues(issues: z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : 'request';
    return issue.message === REQUIRED ? `${field} ${REQUIRED}` : `${field}: ${issue.message}`;
  });
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return `${parts.join('; ')}${more}.`;
}

/**
 * Parameters the operation does not take: a misspelt or unsupported one (`limit` where the
 * operation says `maxPages`) must not be silently ignored. Undefined for a non-object input.
 */
export function unknownParameters(schema: z.ZodType, input: unknown): { unknown: string[]; known: string[] } | undefined {
  if (!(schema instanceof z.ZodObject) || !input || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const known = Object.keys(schema.shape);
  const unknown = Object.keys(input).filter((name) => !known.includes(name));
  return unknown.length ? { unknown, known } : undefined;
}
