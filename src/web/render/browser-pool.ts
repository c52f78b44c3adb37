/**
 * The browser that renders JavaScript pages: launched (or connected to, over CDP) on the first page
 * that needs it, never at start-up; relaunched after a crash; closed with the app.
 *
 * A pool of contexts: every call (a scrape, one crawl, one map) gets a browser context of its own,
 * fresh (no cookie, storage or cache crosses calls, so none crosses accounts) and closed when the
 * call ends. One context is kept prepared (with a page open) for the next call, so a call does not
 * wait for a new renderer process. A context speaks as the plain fetch does: the client's user agent,
 * and the call's `lang` as the browser's locale (navigator.language) and the Accept-Language of every
 * request; the prepared context is used only by a call with its language (it is prepared with the
 * last call's), another call opens its own. Within a call, pages (tabs) are reused from one render to the
 * next, up to a limit of renders each; at most `concurrency` pages render at once in the whole
 * process, and one key (account) at most its share of them (fair-slots.ts).
 *
 * Every render is bounded: each browser call is raced against the page's deadline (deadline.ts), so a
 * page whose script never yields returns at its deadline; the page is then closed, and if it does not
 * close, its context, and if that hangs too, the browser process is killed and started again for the
 * next page. A crawl's or map's rendering as a whole has a deadline of its own. The DOM's size is
 * measured before it is serialised (dom-size.ts) and a DOM over the page cap is refused; renderers have a
 * memory limit (memory-watch.ts); WebRTC is gone from every frame (webrtc.ts). Every request of a page
 * goes through Gleaner's outbound client (routing.ts).
 *
 * Chromium's own output never reaches stdout (the MCP protocol in stdio mode): Playwright starts it
 * with piped stdio, and nothing here reads or forwards those pipes.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { HttpClient } from '../../net/http.js';
import type { Logger } from '../../log.js';
import { GleanerError } from '../../errors.js';
import { acceptLanguage } from '../../net/identity.js';
import { locateBrowser, type BrowserTarget } from './locate.js';
import { looksLikeAppShell, looksLikeChallenge, visibleTextLength } from './shell.js';
import { PageTraffic, routeThroughClient, type PrefetchedDocument, type RenderJob } from './routing.js';
import { FairSlots } from '../fair-slots.js';
import { findChildByMarker, watchRendererMemory } from './memory-watch.js';
import { NO_WEBRTC_SCRIPT, WEBRTC_LAUNCH_ARGS } from './webrtc.js';
import { deadlineRace, settlesWithin } from './deadline.js';
import { deadline as within, deadlineAt, type Deadline } from '../../deadline.js';
import { megabytes, PAGE_MAX_BYTES } from '../fetch-page.js';
import { domSizeScript } from './dom-size.js';
import { runActions, type BrowserAction } from './actions.js';
import { takeScreenshot, type Screenshot, type ScreenshotKind } from './screenshot.js';

/**
 * Flags for a local Chromium that work as root in a container: no sandbox (root cannot have one),
 * no GPU, no QUIC (UDP is not routed), none of the browser's own background traffic, WebRTC without
 * UDP (webrtc.ts), and each renderer's JavaScript heap capped at `memoryMb` (memory-watch.ts bounds
 * the rest of its memory). Playwright adds --headless and a fresh --user-data-dir.
 */
export function launchArgs(memoryMb: number): string[] {
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    ...WEBRTC_LAUNCH_ARGS,
    // The browser resolves no name itself: routed requests need no DNS, and nothing else should reach out.
    '--host-resolver-rules=MAP * ~NOTFOUND',
    `--js-flags=--max-old-space-size=${memoryMb}`,
  ];
}

/**
 * The contexts' proxy is a closed loopback port with no bypass: the route answers every request
 * before it would reach a proxy, so only a request the route did not see would use it, and fails.
 */
export const DEAD_PROXY = { server: 'http://127.0.0.1:1', bypass: '' };

