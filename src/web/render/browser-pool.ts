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
 * process, each with a deadline. Every request of a page goes through Gleaner's outbound client
 * (routing.ts).
 *
 * Chromium's own output never reaches stdout (the MCP protocol in stdio mode): Playwright starts it
 * with piped stdio, and nothing here reads or forwards those pipes.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { HttpClient } from '../../net/http.js';
import type { Logger } from '../../log.js';
import { GleanerError } from '../../errors.js';
import { acceptLanguage } from '../../net/identity.js';
import { locateBrowser, type BrowserTarget } from './locate.js';
import { looksLikeAppShell, looksLikeChallenge, visibleTextLength } from './shell.js';
import { PageTraffic, routeThroughClient, type PrefetchedDocument, type RenderJob } from './routing.js';

/**
 * Flags for a local Chromium that work as root in a container: no sandbox (root cannot have one),
 * no GPU, no QUIC (UDP is not routed), none of the browser's own background traffic, and WebRTC
 * kept off UDP, which no proxy carries. Playwright adds --headless and a fresh --user-data-dir.
 */
const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/**
 * The contexts' proxy is a closed loopback port with no bypass: the route answers every request
 * before it would reach a proxy, so only a request the route did not see would use it, and fails.
 */
const DEAD_PROXY = { server: 'http://127.0.0.1:1', bypass: '' };

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

export interface RendererOptions {
  http: HttpClient;
  /** GLEANER_BROWSER_PATH */
  browserPath?: string;
  /** GLEANER_BROWSER_WS_URL */
  wsUrl?: string;
  concurrency: number;
  timeoutMs: number;
  log?: Logger;
}

export interface RenderOptions {
  /** The document already fetched plainly: served to the browser instead of fetched again. */
  prefetched?: PrefetchedDocument;
  /** Milliseconds to wait after the page settled, or a CSS selector to wait for (within the deadline). */
  waitFor?: number | string;
  /** The caller's preferred language (the browser's locale and Accept-Language), as the plain fetch sends it. */
  lang?: string;
  signal?: AbortSignal;
}

export interface RenderedPage {
  /** Where the page ended (a script may have navigated). */
  url: string;
  status: number;
  /** The DOM serialised after scripts ran. */
  html: string;
  warnings: string[];
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
}

export class Renderer implements PageRenderer {
  private target?: BrowserTarget;
  private browser?: Promise<Browser>;
  /** A context prepared for the next call, in the language of the last. */
  private spare?: { lang: string | undefined; state: Promise<ContextState | undefined> };
  private failedAt = 0;
  private failure?: GleanerError;
  private closed = false;
  readonly slots: LimitFunction;

  constructor(private readonly options: RendererOptions) {
    this.slots = pLimit(options.concurrency);
  }

  /** Whether pages can be rendered, without launching anything; the reason names the settings when not. */
  availability(): { ok: true } | { ok: false; reason: string } {
    this.target ??= locateBrowser({ browserPath: this.options.browserPath, wsUrl: this.options.wsUrl });
    if (this.closed) return { ok: false, reason: 'the server is shutting down' };
    if (this.target.kind === 'none') return { ok: false, reason: this.target.reason };
    if (this.failure && Date.now() - this.failedAt < RELAUNCH_BACKOFF_MS) return { ok: false, reason: this.failure.message };
    return { ok: true };
  }

  /** Renders for one call that reads many pages (a crawl, a map): one context in `lang`, closed by `close`. */
  session(lang?: string): RenderSession {
    return new RenderSession(this, false, lang);
  }

  /** One page for one call, in a context of its own (the prepared one; another is prepared behind it). */
  async render(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
    for (let attempt = 1; ; attempt++) {
      const session = new RenderSession(this, true, options.lang);
      try {
        return await session.render(url, options);
      } catch (error) {
        // The browser died under this page (killed, crashed) before Playwright reported it: start a
        // new one and try the page once more.
        if (attempt > 1 || this.closed || !(await this.forgetDeadBrowser(error))) throw error;
      } finally {
        await session.close();
      }
    }
  }

