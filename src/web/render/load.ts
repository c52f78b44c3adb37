/**
 * One page for scrape, crawl, map and metadata, rendered or not as the caller's `render` asks:
 *   never   the HTML the server sends;
 *   auto    the same, unless it is an app shell or a JavaScript challenge (shell.ts): then rendered,
 *           or, with no browser (or no credits for one), the plain page with a warning;
 *   always  rendered (HTML pages; other content is read as it is); no browser is NOT_CONFIGURED.
 * The page is always fetched plainly first, through the client (redirects, the guard, size caps),
 * and the browser is handed that document rather than fetching it again.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError, isGleanerError } from '../../errors.js';
import { fetchPage, statusError, RedirectSignal, type FetchedPage, type FetchPageOptions } from '../fetch-page.js';
import type { PageRenderer } from './types.js';
import type { BrowserAction } from './actions.js';
import type { Screenshot, ScreenshotKind } from './screenshot.js';
import { looksLikeAppShell, looksLikeChallenge } from './shell.js';

export type RenderMode = 'never' | 'auto' | 'always';

export interface RenderChoice {
  mode: RenderMode;
  waitFor?: number | string;
  /** The app's renderer (or a call's session of it); absent means no browser. */
  renderer?: PageRenderer;
  /** Who the renders are for (the account): render slots are shared fairly between owners. */
  owner?: string;
  /**
   * Pays for one render before it starts (reserves its credits): throws CREDITS_EXHAUSTED when it
   * cannot; resolves false when the caller's own share of renders is used up (the page is read plainly).
   */
  pay?: () => Promise<boolean | void>;
  /**
   * Browser actions and a screenshot (web_scrape): they need the browser, so an HTML page is then
   * rendered whatever `mode` says (the operation refuses them with `never`), and a failed render is an
   * error, as with `always`, never the plain page.
   */
  actions?: BrowserAction[];
  screenshot?: ScreenshotKind;
}

export interface LoadedPage extends FetchedPage {
  /** True when the content is the DOM after a browser ran the page's scripts. */
  rendered: boolean;
  /** What the caller should know about how the page was read (rendering skipped, requests refused). */
  warnings: string[];
  /** The screenshot the choice asked for, when the page was rendered. */
  screenshot?: Screenshot;
}

export const NEVER_RENDER: RenderChoice = { mode: 'never' };

export async function loadPage(http: HttpClient, url: string, choice: RenderChoice, options: FetchPageOptions & { manualRedirects: true }): Promise<LoadedPage | RedirectSignal>;
export async function loadPage(http: HttpClient, url: string, choice: RenderChoice, options?: FetchPageOptions): Promise<LoadedPage>;
export async function loadPage(http: HttpClient, url: string, choice: RenderChoice, options: FetchPageOptions = {}): Promise<LoadedPage | RedirectSignal> {
  const fetched = await fetchPage(http, url, { ...options, keepChallenge: choice.mode !== 'never' });
  if (fetched instanceof RedirectSignal) return fetched;
  const plain: LoadedPage = { ...fetched, rendered: false, warnings: [] };
  const browserWork = Boolean(choice.actions?.length || choice.screenshot);
  if (plain.kind !== 'html' && browserWork && choice.mode !== 'never') {
    return { ...plain, warnings: [`actions and screenshot apply to HTML pages; ${plain.url} is ${plain.contentType}, read as it is.`] };
  }
  if (plain.kind !== 'html' || choice.mode === 'never') return plain;
  const challenge = looksLikeChallenge(plain.status, plain.headers, plain.text);
  const why = challenge ? 'a JavaScript challenge (bot check)' : looksLikeAppShell(plain.text) ? 'an app shell (its text is built by scripts)' : undefined;
  if (choice.mode === 'auto' && !why && !browserWork) return plain;
  // Actions and screenshots are the browser's alone: no plain page stands in for them.
  const strict = choice.mode === 'always' || browserWork;

  const available = choice.renderer?.availability() ?? { ok: false as const, reason: 'no browser is configured (GLEANER_BROWSER_PATH or GLEANER_BROWSER_WS_URL)' };
  if (!available.ok) {
    if (strict) throw new GleanerError('NOT_CONFIGURED', `${browserWork ? 'actions and screenshot need' : 'render=always needs'} a browser: ${available.reason}.`);
    return fallback(plain, challenge, `The page looks like ${why} but was not rendered: ${available.reason}. The HTML the server sent was read instead.`);
  }
  if (choice.pay) {
    try {
      if ((await choice.pay()) === false) {
        return fallback(plain, challenge, `The page looks like ${why} but was not rendered: this call's share of rendered pages is used up. The HTML the server sent was read instead.`);
      }
    } catch (error) {
      if (strict || !isGleanerError(error) || error.code !== 'CREDITS_EXHAUSTED') throw error;
      return fallback(plain, challenge, `The page looks like ${why} but was not rendered: the credits left do not cover rendering. The HTML the server sent was read instead.`);
    }
  }

  let rendered;
  try {
    rendered = await choice.renderer!.render(plain.url, {
      prefetched: { url: plain.url, status: plain.status, headers: plain.headers, html: plain.text },
      waitFor: choice.waitFor,
      lang: options.lang,
      owner: choice.owner,
      actions: choice.actions,
      screenshot: choice.screenshot,
      signal: options.signal,
    });
  } catch (error) {
    // A DOM over the page cap is refused as a page over the cap is, whatever the mode.
    if (strict || options.signal?.aborted || (isGleanerError(error) && (error.code === 'INVALID_REQUEST' || error.code === 'PAYLOAD_TOO_LARGE'))) throw error;
    const reason = isGleanerError(error) ? error.message : 'the browser failed';
    return fallback(plain, challenge, `The page looks like ${why} but rendering failed (${reason}). The HTML the server sent was read instead.`);
  }
  if (challenge && looksLikeChallenge(rendered.status, {}, rendered.html)) {
    throw new GleanerError('UPSTREAM_BLOCKED', `${new URL(plain.url).host} answered with a JavaScript challenge that the browser did not pass; a proxy (GLEANER_PROXY_URL) from another network may help.`);
  }
  if (rendered.status >= 400) throw statusError(rendered.url, rendered.status);
  return {
    ...plain,
    url: rendered.url,
    status: rendered.status,
    contentType: 'text/html; charset=utf-8',
    text: rendered.html,
    rendered: true,
    warnings: rendered.warnings,
    ...(rendered.screenshot ? { screenshot: rendered.screenshot } : {}),
  };
}

/** The plain page when it could not be rendered; a challenge's error page is no page at all. */
function fallback(plain: LoadedPage, challenge: boolean, warning: string): LoadedPage {
  if (challenge && plain.status >= 400) {
    throw new GleanerError('UPSTREAM_BLOCKED', `${new URL(plain.url).host} answered ${plain.status} with a JavaScript challenge (bot check). ${warning.replace(/ The HTML.*$/, '')}`);
  }
  return { ...plain, warnings: [warning] };
}
