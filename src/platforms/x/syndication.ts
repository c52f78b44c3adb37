/**
 * X's syndication API (cdn.syndication.twimg.com/tweet-result), the one its embedded-post widget
 * reads. It needs no guest token and is not rate limited with the guest GraphQL API, so it is the
 * fallback when GraphQL refuses. The token is derived from the post id the way the widget derives
 * it (yt-dlp does the same): the id / 1e15 × π, written in base 36 without its zeros and point.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import { toNumber } from '../browser.js';
import { blocked } from '../refusal.js';
import { unescapeText, type XMediaEntity, type XStatus } from './status.js';

const SYNDICATION = 'https://cdn.syndication.twimg.com/tweet-result';

export function syndicationToken(id: string): string {
  return ((Number(id) / 1e15) * Math.PI).toString(36).replace(/(0+|\.)/g, '');
}

interface SyndicationReply {
  __typename?: string;
  id_str?: string;
  text?: string;
  created_at?: string;
  lang?: string;
  favorite_count?: number;
  conversation_count?: number;
  user?: { id_str?: string; name?: string; screen_name?: string; profile_image_url_https?: string; is_blue_verified?: boolean; verified?: boolean };
  entities?: { hashtags?: Array<{ text?: string }> };
  mediaDetails?: XMediaEntity[];
  video?: { viewCount?: number };
}

export async function syndicationStatus(http: HttpClient, id: string, signal?: AbortSignal): Promise<XStatus> {
  const url = `${SYNDICATION}?${new URLSearchParams({ id, lang: 'en', token: syndicationToken(id) })}`;
  // The widget's CDN answers crawlers; a browser's user agent gets no more.
  const response = await http.fetch(url, { headers: { 'user-agent': 'Googlebot', accept: 'application/json' }, signal, retries: 1 });
  if (response.status === 404) throw new GleanerError('CONTENT_NOT_FOUND', `X post ${id} does not exist, or was deleted.`);
  if (response.status === 429 || response.status === 403) throw blocked('x', `its syndication API answered ${response.status} for post ${id}`);
  if (response.status >= 400) throw new GleanerError('UPSTREAM_ERROR', `X's syndication API answered ${response.status} for post ${id}.`);
  let reply: SyndicationReply;
  try {
    reply = response.json<SyndicationReply>();
  } catch {
    throw new GleanerError('UPSTREAM_ERROR', `X's syndication API answered post ${id} with something other than JSON.`);
  }
  // An empty object is how the API says the post is gone.
  if (!reply || Object.keys(reply).length === 0) throw new GleanerError('CONTENT_NOT_FOUND', `X post ${id} does not exist, or was deleted.`);
  if (reply.__typename === 'TweetTombstone') {
    throw new GleanerError('CONTENT_UNAVAILABLE', `X shows post ${id} to logged-out visitors only as a tombstone: it is age-restricted, withheld in this region, or from an account that limits who sees it.`);
  }
  if (reply.__typename !== 'Tweet') throw new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is not available (${reply.__typename ?? 'no post in the reply'}).`);
  const user = reply.user;
  const views = toNumber(reply.video?.viewCount);
  return {
    id: reply.id_str ?? id,
    text: unescapeText(reply.text ?? ''),
    createdAt: reply.created_at,
    lang: reply.lang,
    author: user ? { id: user.id_str, name: user.name ?? null, handle: user.screen_name, avatarUrl: user.profile_image_url_https, verified: Boolean(user.is_blue_verified || user.verified) } : undefined,
    // The widget's view count reads 0 for posts it does not count; 0 is left out rather than reported.
    counts: { views: views ? views : undefined, likes: reply.favorite_count, comments: reply.conversation_count },
    hashtags: (reply.entities?.hashtags ?? []).map((h) => h.text).filter((t): t is string => Boolean(t)),
    media: reply.mediaDetails ?? [],
    source: 'syndication',
  };
}
