/**
 * Every request a rendered page makes (its document, scripts, XHR and fetch, iframes, workers'
 * requests, beacons) goes through Gleaner's own outbound client instead of the browser's network:
 * the SSRF guard, GLEANER_UPSTREAM_OVERRIDES, proxies, size caps and per-host politeness apply to
 * the browser exactly as to a plain fetch. The browser never connects anywhere itself:
 *   - requests are answered with route.fulfill from the client's reply, or aborted;
 *   - redirects are followed by the client (each hop guarded), because the browser would send a
 *     fulfilled redirect's next hop straight to the network, past the route;
 *   - WebSockets are refused (closed before any connection);
 *   - the context's proxy is a closed port (see contexts.ts), so anything that slipped past the
 *     route (a request type Playwright does not route) fails instead of reaching the network.
 * Images, fonts and media are not fetched at all: text is what a render is for.
 */
import type { BrowserContext, Route, Request } from 'playwright-core';
import type { HttpClient } from '../../net/http.js';
import { isGleanerError } from '../../errors.js';

/** Resource types never fetched for a render. */
const BLOCKED_TYPES = new Set(['image', 'font', 'media', 'texttrack', 'manifest']);
/** Largest single resource of a rendered page. */
const RESOURCE_MAX_BYTES = 10 * 1024 * 1024;
/** Largest total a rendered page may fetch, and the most requests it may make. */
const PAGE_MAX_BYTES = 40 * 1024 * 1024;
const PAGE_MAX_REQUESTS = 400;

/** Headers of the browser's request that the client sets itself or that do not travel. */
const DROPPED_REQUEST_HEADERS = /^(?::|host$|connection$|content-length$|accept-encoding$|user-agent$|proxy-|keep-alive$|transfer-encoding$|upgrade$)/i;
const DROPPED_RESPONSE_HEADERS = /^(?:connection|keep-alive|transfer-encoding|content-length|content-encoding)$/i;

/** The already fetched document, served to the browser's first navigation to its URL (not fetched twice). */
export interface PrefetchedDocument {
  url: string;
  status: number;
  headers: Record<string, string>;
  html: string;
}

/** What one render of a page is doing: the requests of that page are counted here. */
export interface RenderJob {
  prefetched?: PrefetchedDocument;
  /** Aborted at the page's deadline: every request still being fetched stops. */
  signal: AbortSignal;
  traffic: PageTraffic;
}

/** The requests of one render: in flight, refused, over the page's limits. */
export class PageTraffic {
  inFlight = 0;
  bytes = 0;
  requests = 0;
  /** Hosts whose requests the guard refused (private or loopback addresses) or WebSockets, for the warnings. */
  readonly refusedHosts = new Set<string>();
  failed = 0;
  overLimit = 0;
  /** A navigation of the page's main frame the guard refused (a script sending the page to loopback): the render fails. */
  refusedNavigation?: string;
  private lastSettled = Date.now();
  private readonly waiters = new Set<() => void>();

  begin(): void {
    this.inFlight++;
  }

  end(): void {
    this.inFlight--;
    this.lastSettled = Date.now();
    for (const check of [...this.waiters]) check();
  }

  /** Resolves once no request has been in flight for `ms` (counted from now at the earliest), or when `signal` aborts. */
  quiet(ms: number, signal: AbortSignal): Promise<void> {
    // From now at the earliest: a request the page is issuing may not have reached the route yet.
    const from = Date.now();
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const check = () => {
        clearTimeout(timer);
        if (this.inFlight > 0) return; // checked again when a request settles
        const wait = Math.max(this.lastSettled, from) + ms - Date.now();
        if (wait <= 0) return done();
        timer = setTimeout(check, wait);
      };
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(check);
      check();
    });
  }
}

/** The renders under way in one context. */
export interface ContextJobs {
  /** The render a request belongs to (by its page); none for a page between renders or a worker without a frame. */
  forRequest(request: Request): RenderJob | undefined;
  active(): Iterable<RenderJob>;
}

/** Installs the routing on a context; a request of no render is refused. */
export async function routeThroughClient(context: BrowserContext, http: HttpClient, jobs: ContextJobs): Promise<void> {
  const handle = async (route: Route, request: Request) => {
    const job = jobs.forRequest(request);
    if (!job || BLOCKED_TYPES.has(request.resourceType())) return route.abort('blockedbyclient').catch(() => undefined);
    const { traffic } = job;
    const url = request.url();
    const prefetched = job.prefetched;
    if (prefetched && isMainNavigation(request) && sameDocument(url, prefetched.url)) {
      job.prefetched = undefined;
      return route
        .fulfill({ status: prefetched.status, headers: { ...responseHeaders(prefetched.headers), 'content-type': 'text/html; charset=utf-8' }, body: prefetched.html })
        .catch(() => undefined);
    }
    if (++traffic.requests > PAGE_MAX_REQUESTS || traffic.bytes > PAGE_MAX_BYTES) {
      traffic.overLimit++;
      return route.abort('blockedbyclient').catch(() => undefined);
    }
    traffic.begin();
    try {
      const headers = Object.fromEntries(Object.entries(await request.allHeaders()).filter(([name]) => !DROPPED_REQUEST_HEADERS.test(name)));
      const method = request.method().toUpperCase();
      if (!isClientMethod(method)) throw new Error(`method ${method} not fetched for a render`);
      const response = await http.fetch(url, {
        method,
        headers,
        body: request.postDataBuffer() ?? undefined,
        signal: job.signal,
        maxBytes: Math.min(RESOURCE_MAX_BYTES, Math.max(1, PAGE_MAX_BYTES - traffic.bytes)),
        // The browser does not retry a subresource either; the document was fetched with retries.
        retries: 0,
      });
      traffic.bytes += response.body.length;
      await route.fulfill({ status: response.status, headers: responseHeaders(response.headers), body: response.body });
    } catch (error) {
      const refused = isGleanerError(error) && error.code === 'URL_NOT_ALLOWED';
      if (refused) traffic.refusedHosts.add(hostOf(url));
      if (refused && isMainNavigation(request)) traffic.refusedNavigation = url;
      else traffic.failed++;
      await route.abort(refused ? 'blockedbyclient' : 'failed').catch(() => undefined);
    } finally {
      traffic.end();
    }
  };
  await context.route('**/*', handle);
  await context.routeWebSocket(
    () => true,
    (socket) => {
      // A WebSocket route does not say which page opened it: every render of the context hears of it.
      for (const job of jobs.active()) job.traffic.refusedHosts.add(`${hostOf(socket.url())} (WebSocket)`);
      return socket.close({ code: 1008, reason: 'WebSockets are not opened for rendered pages' });
    },
  );
}
type ClientMethod = 'GET' | 'POST' | 'HEAD' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
function isClientMethod(method: string): method is ClientMethod {
  return ['GET', 'POST', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].includes(method);
}

function responseHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !DROPPED_RESPONSE_HEADERS.test(name)));
}

function isMainNavigation(request: Request): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    return request.frame().parentFrame() === null;
  } catch {
    return false; // a worker's request has no frame
  }
}

/** The same document: equal but for the fragment. */
function sameDocument(a: string, b: string): boolean {
  return a.split('#')[0] === b.split('#')[0];
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}
