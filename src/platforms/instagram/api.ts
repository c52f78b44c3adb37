/**
 * Instagram's own APIs, after the post page: the logged-out web GraphQL query the page itself runs
 * (POST /api/graphql with the page's LSD token and the query's doc_id, answering
 * xig_polaris_media like the page's embedded data), and, with a logged-in session cookie
 * (sessionid in GLEANER_COOKIES_FILE), /api/v1/media/{pk}/info/. yt-dlp's instagram.py uses the
 * same two calls. Both answer items in the shape item.ts reads.
 */
import * as cheerio from 'cheerio';
import type { HttpClient } from '../../net/http.js';
import { acceptLanguage, userAgent } from '../browser.js';
import { profileOf } from '../profile.js';
import { blocked } from '../refusal.js';
import type { IgItem } from './item.js';

const ORIGIN = 'https://www.instagram.com';
const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The logged-out post query's name, sent with the doc_id (Instagram checks they belong together). */
const FRIENDLY_NAME = 'PolarisLoggedOutDesktopWWWPostRootContentQuery';

/** A shortcode is the media's numeric id (pk) in base 64; private posts append 28 more characters. */
export function shortcodeToPk(code: string): string {
  const digits = code.length > 28 ? code.slice(0, -28) : code;
  let pk = 0n;
  for (const c of digits) pk = pk * 64n + BigInt(CODE_ALPHABET.indexOf(c));
  return pk.toString();
}

/** What the post page hands a logged-out visitor for its own API calls. */
export interface PageSession {
  lsd: string;
  appId: string;
  /** The cookies the page reply set (csrftoken, mid, ig_did...), as one Cookie header. */
  cookies?: string;
  /** The csrftoken among them, echoed as X-CSRFToken as the page's own script does. */
  csrfToken?: string;
}

/**
 * The LSD token from the page: the __eqmc script's JSON ("l"), else the first ServerJS define
 * ["LSD", [], {token}]. Undefined when the page has none (a shell or a login page).
 */
export function pageSession(html: string, defaultAppId: string, cookies?: string): PageSession | undefined {
  let lsd: string | undefined;
  const eqmc = cheerio.load(html)('script#__eqmc').text();
  if (eqmc) {
    try {
      const value = (JSON.parse(eqmc) as { l?: unknown }).l;
      if (typeof value === 'string' && value) lsd = value;
    } catch {
      /* the define below may still be there */
    }
  }
  lsd ??= /\["LSD",\[\],\{"token":"([^"]+)"\}/.exec(html)?.[1];
  if (!lsd) return undefined;
  const appId = /"X-IG-App-ID":"(\d+)"/.exec(html)?.[1] ?? /"appId":"(\d+)"/.exec(html)?.[1] ?? defaultAppId;
  const csrfToken = cookies ? /(?:^|;\s*)csrftoken=([^;]+)/.exec(cookies)?.[1] : undefined;
  return { lsd, appId, ...(cookies ? { cookies } : {}), ...(csrfToken ? { csrfToken } : {}) };
}

function apiHeaders(http: HttpClient, appId: string, referer: string): Record<string, string> {
  return {
    'user-agent': userAgent(http),
    'accept-language': acceptLanguage(http),
    accept: '*/*',
    origin: ORIGIN,
    referer,
    'x-ig-app-id': appId,
    'x-asbd-id': profileOf(http).instagram.asbdId,
    'x-ig-www-claim': '0',
    'x-requested-with': 'XMLHttpRequest',
  };
}

export type GraphqlAnswer = { found: false } | { found: true; item: IgItem | null };

/**
 * The logged-out GraphQL query for the post: the item when Instagram shows it to logged-out
 * visitors, null when gated, not found when the API gave nothing usable (a refusal, a changed
 * doc_id): the caller then tries its other sources.
 */
export async function graphqlItem(http: HttpClient, pk: string, session: PageSession, docId: string, referer: string, signal?: AbortSignal): Promise<GraphqlAnswer> {
  const body = new URLSearchParams({
    lsd: session.lsd,
    fb_api_caller_class: 'RelayModern',
    fb_api_req_friendly_name: FRIENDLY_NAME,
    server_timestamps: 'true',
    variables: JSON.stringify({ media_id: pk }),
    doc_id: docId,
  }).toString();
  const response = await http.fetch(`${ORIGIN}/api/graphql`, {
    method: 'POST',
    body,
    headers: {
      ...apiHeaders(http, session.appId, referer),
      'content-type': 'application/x-www-form-urlencoded',
      'x-fb-lsd': session.lsd,
      'x-fb-friendly-name': FRIENDLY_NAME,
      // What the page set goes back with its query, as in a browser; a logged-in jar sends its own cookies.
      ...csrfHeaders(http, session),
    },
    signal,
    credentials: true,
  });
  if (response.status >= 400) return { found: false };
  let media: { if_not_gated_logged_out?: IgItem | null } | null | undefined;
  try {
    media = response.json<{ data?: { xig_polaris_media?: typeof media } }>().data?.xig_polaris_media;
  } catch {
    return { found: false };
  }
  if (!media) return { found: false };
  return { found: true, item: media.if_not_gated_logged_out ?? null };
}

/** The page's csrftoken as X-CSRFToken, with the page's cookies unless GLEANER_COOKIES_FILE logs the request in. */
function csrfHeaders(http: HttpClient, session: PageSession): Record<string, string> {
  if (hasSession(http)) {
    const token = http.cookie(ORIGIN, 'csrftoken');
    return token ? { 'x-csrftoken': token } : {};
  }
  return { ...(session.cookies ? { cookie: session.cookies } : {}), ...(session.csrfToken ? { 'x-csrftoken': session.csrfToken } : {}) };
}

/** True when GLEANER_COOKIES_FILE holds an Instagram login (the sessionid cookie). */
export function hasSession(http: HttpClient): boolean {
  return Boolean(http.cookie(ORIGIN, 'sessionid'));
}

const loginPath = (url: string) => {
  const path = new URL(url).pathname;
  return path.startsWith('/accounts/login') || path === '/';
};

/**
 * The logged-in media-info API (the session cookie travels with the request by itself). Undefined
 * when Instagram does not know the media for this account; a login redirect means the cookie is
 * no longer accepted, which only the operator can fix.
 */
export async function mediaInfoItem(http: HttpClient, pk: string, referer: string, signal?: AbortSignal): Promise<IgItem | undefined> {
  const response = await http.fetch(`${ORIGIN}/api/v1/media/${pk}/info/`, { headers: apiHeaders(http, profileOf(http).instagram.appId, referer), signal, credentials: true });
  if (loginPath(response.url) || response.status === 401) {
    throw blocked('instagram', 'it sent the logged-in media API to its login page: the session cookie (sessionid) in GLEANER_COOKIES_FILE has expired or was logged out; export fresh cookies');
  }
  if (response.status === 429) throw blocked('instagram', 'its media API answered 429 (too many requests) to the logged-in session');
  if (response.status >= 400) return undefined;
  try {
    return response.json<{ items?: IgItem[] }>().items?.[0];
  } catch {
    return undefined;
  }
}