const CONTEXT_OPTIONS: BrowserContextOptions = {
  acceptDownloads: false,
  serviceWorkers: 'block',
  permissions: [],
  javaScriptEnabled: true,
  viewport: { width: 1280, height: 900 },
  proxy: DEAD_PROXY,
};

/** How long the page's network must be idle before its DOM is read, and the longest wait for that. */
const QUIET_MS = 120;
const SETTLE_MAX_MS = 5_000;
/** After a failed launch, pages fall back (auto) or fail (always) for this long before another try. */
const RELAUNCH_BACKOFF_MS = 15_000;
/** Renders one tab serves before it is closed and replaced (pages leak memory over many navigations). */
const TAB_MAX_RENDERS = 50;
/** How long a page (then its context, then the browser) is given to close once its render is over or cut. */
const CLOSE_GRACE_MS = 3_000;
/** The least time a running browser is given to open a context and a tab before it is taken for hung. */
const OPEN_MIN_MS = 30_000;
/** The part of the page deadline kept for reading the DOM after the waits (at most). */
const READ_RESERVE_MS = 2_000;

export interface RendererOptions {
  http: HttpClient;
  /** GLEANER_BROWSER_PATH */
  browserPath?: string;
  /** GLEANER_BROWSER_WS_URL */
  wsUrl?: string;
  concurrency: number;
  /** GLEANER_RENDER_CONCURRENCY_PER_ACCOUNT: slots one owner (account) may hold at once. */
  concurrencyPerOwner?: number;
  timeoutMs: number;
  /** GLEANER_RENDER_CRAWL_TIMEOUT_MS: the longest one crawl's or map's rendering may take as a whole. */
  sessionTimeoutMs?: number;
  /** GLEANER_RENDER_MEMORY_MB: each renderer's memory (JavaScript heap, and resident memory on Linux). */
  memoryMb?: number;
  /** The largest DOM read, serialised (the plain fetch's page cap). */
  maxHtmlBytes?: number;
  log?: Logger;
}

export interface RenderOptions {
  /** The document already fetched plainly: served to the browser instead of fetched again. */
  prefetched?: PrefetchedDocument;
  /** Milliseconds to wait after the page settled, or a CSS selector to wait for (within the deadline). */
  waitFor?: number | string;
  /** The caller's preferred language (the browser's locale and Accept-Language), as the plain fetch sends it. */
  lang?: string;
  /** Who the render is for (the account): render slots are shared fairly between owners. */
  owner?: string;
  /** Clicks, typing, scrolls, keys and waits run once the page settled, before `waitFor` and the read (actions.ts). */
  actions?: BrowserAction[];
  /** A PNG of the page as it was read (screenshot.ts). */
  screenshot?: ScreenshotKind;
  signal?: AbortSignal;
}

export interface RenderedPage {
  /** Where the page ended (a script may have navigated). */
  url: string;
  status: number;
  /** The DOM serialised after scripts ran. */
  html: string;
  warnings: string[];
  /** When asked for (and within its size cap). */
  screenshot?: Screenshot;
}

/** What renders a page: the renderer (one call, one page) or a session of it (one call, many pages). */
export interface PageRenderer {
  availability(): { ok: true } | { ok: false; reason: string };
  render(url: string, options?: RenderOptions): Promise<RenderedPage>;
}

interface Tab {
  page: Page;
  job?: RenderJob;
  renders: number;
}

/** One call's browser context and its tabs. */
interface ContextState {
  browser: Browser;
  /** The language the context was opened for (its locale and Accept-Language). */
  lang: string | undefined;
  context: BrowserContext;
  tabs: Map<Page, Tab>;
  idle: Tab[];
  /** Closed (or being closed) because a page in it would not close: not used again. */
  closed: boolean;
}

export class Renderer implements PageRenderer {
  private target?: BrowserTarget;
  private browser?: Promise<Browser>;
  /** A context prepared for the next call, in the language of the last. */
  private spare?: { lang: string | undefined; state: Promise<ContextState | undefined> };
  private failedAt = 0;
  private failure?: GleanerError;
  private closed = false;
  /** The marker on the command line of the local browser launched last, to find (and kill) its process. */
  private marker?: string;
  private stopWatch?: () => void;
  readonly slots: FairSlots;
  readonly timeoutMs: number;
  readonly sessionTimeoutMs: number;
  readonly memoryMb: number;
  readonly maxHtmlBytes: number;

