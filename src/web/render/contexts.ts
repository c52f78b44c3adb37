/**
 * Browser contexts: every call (a scrape, one crawl, one map) gets one of its own, fresh (no cookie,
 * storage or cache crosses calls, so none crosses accounts). A context speaks as the plain fetch
 * does: the client's user agent, and the call's `lang` as the browser's locale (navigator.language)
 * and the Accept-Language of every request. Every request of its pages goes through Gleaner's
 * outbound client (routing.ts), and WebRTC is gone from every frame (webrtc.ts).
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import { acceptLanguage } from '../../net/identity.js';
import { routeThroughClient, type RenderJob } from './routing.js';
import { NO_WEBRTC_SCRIPT } from './webrtc.js';

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

/** A page (tab) of a context, reused from one render to the next. */
export interface Tab {
  page: Page;
  job?: RenderJob;
  renders: number;
}

/** One call's browser context and its tabs. */
export interface ContextState {
  browser: Browser;
  /** The language the context was opened for (its locale and Accept-Language). */
  lang: string | undefined;
  context: BrowserContext;
  tabs: Map<Page, Tab>;
  idle: Tab[];
  /** Closed (or being closed) because a page in it would not close: not used again. */
  closed: boolean;
}

/** A new context in `lang`, routed through `http`, with one tab open. */
export async function openContext(browser: Browser, lang: string | undefined, http: HttpClient): Promise<ContextState> {
  let context: BrowserContext;
  try {
    context = await browser.newContext(contextOptions(lang, http));
  } catch (error) {
    throw new GleanerError('UPSTREAM_UNAVAILABLE', `The rendering browser could not open a page: ${String((error as Error).message).split('\n')[0]}`, { cause: error });
  }
  const state: ContextState = { browser, lang, context, tabs: new Map(), idle: [], closed: false };
  // WebRTC reaches the network past every route and proxy: gone from every frame before its scripts run.
  await context.addInitScript(NO_WEBRTC_SCRIPT);
  await routeThroughClient(context, http, {
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
  state.idle.push(await newTab(state));
  return state;
}

export async function newTab(state: ContextState): Promise<Tab> {
  const page = await state.context.newPage();
  // Pop-ups are not followed: the page asked for is the one read.
  page.on('popup', (popup) => void popup.close().catch(() => undefined));
  const tab: Tab = { page, renders: 0 };
  state.tabs.set(page, tab);
  return tab;
}

/**
 * A context's options: the plain fetch's identity (user agent, Accept-Language from `lang`) and the
 * locale of `lang`, so that the page's scripts (navigator.userAgent, navigator.language, Intl) see
 * what the site's server saw. Without a lang, the plain fetch's English default.
 */
function contextOptions(lang: string | undefined, http: HttpClient): BrowserContextOptions {
  const languages = acceptLanguage(lang);
  return {
    ...CONTEXT_OPTIONS,
    userAgent: http.userAgent,
    locale: languages.split(',')[0],
    extraHTTPHeaders: { 'accept-language': languages },
  };
}
