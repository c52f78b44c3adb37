/**
 * Instagram posts and reels, in the order the 2026 pages allow: the post page's embedded Relay
 * data (xig_polaris_media → if_not_gated_logged_out, item.ts); the logged-out GraphQL query the
 * page would run itself (api.ts, with the page's LSD token); with a session cookie in
 * GLEANER_COOKIES_FILE, the media-info API (api.ts); the embed page (embed.ts); and last the
 * page's meta tags (meta.ts, what pages carried until 2024). A login wall no source gets past is
 * UPSTREAM_BLOCKED naming cookies and proxies; with cookies that still see nothing, the post is
 * not visible to that account (a clear 403).
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { PlatformPost } from '../post.js';
import { cookiesOf, fetchPlatform, withUserAgent } from '../browser.js';
import { profileOf } from '../profile.js';
import { findObject, relayResults } from '../serverjs.js';
import { parseInstagramUrl, type InstagramRef } from './url.js';
import { postFromItem, type IgItem } from './item.js';
import { embedContext, postFromEmbed } from './embed.js';
import { postFromMetaTags } from './meta.js';
import { graphqlItem, hasSession, mediaInfoItem, pageSession, shortcodeToPk, type GraphqlAnswer } from './api.js';
import { blocked } from '../refusal.js';

/** The page's xig_polaris_media: the item when shown to logged-out visitors, null when gated. */
function polarisMedia(html: string): GraphqlAnswer {
  const holder = findObject(
    relayResults(html).map((r) => r.data),
    (n) => 'xig_polaris_media' in n,
  );
  const media = holder?.xig_polaris_media as { if_not_gated_logged_out?: IgItem | null } | null | undefined;
  if (!holder || !media) return { found: false };
  return { found: true, item: media.if_not_gated_logged_out ?? null };
}

async function fromEmbed(http: HttpClient, ref: InstagramRef, signal?: AbortSignal): Promise<PlatformPost | undefined> {
  let html: string;
  try {
    html = (await fetchPlatform(http, `https://www.instagram.com/p/${ref.code}/embed/captioned/`, 'The Instagram embed', { signal })).text();
  } catch {
    // The embed is a second source: its failure leaves the first source's answer standing.
    return undefined;
  }
  const context = embedContext(html);
  return context ? postFromEmbed(context, ref.code) : undefined;
}

/**
 * The logged-out GraphQL query with what the page handed out (its LSD token, the cookies it set);
 * skipped when the page handed out no token, since Instagram refuses the query without one. A
 * failed call is one source fewer, not the answer (the caller has others).
 */
async function fromGraphql(http: HttpClient, page: { html: string; cookies?: string }, pk: string, referer: string, signal?: AbortSignal): Promise<GraphqlAnswer> {
  const profile = profileOf(http).instagram;
  const session = pageSession(page.html, profile.appId, page.cookies);
  if (!session) return { found: false };
  try {
    return await graphqlItem(http, pk, session, profile.docId, referer, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    return { found: false };
  }
}

export async function fetchInstagram(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost> {
  return withUserAgent(http, await readPost(http, url, signal));
}

async function readPost(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost> {
  const ref = parseInstagramUrl(url);
  if (!ref) throw new GleanerError('UNSUPPORTED_URL', `${url} is not an Instagram post or reel URL.`);
  const pageUrl = `https://www.instagram.com/${ref.kind}/${ref.code}/`;
  const pk = shortcodeToPk(ref.code);
  const page = await fetchPlatform(http, pageUrl, 'The Instagram post', { signal });
  const walled = new URL(page.url).pathname.startsWith('/accounts/login');
  const html = walled ? '' : page.text();
  const polaris = polarisMedia(html);
  if (polaris.found && polaris.item) return postFromItem(polaris.item, ref.code);
  // A post the page already shows as gated is gated for the same query through the API.
  let gated = polaris.found;
  if (!walled && !gated) {
    const answer = await fromGraphql(http, { html, cookies: cookiesOf(page) }, pk, pageUrl, signal);
    if (answer.found && answer.item) return postFromItem(answer.item, ref.code);
    gated = answer.found;
  }
  const loggedIn = hasSession(http);
  if (loggedIn) {
    const item = await mediaInfoItem(http, pk, pageUrl, signal);
    if (item) return postFromItem(item, ref.code);
  }
  const embedded = await fromEmbed(http, ref, signal);
  if (embedded) return embedded;
  if (walled || gated) {
    if (loggedIn) throw new GleanerError('CONTENT_UNAVAILABLE', `Instagram does not show post ${ref.code} to the logged-in account of GLEANER_COOKIES_FILE either: it may be private, or removed.`);
    throw blocked('instagram', `it shows post ${ref.code} only to logged-in visitors (a login wall: the post may be private or age-restricted, or this address has made too many logged-out requests)`);
  }
  return postFromMetaTags(html, ref, pageUrl);
}
