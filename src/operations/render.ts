/**
 * The `render` and `waitFor` inputs of the web operations turned into what web/ needs, and their
 * price: GLEANER_RENDER_CREDITS on top of a page's usual price for each page a browser rendered.
 * `always` is paid up front (reserved with the call); under `auto` each render reserves its credits
 * when the page turns out to need one, and a balance that cannot cover it reads the page plainly.
 */
import type { Config } from '../config.js';
import { GleanerError } from '../errors.js';
import type { RenderChoice, RenderMode } from '../web/render/load.js';
import type { CheckContext, OperationContext } from './define.js';
import { WAIT_FOR_MAX_MS } from './inputs.js';
import { parseAction, type BrowserAction } from '../web/render/actions.js';
import type { ScreenshotKind } from '../web/render/screenshot.js';

export interface RenderInput {
  render: RenderMode;
  waitFor?: number | string;
  /** web_scrape's browser actions and screenshot: they make the page rendered (docs/rendering.md). */
  actions?: string[];
  screenshot?: ScreenshotKind;
}

export const renderPrice = (config: Config): number => config.GLEANER_RENDER_CREDITS;

/** Credits a screenshot costs on top of the rendered page (docs/rendering.md). */
export const SCREENSHOT_CREDITS = 1;

/** Whether the call asks for what only a browser does (actions, a screenshot): the page is then rendered. */
const needsBrowser = (input: RenderInput): boolean => Boolean(input.actions?.length || input.screenshot);

/** Credits a page reserves before it is read: its price, plus the render's when it is always rendered, plus a screenshot's. */
export const pagePrice = (input: RenderInput, config: Config): number =>
  1 + (input.render === 'always' || needsBrowser(input) ? renderPrice(config) : 0) + (input.screenshot ? SCREENSHOT_CREDITS : 0);

/** What reading one page costs: its price, the render's when a browser rendered it, and a screenshot's when one was taken. */
export const PAGE_COST = {
  reserve: pagePrice,
  settle: (_input: RenderInput, result: { rendered?: boolean; screenshot?: unknown }, config: Config) =>
    1 + (result.rendered ? renderPrice(config) : 0) + (result.screenshot ? SCREENSHOT_CREDITS : 0),
};

/** A string of digits over MCP or JSON is milliseconds, as over a query string. */
function waitForValue(waitFor: number | string | undefined): number | string | undefined {
  if (typeof waitFor !== 'string' || !/^\d+$/.test(waitFor)) return waitFor;
  const ms = Number(waitFor);
  if (ms > WAIT_FOR_MAX_MS) throw new GleanerError('INVALID_REQUEST', `waitFor: at most ${WAIT_FOR_MAX_MS} milliseconds.`);
  return ms;
}

/** `paidUpFront`: the call reserved the render with its price (pagePrice); else each render pays as it happens. */
export function renderChoice(input: RenderInput, ctx: OperationContext, paidUpFront = input.render === 'always' || needsBrowser(input)): RenderChoice {
  const price = renderPrice(ctx.services.config);
  const prepaid = paidUpFront || price === 0;
  return {
    mode: input.render,
    waitFor: waitForValue(input.waitFor),
    renderer: ctx.services.renderer,
    owner: ctx.account.id,
    pay: prepaid ? undefined : () => ctx.reserveCredits(price),
    // Checked by the input's schema (inputs.ts): every string parses here.
    actions: input.actions?.map((text) => parseAction(text) as BrowserAction),
    screenshot: input.screenshot,
  };
}

/**
 * render=always, actions or a screenshot without a browser are refused before anything is charged or
 * queued; actions or a screenshot with render=never are a contradiction, refused as well.
 */
export function assertRenderable(input: RenderInput, ctx: CheckContext): void {
  const browserWork = needsBrowser(input);
  if (browserWork && input.render === 'never') {
    throw new GleanerError('INVALID_REQUEST', 'actions and screenshot run in a browser: they cannot be used with render=never (use auto or always).');
  }
  if (input.render !== 'always' && !browserWork) return;
  const available = ctx.services.renderer?.availability() ?? { ok: false as const, reason: 'no browser is configured (GLEANER_BROWSER_PATH or GLEANER_BROWSER_WS_URL)' };
  if (!available.ok) throw new GleanerError('NOT_CONFIGURED', `${browserWork ? 'actions and screenshot need' : 'render=always needs'} a browser: ${available.reason}.`);
}