  constructor(private readonly options: RendererOptions) {
    this.slots = new FairSlots(options.concurrency, Math.min(options.concurrency, options.concurrencyPerOwner ?? Math.ceil(options.concurrency / 2)), 'a browser slot');
    this.timeoutMs = options.timeoutMs;
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? 10 * 60_000;
    this.memoryMb = options.memoryMb ?? 1024;
    this.maxHtmlBytes = options.maxHtmlBytes ?? PAGE_MAX_BYTES;
  }

  /** Whether pages can be rendered, without launching anything; the reason names the settings when not. */
  availability(): { ok: true } | { ok: false; reason: string } {
    this.target ??= locateBrowser({ browserPath: this.options.browserPath, wsUrl: this.options.wsUrl });
    if (this.closed) return { ok: false, reason: 'the server is shutting down' };
    if (this.target.kind === 'none') return { ok: false, reason: this.target.reason };
    if (this.failure && Date.now() - this.failedAt < RELAUNCH_BACKOFF_MS) return { ok: false, reason: this.failure.message };
    return { ok: true };
  }

  /** Renders for one call that reads many pages (a crawl, a map): one context in `lang`, closed by `close`, within the session deadline. */
  session(options: { lang?: string; owner?: string } = {}): RenderSession {
    return new RenderSession(this, false, options.lang, options.owner, Date.now() + this.sessionTimeoutMs);
  }

  /** One page for one call, in a context of its own (the prepared one; another is prepared behind it). */
  async render(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
    for (let attempt = 1; ; attempt++) {
      const session = new RenderSession(this, true, options.lang, options.owner);
      try {
        return await session.render(url, options);
      } catch (error) {
        // The browser died under this page (killed, crashed) before Playwright reported it: start a
        // new one and try the page once more. A render that was cut (its deadline, its size, its
        // memory, a refused navigation) is not tried again: the browser may have been killed for it.
        const cut = error instanceof GleanerError && error.code !== 'UPSTREAM_UNAVAILABLE';
        if (attempt > 1 || this.closed || cut || !(await this.forgetDeadBrowser(error))) throw error;
      } finally {
        await session.close();
      }
    }
  }

  /** True (and the browser and its prepared context dropped) when `error` came from a browser that is gone. */
  private async forgetDeadBrowser(error: unknown): Promise<boolean> {
    const browser = await this.browser?.catch(() => undefined);
    const gone = closedUnderUs(error) || closedUnderUs((error as Error)?.cause) || (browser !== undefined && !browser.isConnected());
    if (!gone) return false;
    this.browser = undefined;
    const spare = this.spare;
    this.spare = undefined;
    void spare?.state.then((state) => state?.context.close().catch(() => undefined));
    if (browser && !(await settlesWithin(browser.close(), CLOSE_GRACE_MS))) this.killLocalBrowser();
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopWatch?.();
    const spare = await this.spare?.state;
    await spare?.context.close().catch(() => undefined);
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    if (browser && !(await settlesWithin(browser.close(), CLOSE_GRACE_MS))) this.killLocalBrowser();
  }

  /**
   * Frees what a render that failed or was cut held: its page, and if the page does not close in time
   * (a renderer stuck in a script), its whole context, and if that hangs too, the browser process.
   */
  async reclaim(state: ContextState, tab: Tab): Promise<void> {
    state.tabs.delete(tab.page);
    if (await settlesWithin(tab.page.close({ runBeforeUnload: false }), CLOSE_GRACE_MS)) return;
    this.options.log?.warn('A rendered page did not close in time; its browser context is closed');
    await this.reclaimContext(state);
  }

  /** Closes a context; when it does not close in time, the browser is restarted. */
  async reclaimContext(state: ContextState): Promise<void> {
    state.closed = true;
    if (await settlesWithin(state.context.close(), CLOSE_GRACE_MS)) return;
    this.options.log?.warn('A browser context did not close in time; the browser is restarted');
    await this.restart(state.browser);
  }