  /** True (and the browser and its prepared context dropped) when `error` came from a browser that is gone. */
  private async forgetDeadBrowser(error: unknown): Promise<boolean> {
    const browser = await this.browser?.catch(() => undefined);
    const gone = /has been closed|Target closed|browser has disconnected/i.test(String((error as Error)?.message ?? error)) || (browser !== undefined && !browser.isConnected());
    if (!gone) return false;
    this.browser = undefined;
    const spare = this.spare;
    this.spare = undefined;
    void spare?.state.then((state) => state?.context.close().catch(() => undefined));
    await browser?.close().catch(() => undefined);
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    const spare = await this.spare?.state;
    await spare?.context.close().catch(() => undefined);
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
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
    const state: ContextState = { browser, lang, context, tabs: new Map(), idle: [] };
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
      const browser =
        target.kind === 'remote'
          ? await chromium.connectOverCDP(target.wsUrl, { timeout: 30_000 })
          : await chromium.launch({
              executablePath: target.executablePath,
              headless: true,
              args: LAUNCH_ARGS,
              chromiumSandbox: false,
              // The app closes the browser on shutdown (app.close); Playwright must not race it.
              handleSIGINT: false,
              handleSIGTERM: false,
              handleSIGHUP: false,
              timeout: 30_000,
            });
      const current = this.browser;
      browser.on('disconnected', () => {
        // A crash (or a remote browser going away): the next page launches a new one.
        if (this.browser === current) this.browser = undefined;
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

  /** One render in a tab: navigate (the document served from the plain fetch), let it settle, wait as asked, read the DOM. */
  async renderIn(tab: Tab, url: string, options: RenderOptions): Promise<RenderedPage> {
    const timeoutMs = this.options.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    const remaining = () => Math.max(1, deadline - Date.now());
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const warnings: string[] = [];
    const traffic = new PageTraffic();
    const page = tab.page;
    // The caller going away ends the page at once; the deadline only bounds the waits below.
    const stop = () => void page.close().catch(() => undefined);
    options.signal?.addEventListener('abort', stop, { once: true });
    tab.job = { prefetched: options.prefetched, signal, traffic };
    try {
      let status = options.prefetched?.status ?? 200;
      try {
        const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: remaining() });
        if (response) status = response.status();
      } catch (error) {
        options.signal?.throwIfAborted();
        if (page.url() === 'about:blank' || !isTimeout(error)) {
          throw new GleanerError('UPSTREAM_ERROR', `The browser could not load ${url}: ${String((error as Error).message).split('\n')[0]}`, { cause: error });
        }
        warnings.push(`The page did not finish loading within ${timeoutMs} ms; what it showed by then was read.`);
      }
      await page.waitForLoadState('load', { timeout: Math.min(remaining(), SETTLE_MAX_MS) }).catch(() => undefined);
      const settle = AbortSignal.any([signal, AbortSignal.timeout(Math.min(remaining(), SETTLE_MAX_MS))]);
      await traffic.quiet(QUIET_MS, settle);
      await this.waitFor(page, options.waitFor, remaining, warnings);
      options.signal?.throwIfAborted();
      // The DOM, read again once loaded if the page is navigating meanwhile (a challenge reloads itself).
      const read = async () => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await page.content();
          } catch (error) {
            if (attempt >= 3 || signal.aborted || page.isClosed()) throw error;
            await page.waitForLoadState('load', { timeout: Math.min(remaining(), SETTLE_MAX_MS) }).catch(() => undefined);
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
      while (!settle.aborted && building()) {
        await traffic.quiet(QUIET_MS, settle);
        html = await read();
      }
      // The document read may not be the first one (a challenge reloads): its own status, where the browser says it.
      const finalStatus = await page.evaluate('performance.getEntriesByType("navigation")[0]?.responseStatus').catch(() => undefined);
      if (typeof finalStatus === 'number' && finalStatus > 0) status = finalStatus;
      if (traffic.refusedHosts.size) {
        warnings.push(`Requests of the page to ${[...traffic.refusedHosts].slice(0, 5).join(', ')} were refused (private or loopback addresses, or WebSockets, are not opened for rendered pages).`);
      }
      if (traffic.overLimit) warnings.push(`The page made too many requests; ${traffic.overLimit} were not fetched.`);
      return { url: page.url(), status, html, warnings };
    } catch (error) {
      if (options.signal?.aborted) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`, { cause: error });
      if (error instanceof GleanerError) throw error;
      if (!page.context().browser()?.isConnected()) {
        throw new GleanerError('UPSTREAM_UNAVAILABLE', `The rendering browser stopped while rendering ${url}; it is started again for the next page.`, { cause: error });
      }
      throw new GleanerError('UPSTREAM_ERROR', `The browser could not render ${url}: ${String((error as Error).message).split('\n')[0]}`, { cause: error });
    } finally {
      tab.job = undefined;
      options.signal?.removeEventListener('abort', stop);
    }
  }

  private async waitFor(page: Page, waitFor: number | string | undefined, remaining: () => number, warnings: string[]): Promise<void> {
    if (waitFor === undefined) return;
    if (typeof waitFor === 'number') {
      const ms = Math.min(waitFor, remaining());
      if (ms < waitFor) warnings.push(`waitFor ${waitFor} ms was cut to ${ms} ms by the page deadline (GLEANER_RENDER_TIMEOUT_MS).`);
      await page.waitForTimeout(ms);
      return;
    }
    try {
      await page.waitForSelector(`css=${waitFor}`, { state: 'attached', timeout: remaining() });
    } catch (error) {
      const message = String((error as Error).message);
      if (/not a valid selector|unexpected token|selector.*pars|parse.*selector/i.test(message)) {
        throw new GleanerError('INVALID_REQUEST', `waitFor: "${waitFor}" is not a valid CSS selector.`);
      }
      if (!isTimeout(error)) throw error;
      warnings.push(`waitFor: no element matched "${waitFor}" before the page deadline; the page was read as it was.`);
    }
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
  ) {}

  availability(): { ok: true } | { ok: false; reason: string } {
    return this.renderer.availability();
  }

  render(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
    return this.renderer.slots(async () => {
      options.signal?.throwIfAborted();
      if (this.closed) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`);
      const state = await this.context();
      const tab = state.idle.pop() ?? (await this.renderer.newTab(state));
      let healthy = false;
      try {
        const page = await this.renderer.renderIn(tab, url, options);
        healthy = true;
        return page;
      } finally {
        tab.renders++;
        if (healthy && !tab.page.isClosed() && tab.renders < TAB_MAX_RENDERS && !this.closed) {
          state.idle.push(tab);
        } else {
          state.tabs.delete(tab.page);
          void tab.page.close().catch(() => undefined);
        }
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const state = await this.state?.catch(() => undefined);
    await state?.context.close().catch(() => undefined);
  }

  /** This call's context (one, however many pages ask at once); a new one when the browser went away under it. */
  private context(): Promise<ContextState> {
    const current = (this.state ??= this.renderer.takeContext(this.prepareNext, this.lang));
    const forget = () => {
      if (this.state === current) this.state = undefined;
    };
    return current.then(
      (state) => {
        if (state.browser.isConnected()) return state;
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

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(error.message));
}
