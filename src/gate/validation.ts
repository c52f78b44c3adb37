import type { z } from 'zod';

/** Turns zod issues into one sentence naming each field and the bound it broke. */
export function describeIssues(issues: z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join('.') : 'request';
    return `${field}: ${issue.message}`;
  });
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  return `Invalid request: ${parts.join('; ')}${more}.`;
}
