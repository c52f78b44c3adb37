/**
 * One render in a tab: navigate (the document served from the plain fetch), let the page settle, run
 * the actions, wait as asked, read the DOM. Every browser call is bounded by the render's clock
 * (deadline.ts), so a page whose script never yields returns at its deadline; the DOM's size is
 * measured before it is serialised (dom-size.ts) and a DOM over the page cap is refused.
 */
import type { Page } from 'playwright-core';
import { GleanerError } from '../../errors.js';
import { megabytes } from '../fetch-page.js';
import { runActions } from './actions.js';
import type { Tab } from './contexts.js';
import { deadlineRace, QUIET_MS, RenderClock, SETTLE_MAX_MS } from './deadline.js';
import { domSizeScript } from './dom-size.js';
import { closedUnderUs } from './launch.js';
import { PageTraffic } from './routing.js';
import { takeScreenshot } from './screenshot.js';
import { looksLikeAppShell, looksLikeChallenge, visibleTextLength } from './shell.js';
import type { RenderedPage, RenderLimits, RenderOptions } from './types.js';

type Bound = <T>(work: Promise<T>) => Promise<T>;

export async function renderPage(tab: Tab, url: string, options: RenderOptions, limits: RenderLimits, sessionDeadline = Number.POSITIVE_INFINITY): Promise<RenderedPage> {
  const { timeoutMs } = limits;
  const crash = new AbortController();
  const clock = new RenderClock(timeoutMs, sessionDeadline, options.signal, crash.signal);
  const { signal, remaining, bound } = clock;
  const warnings: string[] = [];
  const traffic = new PageTraffic();
  const page = tab.page;
  // The caller going away ends the page at once.
  const stop = () => void page.close({ runBeforeUnload: false }).catch(() => undefined);
  options.signal?.addEventListener('abort', stop, { once: true });
  const crashed = () =>
    crash.abort(
      new GleanerError(
        'UPSTREAM_ERROR',
        `The browser's renderer stopped while rendering ${url}: it crashed, or the page used more memory than a rendered page may (${limits.memoryMb} MB, GLEANER_RENDER_MEMORY_MB).`,
      ),
    );
  page.on('crash', crashed);
  tab.job = { prefetched: options.prefetched, signal, traffic };
  try {
    let status = options.prefetched?.status ?? 200;
    try {
      const response = await bound(page.goto(url, { waitUntil: 'domcontentloaded', timeout: remaining() }));
      if (response) status = response.status();
    } catch (error) {
      if (signal.aborted) throw error;
      if (isTimeout(error) && page.url() === 'about:blank') {
        throw new GleanerError('UPSTREAM_TIMEOUT', `The browser did not load ${url} within ${timeoutMs} ms (GLEANER_RENDER_TIMEOUT_MS); the page was stopped.`, { cause: error });
      }
      // The browser died under the navigation (Playwright may say so before its 'disconnected' event): the pool starts another.
      if (closedUnderUs(error)) {
        throw new GleanerError('UPSTREAM_UNAVAILABLE', `The rendering browser stopped while loading ${url}; it is started again for the next page.`, { cause: error });
      }
      if (!isTimeout(error)) {
        throw new GleanerError('UPSTREAM_ERROR', `The browser could not load ${url}: ${String((error as Error).message).split('\n')[0]}`, { cause: error });
      }
      warnings.push(`The page did not finish loading within ${timeoutMs} ms; what it showed by then was read.`);
    }
    // A wait that ends early (the page is busy, or navigating) is not an error: the reads below are bounded too.
    await bound(page.waitForLoadState('load', { timeout: Math.min(remaining(), SETTLE_MAX_MS) })).catch(() => undefined);
    const settle = clock.settle();
    await traffic.quiet(QUIET_MS, settle.signal);
    if (options.actions?.length) {
      // After each action, what it set off (more items fetched, a navigation) settles, within the same deadline.
      const afterAction = async () => {
        await bound(page.waitForLoadState('load', { timeout: Math.min(remaining(), SETTLE_MAX_MS) })).catch(() => undefined);
        const quiet = clock.settle();
        await traffic.quiet(QUIET_MS, quiet.signal).finally(quiet.clear);
      };
      await runActions(page, options.actions, { remaining, bound, settle: afterAction }, signal);
      if (page.url().startsWith('chrome-error:')) throw failedNavigation(url, traffic);
    }
    await waitFor(page, options.waitFor, remaining, warnings, signal);
    // The DOM, measured and then read, again once loaded if the page is navigating meanwhile (a challenge reloads itself).
    const read = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await readDom(page, url, bound, limits.maxHtmlBytes);
        } catch (error) {
          if (error instanceof GleanerError || attempt >= 3 || signal.aborted || page.isClosed()) throw error;
          await bound(page.waitForLoadState('load', { timeout: Math.min(remaining(), SETTLE_MAX_MS) })).catch(() => undefined);
        }
      }
    };
    let html = await read();
    // A request the page issued may reach the route after the network looked quiet (a busy machine):
    // while an app shell has gained no text yet, or a challenge is still the page, its script is at work.
    const first = options.prefetched?.html;
    const shellText = first && looksLikeAppShell(first) ? visibleTextLength(first) : undefined;
    const challenge = first !== undefined && looksLikeChallenge(options.prefetched!.status, options.prefetched!.headers, first);
    const building = () =>
      (shellText !== undefined && looksLikeAppShell(html) && visibleTextLength(html) <= shellText) || (challenge && looksLikeChallenge(200, {}, html));
    while (!settle.signal.aborted && building()) {
      await traffic.quiet(QUIET_MS, settle.signal);
      html = await read();
    }
    // A navigation that failed (refused by the guard, unreachable) leaves Chromium's error page: no page at all.
    if (page.url().startsWith('chrome-error:')) throw failedNavigation(url, traffic);
    // The document read may not be the first one (a challenge reloads): its own status, where the browser says it.
    const finalStatus = await bound(page.evaluate('performance.getEntriesByType("navigation")[0]?.responseStatus')).catch(() => undefined);
    if (typeof finalStatus === 'number' && finalStatus > 0) status = finalStatus;
    if (traffic.refusedHosts.size) {
      warnings.push(`Requests of the page to ${[...traffic.refusedHosts].slice(0, 5).join(', ')} were refused (private or loopback addresses, or WebSockets, are not opened for rendered pages).`);
    }
    if (traffic.overLimit) warnings.push(`The page made too many requests; ${traffic.overLimit} were not fetched.`);
    const screenshot = options.screenshot ? await takeScreenshot(page, options.screenshot, bound, Math.max(1, clock.endsAt - Date.now()), warnings) : undefined;
    return { url: page.url(), status, html, warnings, ...(screenshot ? { screenshot } : {}) };
  } catch (error) {
    if (options.signal?.aborted) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`, { cause: error });
    if (crash.signal.aborted) throw crash.signal.reason as GleanerError;
    if (clock.expired) {
      throw new GleanerError(
        'UPSTREAM_TIMEOUT',
        clock.cutBySession
          ? `Rendering ${url} was stopped: this call's rendering as a whole may take ${Math.round(limits.sessionTimeoutMs / 1000)} s (GLEANER_RENDER_CRAWL_TIMEOUT_MS).`
          : `Rendering ${url} took longer than ${timeoutMs} ms (GLEANER_RENDER_TIMEOUT_MS); the page was stopped.`,
        { cause: error },
      );
    }
    if (error instanceof GleanerError) throw error;
    if (!page.context().browser()?.isConnected()) {
      throw new GleanerError('UPSTREAM_UNAVAILABLE', `The rendering browser stopped while rendering ${url}; it is started again for the next page.`, { cause: error });
    }
    throw new GleanerError('UPSTREAM_ERROR', `The browser could not render ${url}: ${String((error as Error).message).split('\n')[0]}`, { cause: error });
  } finally {
    tab.job = undefined;
    clock.clear();
    page.off('crash', crashed);
    options.signal?.removeEventListener('abort', stop);
  }
}

