/**
 * The browser that renders JavaScript pages, and its lifecycle: launched (or connected to, over CDP)
 * on the first page that needs it, never at start-up (launch.ts); relaunched after a crash; killed
 * and started again when it stops answering; closed with the app.
 *
 * A pool of contexts (contexts.ts): every call (a scrape, one crawl, one map) gets a browser context
 * of its own, closed when the call ends (session.ts). One context is kept prepared (with a page
 * open) for the next call, so a call does not wait for a new renderer process; it is used only by a
 * call with its language (it is prepared with the last call's), another call opens its own. At most
 * `concurrency` pages render at once in the whole process, and one key (account) at most its share
 * of them (fair-slots.ts).
 *
 * Every render is bounded (page-render.ts, deadline.ts): a page whose script never yields returns at
 * its deadline; the page is then closed, and if it does not close, its context, and if that hangs
 * too, the browser process is killed and started again for the next page. Renderers have a memory
 * limit (memory-watch.ts).
 *
 * Chromium's own output never reaches stdout (the MCP protocol in stdio mode): Playwright starts it
 * with piped stdio, and nothing here reads or forwards those pipes.
 */
import type { Browser } from 'playwright-core';
import { GleanerError } from '../../errors.js';
import { PAGE_MAX_BYTES } from '../fetch-page.js';
import { FairSlots } from '../fair-slots.js';
import { openContext, type ContextState, type Tab } from './contexts.js';
import { CLOSE_GRACE_MS, settlesWithin } from './deadline.js';
import { closedUnderUs, launchFailure, startBrowser, type StartableTarget } from './launch.js';
import { locateBrowser, type BrowserTarget } from './locate.js';
import { findChildByMarker, watchRendererMemory } from './memory-watch.js';
import { RenderSession, type RenderPool } from './session.js';
import type { Availability, PageRenderer, RenderedPage, RendererOptions, RenderLimits, RenderOptions } from './types.js';

export { launchArgs } from './launch.js';
export { DEAD_PROXY } from './contexts.js';

/** After a failed launch, pages fall back (auto) or fail (always) for this long before another try. */
const RELAUNCH_BACKOFF_MS = 15_000;

export class Renderer implements PageRenderer, RenderPool {
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
  readonly limits: RenderLimits;

  constructor(private readonly options: RendererOptions) {
    this.slots = new FairSlots(options.concurrency, Math.min(options.concurrency, options.concurrencyPerOwner ?? Math.ceil(options.concurrency / 2)), 'a browser slot');
    this.limits = {
      timeoutMs: options.timeoutMs,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 10 * 60_000,
      memoryMb: options.memoryMb ?? 1024,
      maxHtmlBytes: options.maxHtmlBytes ?? PAGE_MAX_BYTES,
    };
  }

  /** Whether pages can be rendered, without launching anything; the reason names the settings when not. */
  availability(): Availability {
    this.target ??= locateBrowser({ browserPath: this.options.browserPath, wsUrl: this.options.wsUrl });
    if (this.closed) return { ok: false, reason: 'the server is shutting down' };
    if (this.target.kind === 'none') return { ok: false, reason: this.target.reason };
    if (this.failure && Date.now() - this.failedAt < RELAUNCH_BACKOFF_MS) return { ok: false, reason: this.failure.message };
    return { ok: true };
  }

  /** Renders for one call that reads many pages (a crawl, a map): one context in `lang`, closed by `close`, within the session deadline. */
  session(options: { lang?: string; owner?: string } = {}): RenderSession {
    return new RenderSession(this, false, options.lang, options.owner, Date.now() + this.limits.sessionTimeoutMs);
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
      this.spare = prepareNext && !this.closed ? { lang, state: openContext(browser, lang, this.options.http).catch(() => undefined) } : undefined;
    }
    const spare = await claimed;
    if (spare && spare.browser === browser && browser.isConnected()) return spare;
    await spare?.context.close().catch(() => undefined);
    return openContext(browser, lang, this.options.http);
  }

  private running(): Promise<Browser> {
    const available = this.availability();
    if (!available.ok) throw new GleanerError('NOT_CONFIGURED', `Rendering needs a browser: ${available.reason}.`);
    this.browser ??= this.launch(this.target as StartableTarget);
    return this.browser;
  }

  private async launch(target: StartableTarget): Promise<Browser> {
    const started = Date.now();
    try {
      const { browser, marker } = await startBrowser(target, this.limits.memoryMb);
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
      this.failure = launchFailure(target, error);
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
    this.stopWatch = watchRendererMemory(pid, this.limits.memoryMb * 1024 * 1024, (renderer, bytes) => {
      this.options.log?.warn({ pid: renderer, mb: Math.round(bytes / 1024 / 1024) }, 'A renderer passed GLEANER_RENDER_MEMORY_MB and was stopped');
    });
  }
}