  /** The browser, launched (or connected to) if it is not yet. */
  ready(): Promise<Browser> {
    return this.running();
  }

  /** Restarts the browser in use, if one is running (it stopped answering). */
  async restartCurrent(): Promise<void> {
    const current = await this.browser?.catch(() => undefined);
    if (current) await this.restart(current);
  }

  /** Drops `browser` (killing a local one's process) so that the next page starts a new one. */
  private async restart(browser: Browser): Promise<void> {
    const current = await this.browser?.catch(() => undefined);
    if (current === browser) {
      this.browser = undefined;
      this.spare = undefined;
      this.stopWatch?.();
      this.killLocalBrowser();
    }
    // Remote: only the connection is ours to drop.
    await settlesWithin(browser.close(), CLOSE_GRACE_MS);
  }

  private killLocalBrowser(): void {
    const pid = this.marker ? findChildByMarker(this.marker) : undefined;
    if (pid === undefined) return;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }

  /**
   * A fresh context for a call: the prepared one when there is one and it is still good. `prepareNext`
   * (single pages, where opening a context is most of the wait) prepares another behind it; a crawl
   * or map opens its one context without (a spare would only hold memory while it runs).
   */
  async takeContext(prepareNext: boolean, lang: string | undefined): Promise<ContextState> {
    const browser = await this.running();
    // Claimed before any wait: a prepared context serves exactly one call, however many ask at once.
    const claimed = this.spare && this.spare.lang === lang ? this.spare.state : undefined;
    if (claimed || prepareNext) {
      const stale = this.spare && !claimed ? this.spare.state : undefined;
      void stale?.then((state) => state?.context.close().catch(() => undefined));
      this.spare = prepareNext && !this.closed ? { lang, state: this.openContext(browser, lang).catch(() => undefined) } : undefined;
    }
    const spare = await claimed;
    if (spare && spare.browser === browser && browser.isConnected()) return spare;
    await spare?.context.close().catch(() => undefined);
    return this.openContext(browser, lang);
  }

  async newTab(state: ContextState): Promise<Tab> {
    const page = await state.context.newPage();
    // Pop-ups are not followed: the page asked for is the one read.
    page.on('popup', (popup) => void popup.close().catch(() => undefined));
    const tab: Tab = { page, renders: 0 };
    state.tabs.set(page, tab);
    return tab;
  }

  private async openContext(browser: Browser, lang: string | undefined): Promise<ContextState> {
    let context: BrowserContext;
    try {
      context = await browser.newContext(this.contextOptions(lang));
    } catch (error) {
      throw new GleanerError('UPSTREAM_UNAVAILABLE', `The rendering browser could not open a page: ${String((error as Error).message).split('\n')[0]}`, { cause: error });
    }
    const state: ContextState = { browser, lang, context, tabs: new Map(), idle: [], closed: false };
    // WebRTC reaches the network past every route and proxy: gone from every frame before its scripts run.
    await context.addInitScript(NO_WEBRTC_SCRIPT);
    await routeThroughClient(context, this.options.http, {
      forRequest(request) {
        try {
          return state.tabs.get(request.frame().page())?.job;
        } catch {
          return undefined; // a request with no frame (a service worker's)
        }
      },
      *active() {
        for (const tab of state.tabs.values()) if (tab.job) yield tab.job;
      },
    });
    state.idle.push(await this.newTab(state));
    return state;
  }

  /**
   * A context's options: the plain fetch's identity (user agent, Accept-Language from `lang`) and the
   * locale of `lang`, so that the page's scripts (navigator.userAgent, navigator.language, Intl) see
   * what the site's server saw. Without a lang, the plain fetch's English default.
   */
  private contextOptions(lang: string | undefined): BrowserContextOptions {
    const languages = acceptLanguage(lang);
    return {
      ...CONTEXT_OPTIONS,
      userAgent: this.options.http.userAgent,
      locale: languages.split(',')[0],
      extraHTTPHeaders: { 'accept-language': languages },
    };
  }