/** The DOM serialised, once its size is known to be within the page cap (a DOM over it is never serialised). */
async function readDom(page: Page, url: string, bound: Bound, cap: number): Promise<string> {
  const size = await bound(page.evaluate(domSizeScript(cap)));
  const tooLarge = () =>
    new GleanerError('PAYLOAD_TOO_LARGE', `${url} built a page larger than Gleaner reads once rendered: ${megabytes(cap)} for a web page. Nothing was charged.`);
  if (typeof size === 'number' && size > cap) throw tooLarge();
  const html = await bound(page.content());
  // The DOM may have grown between the measure and the read.
  if (Buffer.byteLength(html, 'utf8') > cap) throw tooLarge();
  return html;
}

async function waitFor(page: Page, waitFor: number | string | undefined, remaining: () => number, warnings: string[], signal: AbortSignal): Promise<void> {
  if (waitFor === undefined) return;
  const bound = <T>(work: Promise<T>): Promise<T> => deadlineRace(work, signal);
  if (typeof waitFor === 'number') {
    const ms = Math.min(waitFor, remaining());
    if (ms < waitFor) warnings.push(`waitFor ${waitFor} ms was cut to ${ms} ms by the page deadline (GLEANER_RENDER_TIMEOUT_MS).`);
    await bound(page.waitForTimeout(ms));
    return;
  }
  try {
    await bound(page.waitForSelector(`css=${waitFor}`, { state: 'attached', timeout: remaining() }));
  } catch (error) {
    const message = String((error as Error).message);
    if (/not a valid selector|unexpected token|selector.*pars|parse.*selector/i.test(message)) {
      throw new GleanerError('INVALID_REQUEST', `waitFor: "${waitFor}" is not a valid CSS selector.`);
    }
    // The render's own deadline (or the caller leaving) ends the render; the selector's timeout is only a warning.
    if (signal.aborted || !isTimeout(error)) throw error;
    warnings.push(`waitFor: no element matched "${waitFor}" before the page deadline; the page was read as it was.`);
  }
}

/** The error for a render that ended on Chromium's error page: a navigation the guard refused, or one that failed. */
function failedNavigation(url: string, traffic: PageTraffic): GleanerError {
  if (traffic.refusedNavigation) {
    return new GleanerError(
      'URL_NOT_ALLOWED',
      `The page at ${url} navigated to ${hostOfUrl(traffic.refusedNavigation)}, an address Gleaner does not open (private, loopback, link-local or metadata); nothing was read or charged.`,
    );
  }
  return new GleanerError('UPSTREAM_ERROR', `The page at ${url} navigated to a page the browser could not load; nothing was read or charged.`);
}

function hostOfUrl(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(error.message));
}
