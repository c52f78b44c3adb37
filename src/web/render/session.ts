/**
 * The renders of one call: one fresh context, its tabs reused from page to page (up to a limit of
 * renders each), closed with the call. Each render waits for a render slot (fair-slots.ts: at most
 * `concurrency` pages at once in the process, one key at most its share); a crawl's or map's session
 * has a deadline of its own, against which waiting for a slot counts.
 */
import type { Browser } from 'playwright-core';
import { GleanerError } from '../../errors.js';
import { deadline, deadlineAt } from '../../deadline.js';
import type { FairSlots } from '../fair-slots.js';
import { newTab, type ContextState, type Tab } from './contexts.js';
import { CLOSE_GRACE_MS, deadlineRace, settlesWithin } from './deadline.js';
import { renderPage } from './page-render.js';
import type { Availability, PageRenderer, RenderedPage, RenderLimits, RenderOptions } from './types.js';

/** Renders one tab serves before it is closed and replaced (pages leak memory over many navigations). */
const TAB_MAX_RENDERS = 50;
/** The least time a running browser is given to open a context and a tab before it is taken for hung. */
const OPEN_MIN_MS = 30_000;

/** What a session uses of the browser pool (browser-pool.ts). */
export interface RenderPool {
  readonly slots: FairSlots;
  readonly limits: RenderLimits;
  availability(): Availability;
  ready(): Promise<Browser>;
  takeContext(prepareNext: boolean, lang: string | undefined): Promise<ContextState>;
  /** Frees what a failed or cut render held (its page; if stuck, its context; then the browser). */
  reclaim(state: ContextState, tab: Tab): Promise<void>;
  reclaimContext(state: ContextState): Promise<void>;
  restartCurrent(): Promise<void>;
}

export class RenderSession implements PageRenderer {
  private state?: Promise<ContextState>;
  private closed = false;

  constructor(
    private readonly pool: RenderPool,
    private readonly prepareNext: boolean,
    private readonly lang?: string,
    private readonly owner = '',
    /** When this call's rendering as a whole must end (a crawl's, a map's); none for one page. */
    private readonly deadline = Number.POSITIVE_INFINITY,
  ) {}

  availability(): Availability {
    return this.pool.availability();
  }

  async render(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
    options.signal?.throwIfAborted();
    if (Date.now() >= this.deadline) throw this.overTime(url);
    // Waiting for a slot counts against the call's own deadline, not against the page's.
    const wait = deadlineAt(this.deadline, options.signal);
    let release: () => void;
    try {
      release = await this.pool.slots.acquire(this.owner, wait.signal);
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
        const page = await renderPage(tab, url, options, this.pool.limits, this.deadline);
        healthy = true;
        return page;
      } finally {
        tab.renders++;
        if (!healthy) {
          // A failed or cut render's page may be stuck in a script: closed (or worse) before the slot is freed.
          await this.pool.reclaim(state, tab);
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
      if (state && !state.closed) await this.pool.reclaimContext(state);
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
    await this.pool.ready();
    const limit = deadline(Math.max(this.pool.limits.timeoutMs, OPEN_MIN_MS), signal);
    let state: ContextState | undefined;
    try {
      state = await deadlineRace(this.context(), limit.signal);
      const tab = state.idle.pop() ?? (await deadlineRace(newTab(state), limit.signal));
      return { state, tab };
    } catch (error) {
      if (signal?.aborted) throw new GleanerError('UPSTREAM_UNAVAILABLE', `Rendering ${url} was stopped.`, { cause: error });
      if (!limit.expired) throw error;
      await this.pool.restartCurrent();
      throw new GleanerError('UPSTREAM_UNAVAILABLE', `The rendering browser did not open a page for ${url} in time; it is started again for the next page.`, { cause: error });
    } finally {
      limit.clear();
    }
  }

  private overTime(url: string): GleanerError {
    return new GleanerError(
      'UPSTREAM_TIMEOUT',
      `${url} was not rendered: this call's rendering as a whole may take ${Math.round(this.pool.limits.sessionTimeoutMs / 1000)} s (GLEANER_RENDER_CRAWL_TIMEOUT_MS), and that time is used up.`,
    );
  }

  /** This call's context (one, however many pages ask at once); a new one when the browser or the context went away under it. */
  private context(): Promise<ContextState> {
    const current = (this.state ??= this.pool.takeContext(this.prepareNext, this.lang));
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