  private running(): Promise<Browser> {
    const available = this.availability();
    if (!available.ok) throw new GleanerError('NOT_CONFIGURED', `Rendering needs a browser: ${available.reason}.`);
    this.browser ??= this.launch(this.target as Exclude<BrowserTarget, { kind: 'none' }>);
    return this.browser;
  }

  private async launch(target: Exclude<BrowserTarget, { kind: 'none' }>): Promise<Browser> {
    const started = Date.now();
    try {
      // Loaded on first use: a server that never renders does not pay for Playwright at start-up.
      const { chromium } = await import('playwright-core');
      const marker = `--gleaner-browser=${randomUUID()}`;
      const browser =
        target.kind === 'remote'
          ? await chromium.connectOverCDP(target.wsUrl, { timeout: 30_000 })
          : await chromium.launch({
              executablePath: target.executablePath,
              headless: true,
              // The marker (a switch Chromium ignores) finds this browser's process, to kill it if it hangs.
              args: [...launchArgs(this.memoryMb), marker],
              chromiumSandbox: false,
              // The app closes the browser on shutdown (app.close); Playwright must not race it.
              handleSIGINT: false,
              handleSIGTERM: false,
              handleSIGHUP: false,
              timeout: 30_000,
            });
      const current = this.browser;
      if (target.kind === 'local') this.watchMemory(marker);
      browser.on('disconnected', () => {
        // A crash (or a remote browser going away): the next page launches a new one.
        if (this.browser === current) this.browser = undefined;
        if (this.marker === marker) this.stopWatch?.();
        if (!this.closed) this.options.log?.warn({ browser: target.kind }, 'The rendering browser went away; it is started again for the next page');
      });
      this.failure = undefined;
      this.options.log?.info({ browser: target.kind, version: browser.version(), ms: Date.now() - started }, 'Rendering browser started');
      return browser;
    } catch (error) {
      this.browser = undefined;
      const first = String((error as Error).message ?? error).split('\n')[0];
      this.failure =
        target.kind === 'remote'
          ? new GleanerError('UPSTREAM_UNAVAILABLE', `The remote browser (GLEANER_BROWSER_WS_URL) could not be reached: ${first.replace(/\b(?:wss?|https?):\/\/\S+/gi, '<GLEANER_BROWSER_WS_URL>')}`)
          : new GleanerError('NOT_CONFIGURED', `The browser at GLEANER_BROWSER_PATH (${target.executablePath}) could not be started: ${first}`);
      this.failedAt = Date.now();
      this.options.log?.error({ browser: target.kind, err: this.failure.message }, 'The rendering browser could not be started');
      throw this.failure;
    }
  }

  /** Kills a renderer of the browser carrying `marker` whose resident memory passes GLEANER_RENDER_MEMORY_MB. */
  private watchMemory(marker: string): void {
    this.marker = marker;
    this.stopWatch?.();
    const pid = findChildByMarker(marker);
    if (pid === undefined) return;
    this.stopWatch = watchRendererMemory(pid, this.memoryMb * 1024 * 1024, (renderer, bytes) => {
      this.options.log?.warn({ pid: renderer, mb: Math.round(bytes / 1024 / 1024) }, 'A renderer passed GLEANER_RENDER_MEMORY_MB and was stopped');
    });
  }

