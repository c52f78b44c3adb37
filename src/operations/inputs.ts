/** Input fields several operations share, defined once so their bounds and messages agree. */
import { z } from 'zod';
import { cssSelectorProblem } from '../web/selector.js';
import { actionsProblem, MAX_ACTIONS } from '../web/render/actions.js';

/**
 * A URL the user gives: http or https only (the SSRF guard checks where it leads). A missing one is
 * left to the parse's own message ("url is required", see gate/validation.ts), not called a bad URL.
 */
export const httpUrl = z.url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? undefined : 'must be an http or https URL') });

/** Whether a web page is rendered in a browser first (web/render/load.ts says what each mode does). */
export const renderMode = z
  .enum(['never', 'auto', 'always'])
  .default('auto')
  .describe('auto: a browser if needed (extra cost)');

/** Longest `waitFor` in milliseconds; the page deadline (GLEANER_RENDER_TIMEOUT_MS) bounds it too. */
export const WAIT_FOR_MAX_MS = 15_000;

/**
 * A selector is checked here, before a scrape is charged or a crawl or map job starts: a bad one
 * would fail in the browser on every page (web/selector.ts). Digits alone are milliseconds.
 */
const waitForSelector = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .superRefine((value, ctx) => {
    if (/^\d+$/.test(value)) return;
    const problem = cssSelectorProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `"${value}" is not a valid CSS selector (${problem}); give milliseconds or a CSS selector such as #content or article .body` });
  });

export const waitForInput = z
  .union([z.number().int().min(0).max(WAIT_FOR_MAX_MS), waitForSelector])
  .optional()
  .describe('If rendered: ms or CSS selector');

/** A BCP 47-like language code: en, de, pt-BR, zh-Hans (pt_BR is accepted too). */
export const languageCode = z.string().max(35).regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/, 'must be a language code such as en, de or pt-BR');

/** Browser actions (web/render/actions.ts: one string each), refused with their index before anything is charged. */
export const actionsInput = z
  // Each string's length is checked by actionsProblem: a maxLength in the schema would cost every MCP tool list.
  .array(z.string().min(1))
  .max(MAX_ACTIONS)
  .superRefine((actions, ctx) => {
    const problem = actionsProblem(actions);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .optional()
  .describe('click:CSS type:CSS=TEXT press:KEY scroll wait:MS');

/** A PNG of the rendered page (web/render/screenshot.ts). */
export const screenshotInput = z.enum(['viewport', 'fullPage']).optional().describe('PNG, +1 credit');
