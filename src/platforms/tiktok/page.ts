/**
 * TikTok's video page, asked for as a browser of the platform profile would, and what stands in its
 * place when TikTok refuses the browser:
 *   - the WAF challenge (id="cs"), solved (challenge.ts) and the page asked for again;
 *   - the WAF's "Please wait..." interstitial with nothing to solve, or a login redirect;
 *   - a 200 "Site Under Maintenance" page, which TikTok serves to some Chrome versions while the site
 *     works for others (yt-dlp#17403, 2026-08: user agents of Chrome 140-149 refused, older and newer
 *     served; #17604, 2026-09, the same for other versions);
 *   - the app's shell without the rehydration data (#17393, 2026-08: sporadic, no challenge in it).
 * A refusal is of one identity, not of the video: the page is asked for once more as the profile's
 * other browser (mobile after desktop; the operator's own when GLEANER_PLATFORM_PROFILE replaces them),
 * on a fresh session (the refused exchange's cookies are not carried over). Refused twice, the
 * caller hears UPSTREAM_BLOCKED naming the proxy and user-agent settings. A page that carries the
 * app's data without the video in it is a changed page (UPSTREAM_CHANGED), not a refusal.
 */
import type { FetchResponse, HttpClient } from '../../net/http.js';
import type { GleanerError } from '../../errors.js';
import { cookiesOf, fetchPlatform, pageHeaders, type BrowserKind } from '../browser.js';
import { profileOf } from '../profile.js';
import { blocked, changed } from '../refusal.js';
import { readChallenge, solveChallenge } from './challenge.js';

export interface VideoDetail {
  statusCode?: number;
  statusMsg?: string;
  itemInfo?: { itemStruct?: unknown };
}

/** The page that carried the video, its data, and the session cookies the CDN wants. */
export interface VideoPage {
  page: FetchResponse;
  detail: VideoDetail;
  cookie?: string;
  /** The browser identity TikTok served: its user agent goes on to the CDN with the session's cookies. */
  identity: BrowserKind;
}

/** Why one identity got no video: a kind of refusal, or the app's data without the video (a changed page). */
type Outcome = { page: VideoPage } | { refused: string } | { changed: true };

/** The identities tried, in order: the profile's desktop browser, then its mobile one. */
const IDENTITIES: readonly BrowserKind[] = ['desktop', 'mobile'];

/** Only the head of a page is searched for the marks below (a real video page is 500 kB). */
const SCAN_CHARS = 200_000;

/** The rehydration data: undefined when the script is absent or unreadable; its scopes otherwise. */
function readUniversalData(html: string): Record<string, unknown> | undefined {
  const match = /<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>([\s\S]*?)<\/script>/.exec(html);
  if (!match) return undefined;
  try {
    const data = JSON.parse(match[1]) as { __DEFAULT_SCOPE__?: unknown };
    const scope = data?.__DEFAULT_SCOPE__;
    return typeof scope === 'object' && scope !== null ? (scope as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function readDetail(html: string): VideoDetail | undefined {
  const detail = readUniversalData(html)?.['webapp.video-detail'];
  return typeof detail === 'object' && detail !== null ? (detail as VideoDetail) : undefined;
}

/** Cookie headers joined, a later value of a name replacing an earlier one. */
export function joinCookies(...headers: Array<string | undefined>): string | undefined {
  const jar = new Map<string, string>();
  for (const header of headers) {
    for (const pair of (header ?? '').split(';').map((p) => p.trim()).filter(Boolean)) {
      const eq = pair.indexOf('=');
      if (eq > 0) jar.set(pair.slice(0, eq), pair);
    }
  }
  return jar.size ? [...jar.values()].join('; ') : undefined;
}

/** What a page without the video is: a named refusal, or the app's data without the video (changed). */
function withoutVideo(page: FetchResponse): { refused: string } | { changed: true } {
  if (new URL(page.url).pathname.startsWith('/login')) return { refused: 'a login page' };
  const html = page.text().slice(0, SCAN_CHARS);
  if (/<title>\s*Please wait/i.test(html) || /_wafchallengeid|id=["']cs["']|id=["']wci["']/.test(html)) return { refused: 'its bot check ("Please wait...") with nothing to solve' };
  if (/site (?:is )?under maintenance|site maintenance/i.test(html)) return { refused: 'a "Site Under Maintenance" page' };
  if (readUniversalData(page.text())) return { changed: true };
  return { refused: 'the app shell without video data' };
}

/** One identity's attempt: the page, its challenge solved where there is one. */
async function asIdentity(http: HttpClient, url: string, kind: BrowserKind, signal?: AbortSignal): Promise<Outcome> {
  const headers = { ...pageHeaders(http, kind), ...profileOf(http).tiktok.pageHeaders };
  let page = await fetchPlatform(http, url, 'The TikTok video', { signal, headers });
  let detail = readDetail(page.text());
  let cookie = cookiesOf(page);
  if (detail) return { page: { page, detail, cookie, identity: kind } };
  const challenge = readChallenge(page.text());
  if (!challenge) return withoutVideo(page);
  const answer = await solveChallenge(challenge, signal);
  if (!answer) return { refused: 'a challenge that could not be solved' };
  // The cookies of the challenge reply belong to the same exchange: dropping them fails the check again.
  const retryCookie = joinCookies(cookie, answer);
  page = await fetchPlatform(http, page.url, 'The TikTok video', { signal, headers: { ...headers, ...(retryCookie ? { cookie: retryCookie } : {}) } });
  detail = readDetail(page.text());
  // After a solved challenge, a page without the video is this identity refused, whatever the page looks like.
  if (!detail) return { refused: 'no video even after its challenge was solved' };
  // The challenge cookies expire at once; the session cookies of both replies go on to the CDN.
  cookie = joinCookies(cookie, cookiesOf(page));
  return { page: { page, detail, cookie, identity: kind } };
}

/** The video page as the first identity TikTok serves it to; UPSTREAM_BLOCKED when it refuses them all. */
export async function fetchVideoPage(http: HttpClient, pageUrl: string, signal?: AbortSignal): Promise<VideoPage> {
  const refusals: Array<{ kind: BrowserKind; refused: string }> = [];
  for (const kind of IDENTITIES) {
    const outcome = await asIdentity(http, pageUrl, kind, signal);
    if ('page' in outcome) return outcome.page;
    if ('refused' in outcome) refusals.push({ kind, refused: outcome.refused });
  }
  throw refusalError(refusals);
}

function refusalError(refusals: Array<{ kind: BrowserKind; refused: string }>): GleanerError {
  // Every identity was served the app's data without the video: the page moved, no one was refused.
  if (refusals.length === 0) return changed('tiktok', 'the video data (__UNIVERSAL_DATA_FOR_REHYDRATION__, webapp.video-detail) in the page');
  // Kept short: the doctor shows the message on one line, and the way out comes after it.
  const same = refusals.every((r) => r.refused === refusals[0].refused);
  const what = same
    ? `the ${refusals.map((r) => r.kind).join(' and ')} browser identit${refusals.length > 1 ? 'ies both' : 'y'} got ${refusals[0].refused}`
    : refusals.map((r) => `the ${r.kind} browser identity got ${r.refused}`).join(', ');
  return blocked('tiktok', `${what}, not the video`, { identities: true });
}
