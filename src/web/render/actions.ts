/**
 * Browser actions run on a rendered page before its content is read (a "Load more" button, a cookie
 * wall, a tab, a search box). Each action is one short string, so that the list costs a model little
 * to read in the tool list and travels in a query string as well as in JSON:
 *
 *   click:<css>          click the first element matching the selector (waits for it)
 *   type:<css>=<text>    fill the element with the text (the first `=` outside [] and quotes splits)
 *   press:<key>          a key, as Playwright names it: Enter, Tab, ArrowDown, Control+a, a
 *   scroll[:down|up[:px]] | scroll:bottom | scroll:top
 *   wait:<ms> | wait:<css>
 *
 * Parsing is here (below the operations, which refuse a bad action with a 400 naming its index before
 * anything is charged); running is here too, inside the render's deadline (page-render.ts).
 */
import type { Page } from 'playwright-core';
import { GleanerError } from '../../errors.js';
import { cssSelectorProblem } from '../selector.js';

export type BrowserAction =
  | { type: 'click'; selector: string }
  | { type: 'type'; selector: string; text: string }
  | { type: 'press'; key: string }
  | { type: 'scroll'; direction: 'down' | 'up' | 'bottom' | 'top'; pixels?: number }
  | { type: 'wait'; selector: string }
  | { type: 'wait'; milliseconds: number };

/** The most actions one call may ask for. */
export const MAX_ACTIONS = 20;
/** One action's text at most (a selector, or a selector and the text to type). */
export const MAX_ACTION_CHARS = 1_000;
/** One `wait:<ms>`, and all of a call's `wait:<ms>` together, at most (the page deadline bounds them too). */
export const MAX_ACTION_WAIT_MS = 15_000;
/** The largest `scroll:down:<px>`. */
export const MAX_SCROLL_PX = 100_000;
/** How long an action waits for its selector to match, at most (less when the page deadline is nearer). */
export const ACTION_SELECTOR_WAIT_MS = 10_000;

const KEY = /^(?:[A-Za-z0-9]+(?:\+[A-Za-z0-9]+)*|[+]|[^\sA-Za-z0-9])$/;

/** The selector and the text of `type:<css>=<text>`: split at the first `=` outside brackets and quotes. */
function splitTyped(rest: string): [string, string] | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === '=' && depth === 0) return [rest.slice(0, i).trim(), rest.slice(i + 1)];
  }
  return undefined;
}

function selectorOf(selector: string): string | { problem: string } {
  if (!selector) return { problem: 'a CSS selector is missing' };
  const problem = cssSelectorProblem(selector);
  return problem ? { problem: `"${selector}" is not a valid CSS selector (${problem})` } : selector;
}

/** The action a string names, or why it names none. */
export function parseAction(text: string): BrowserAction | { problem: string } {
  const colon = text.indexOf(':');
  const verb = (colon < 0 ? text : text.slice(0, colon)).trim().toLowerCase();
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  switch (verb) {
    case 'click': {
      const selector = selectorOf(rest.trim());
      return typeof selector === 'string' ? { type: 'click', selector } : selector;
    }
    case 'type': {
      const parts = splitTyped(rest);
      if (!parts) return { problem: 'type needs a selector and the text, as type:<css>=<text>' };
      const selector = selectorOf(parts[0]);
      return typeof selector === 'string' ? { type: 'type', selector, text: parts[1] } : selector;
    }
    case 'press': {
      const key = rest.trim();
      if (!KEY.test(key) || key.length > 40) return { problem: `"${key}" is not a key (Enter, Tab, ArrowDown, Control+a, a single character)` };
      return { type: 'press', key };
    }
    case 'scroll': {
      const [direction = 'down', amount, extra] = rest.trim() ? rest.trim().split(':') : [];
      if (extra !== undefined || !['down', 'up', 'bottom', 'top'].includes(direction)) return { problem: 'scroll takes down, up, bottom or top, and for down or up pixels (scroll:down:1500)' };
      if (amount === undefined) return { type: 'scroll', direction: direction as 'down' | 'up' | 'bottom' | 'top' };
      const pixels = Number(amount);
      if ((direction !== 'down' && direction !== 'up') || !/^\d+$/.test(amount) || pixels < 1 || pixels > MAX_SCROLL_PX) {
        return { problem: `scroll:down and scroll:up take 1 to ${MAX_SCROLL_PX} pixels` };
      }
      return { type: 'scroll', direction: direction as 'down' | 'up', pixels };
    }
    case 'wait': {
      const value = rest.trim();
      if (/^\d+$/.test(value)) {
        const milliseconds = Number(value);
        if (milliseconds < 1 || milliseconds > MAX_ACTION_WAIT_MS) return { problem: `wait takes 1 to ${MAX_ACTION_WAIT_MS} milliseconds` };
        return { type: 'wait', milliseconds };
      }
      const selector = selectorOf(value);
      return typeof selector === 'string' ? { type: 'wait', selector } : selector;
    }
    default:
      return { problem: `"${verb}" is not an action (click, type, press, scroll, wait)` };
  }
}

