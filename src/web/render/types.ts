/** What the renderer is configured with, what one render is asked, and what it gives back. */
import type { HttpClient } from '../../net/http.js';
import type { Logger } from '../../log.js';
import type { BrowserAction } from './actions.js';
import type { PrefetchedDocument } from './routing.js';
import type { Screenshot, ScreenshotKind } from './screenshot.js';

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

/** The bounds every render keeps, resolved from the options. */
export interface RenderLimits {
  timeoutMs: number;
  sessionTimeoutMs: number;
  memoryMb: number;
  maxHtmlBytes: number;
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

export type Availability = { ok: true } | { ok: false; reason: string };

/** What renders a page: the renderer (one call, one page) or a session of it (one call, many pages). */
export interface PageRenderer {
  availability(): Availability;
  render(url: string, options?: RenderOptions): Promise<RenderedPage>;
}