  /** One render in a tab: navigate (the document served from the plain fetch), let it settle, wait as asked, read the DOM. */
  async renderIn(tab: Tab, url: string, options: RenderOptions, sessionDeadline = Number.POSITIVE_INFINITY): Promise<RenderedPage> {
    const timeoutMs = this.timeoutMs;
    const started = Date.now();
    const deadline = Math.min(started + timeoutMs, sessionDeadline);
    const cutBySession = sessionDeadline < started + timeoutMs;
    // The waits end a little before the deadline, so that what the page shows by then can still be read.
    const waitsEnd = deadline - Math.min(READ_RESERVE_MS, Math.floor((deadline - started) / 4));
    // Whole milliseconds: Playwright refuses a fractional timeout.
    const remaining = () => Math.max(1, Math.floor(waitsEnd - Date.now()));
    const crash = new AbortController();
    const limit = within(Math.max(1, deadline - started), options.signal, crash.signal);
    const signal = limit.signal;
    let settle: Deadline | undefined;
    // Every browser call of the render ends at the deadline, whether or not the page answers.
    const bound = <T>(work: Promise<T>): Promise<T> => deadlineRace(work, signal);
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
          `The browser's renderer stopped while rendering ${url}: it crashed, or the page used more memory than a rendered page may (${this.memoryMb} MB, GLEANER_RENDER_MEMORY_MB).`,
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
      settle = within(Math.min(remaining(), SETTLE_MAX_MS), signal);
      await traffic.quiet(QUIET_MS, settle.signal);
      if (options.actions?.length) {
        // After each action, what it set off (more items fetched, a navigation) settles, within the same deadline.
        const afterAction = async () => {
          await bound(page.waitForLoadState('load', { timeout: Math.min(remaining(), SETTLE_MAX_MS) })).catch(() => undefined);
          const quiet = within(Math.min(remaining(), SETTLE_MAX_MS), signal);
          await traffic.quiet(QUIET_MS, quiet.signal).finally(quiet.clear);
        };
        await runActions(page, options.actions, { remaining, bound, settle: afterAction }, signal);
        if (page.url().startsWith('chrome-error:')) throw failedNavigation(url, traffic);
      }
      await this.waitFor(page, options.waitFor, remaining, warnings, signal);
      // The DOM, measured and then read, again once loaded if the page is navigating meanwhile (a challenge reloads itself).
      const read = async () => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await this.readDom(page, url, bound);
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
      const screenshot = options.screenshot ? await takeScreenshot(page, options.screenshot, bound, Math.max(1, deadline - Date.now()), warnings) : undefined;
      return { url: page.url(), status, html, warnings, ...(screenshot ? { screenshot } : {}) };
    } catch (error) {
      if (options.signal?.aborted) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`, { cause: error });
      if (crash.signal.aborted) throw crash.signal.reason as GleanerError;
      if (limit.expired) {
        throw new GleanerError(
          'UPSTREAM_TIMEOUT',
          cutBySession
            ? `Rendering ${url} was stopped: this call's rendering as a whole may take ${Math.round(this.sessionTimeoutMs / 1000)} s (GLEANER_RENDER_CRAWL_TIMEOUT_MS).`
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
      limit.clear();
      settle?.clear();
      page.off('crash', crashed);
      options.signal?.removeEventListener('abort', stop);
    }
  }

  /** The DOM serialised, once its size is known to be within the page cap (a DOM over it is never serialised). */
  private async readDom(page: Page, url: string, bound: <T>(work: Promise<T>) => Promise<T>): Promise<string> {
    const cap = this.maxHtmlBytes;
    const size = await bound(page.evaluate(domSizeScript(cap)));
    const tooLarge = () =>
      new GleanerError('PAYLOAD_TOO_LARGE', `${url} built a page larger than Gleaner reads once rendered: ${megabytes(cap)} for a web page. Nothing was charged.`);
    if (typeof size === 'number' && size > cap) throw tooLarge();
    const html = await bound(page.content());
    // The DOM may have grown between the measure and the read.
    if (Buffer.byteLength(html, 'utf8') > cap) throw tooLarge();
    return html;
  }

  private async waitFor(page: Page, waitFor: number | string | undefined, remaining: () => number, warnings: string[], signal: AbortSignal): Promise<void> {
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

/** The renders of one call: one fresh context, its tabs reused from page to page, closed with the call. */
export class RenderSession implements PageRenderer {
  private state?: Promise<ContextState>;
  private closed = false;

  constructor(
    private readonly renderer: Renderer,
    private readonly prepareNext: boolean,
    private readonly lang?: string,
    private readonly owner = '',
    /** When this call's rendering as a whole must end (a crawl's, a map's); none for one page. */
    private readonly deadline = Number.POSITIVE_INFINITY,
  ) {}

  availability(): { ok: true } | { ok: false; reason: string } {
    return this.renderer.availability();
  }

  async render(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
    options.signal?.throwIfAborted();
    if (Date.now() >= this.deadline) throw this.overTime(url);
    // Waiting for a slot counts against the call's own deadline, not against the page's.
    const wait = deadlineAt(this.deadline, options.signal);
    let release: () => void;
    try {
      release = await this.renderer.slots.acquire(this.owner, wait.signal);
    } catch (error) {
      if (options.signal?.aborted) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`, { cause: error });
      throw this.overTime(url);
    } finally {
      wait.clear();
    }
    try {
      if (this.closed) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`);
      const { state, tab } = await this.openTab(url, options.signal);
      let healthy = false;
      try {
        const page = await this.renderer.renderIn(tab, url, options, this.deadline);
        healthy = true;
        return page;
      } finally {
        tab.renders++;
        if (!healthy) {
          // A failed or cut render's page may be stuck in a script: closed (or worse) before the slot is freed.
          await this.renderer.reclaim(state, tab);
        } else if (!tab.page.isClosed() && tab.renders < TAB_MAX_RENDERS && !this.closed && !state.closed) {
          state.idle.push(tab);
        } else {
          state.tabs.delete(tab.page);
          void tab.page.close().catch(() => undefined);
        }
      }
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const opening = this.state?.catch(() => undefined);
    const reclaim = async (state: ContextState | undefined) => {
      if (state && !state.closed) await this.renderer.reclaimContext(state);
    };
    // A context still opening (a caller who left, a browser that stopped answering and is being
    // restarted) is closed when it opens, not waited for: the call ends now.
    if (opening && !(await settlesWithin(opening, CLOSE_GRACE_MS))) {
      void opening.then(reclaim);
      return;
    }
    await reclaim(await opening);
  }

  /**
   * This call's context and a tab in it, once the browser runs (its launch has a limit of its own),
   * within the page deadline (30 s at least): a browser that stopped answering (running, but opening
   * nothing) is killed and started again rather than waited for.
   */
  private async openTab(url: string, signal: AbortSignal | undefined): Promise<{ state: ContextState; tab: Tab }> {
    await this.renderer.ready();
    const limit = within(Math.max(this.renderer.timeoutMs, OPEN_MIN_MS), signal);
    const opening = limit.signal;
    let state: ContextState | undefined;
    try {
      state = await deadlineRace(this.context(), opening);
      const tab = state.idle.pop() ?? (await deadlineRace(this.renderer.newTab(state), opening));
      return { state, tab };
    } catch (error) {
      if (signal?.aborted) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`, { cause: error });
      if (!limit.expired) throw error;
      await this.renderer.restartCurrent();
      throw new GleanerError('UPSTREAM_UNAVAILABLE', `The rendering browser did not open a page for ${url} in time; it is started again for the next page.`, { cause: error });
    } finally {
      limit.clear();
    }
  }

  private overTime(url: string): GleanerError {
    return new GleanerError(
      'UPSTREAM_TIMEOUT',
      `${url} was not rendered: this call's rendering as a whole may take ${Math.round(this.renderer.sessionTimeoutMs / 1000)} s (GLEANER_RENDER_CRAWL_TIMEOUT_MS), and that time is used up.`,
    );
  }

  /** This call's context (one, however many pages ask at once); a new one when the browser or the context went away under it. */
  private context(): Promise<ContextState> {
    const current = (this.state ??= this.renderer.takeContext(this.prepareNext, this.lang));
    const forget = () => {
      if (this.state === current) this.state = undefined;
    };
    return current.then(
      (state) => {
        if (state.browser.isConnected() && !state.closed) return state;
        forget();
        return this.context();
      },
      (error: unknown) => {
        forget();
        throw error;
      },
    );
  }
}

/** Playwright's words for a page, context or browser that closed while a call used it. */
function closedUnderUs(error: unknown): boolean {
  return /has been closed|Target closed|browser has disconnected/i.test(String((error as Error)?.message ?? ''));
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(error.message));
}