/** Why a list of actions is refused (its index named), or undefined. */
export function actionsProblem(actions: string[]): string | undefined {
  let waited = 0;
  for (const [index, text] of actions.entries()) {
    if (text.length > MAX_ACTION_CHARS) return `actions[${index}]: at most ${MAX_ACTION_CHARS} characters`;
    const action = parseAction(text);
    if ('problem' in action) return `actions[${index}]: ${action.problem}`;
    if (action.type === 'wait' && 'milliseconds' in action) waited += action.milliseconds;
  }
  if (waited > MAX_ACTION_WAIT_MS) return `the waits of actions add up to ${waited} ms; at most ${MAX_ACTION_WAIT_MS} ms in all`;
  return undefined;
}

/** How the render lets the actions run: its time left, its bounded calls, and a wait for the page to settle. */
export interface ActionRun {
  /** Milliseconds left before the waits must end (the page deadline, less the time kept to read). */
  remaining: () => number;
  /** Races a browser call against the page deadline. */
  bound: <T>(work: Promise<T>) => Promise<T>;
  /** Waits (bounded) for the page to load and its network to be quiet after an action. */
  settle: () => Promise<void>;
}

function describe(action: BrowserAction): string {
  switch (action.type) {
    case 'click':
      return `click "${action.selector}"`;
    case 'type':
      return `type into "${action.selector}"`;
    case 'press':
      return `press ${action.key}`;
    case 'scroll':
      return `scroll ${action.direction}`;
    case 'wait':
      return 'selector' in action ? `wait for "${action.selector}"` : `wait ${action.milliseconds} ms`;
  }
}

/**
 * Runs the actions in order. An action whose selector matches nothing in time is a 400 naming its
 * index (the request does not fit the page; nothing is charged); the page deadline ends the whole
 * render as any other wait does (the caller turns that into UPSTREAM_TIMEOUT).
 */
export async function runActions(page: Page, actions: BrowserAction[], run: ActionRun, signal: AbortSignal): Promise<void> {
  for (const [index, action] of actions.entries()) {
    const selectorWait = () => Math.max(1, Math.min(run.remaining(), ACTION_SELECTOR_WAIT_MS));
    try {
      switch (action.type) {
        case 'click':
          await run.bound(page.locator(`css=${action.selector}`).first().click({ timeout: selectorWait() }));
          break;
        case 'type':
          await run.bound(page.locator(`css=${action.selector}`).first().fill(action.text, { timeout: selectorWait() }));
          break;
        case 'press':
          await run.bound(page.keyboard.press(action.key));
          break;
        case 'scroll':
          await run.bound(page.evaluate(scrollScript(action.direction, action.pixels)));
          break;
        case 'wait':
          if ('selector' in action) await run.bound(page.waitForSelector(`css=${action.selector}`, { state: 'attached', timeout: selectorWait() }));
          else await run.bound(page.waitForTimeout(Math.min(action.milliseconds, run.remaining())));
          break;
      }
    } catch (error) {
      if (signal.aborted || error instanceof GleanerError) throw error;
      const message = String((error as Error).message).split('\n')[0];
      if (/Timeout \d+ms exceeded/.test(message)) {
        throw new GleanerError(
          'INVALID_REQUEST',
          `actions[${index}] (${describe(action)}): no element matched, or it could not be acted on, within ${selectorWait() < ACTION_SELECTOR_WAIT_MS ? 'the page deadline' : `${ACTION_SELECTOR_WAIT_MS / 1000} s`}; nothing was charged.`,
        );
      }
      if (/Unknown key/i.test(message)) throw new GleanerError('INVALID_REQUEST', `actions[${index}] (${describe(action)}): the browser does not know that key; nothing was charged.`);
      throw new GleanerError('UPSTREAM_ERROR', `actions[${index}] (${describe(action)}) failed in the browser: ${message}`, { cause: error });
    }
    // What the action set off (a request for more items, a navigation) is let finish before the next.
    await run.settle();
    // A navigation that failed (the guard refused it) left Chromium's error page: the render fails on it.
    if (page.url().startsWith('chrome-error:')) return;
  }
}

/** A script that scrolls the page's window (as a reader would) and returns when done. */
function scrollScript(direction: 'down' | 'up' | 'bottom' | 'top', pixels?: number): string {
  switch (direction) {
    case 'bottom':
      return 'window.scrollTo(0, document.documentElement.scrollHeight)';
    case 'top':
      return 'window.scrollTo(0, 0)';
    default:
      return `window.scrollBy(0, ${direction === 'up' ? '-' : ''}${pixels ?? 'window.innerHeight'})`;
  }
}
