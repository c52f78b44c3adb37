/**
 * X (Twitter) through its GraphQL API as a logged-out visitor: a guest token from
 * api.x.com/1.1/guest/activate.json (with the public web client's bearer token), then
 * TweetResultByRestId for the post. Chosen over the syndication endpoint because its reply carries
 * the full counts (views, bookmarks), the author and every video variant with its duration.
 * The bearer token and the query id are configuration (GLEANER_X_BEARER_TOKEN,
 * GLEANER_X_TWEET_QUERY_ID) because X changes them.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../types.js';
import type { PlatformPost } from '../post.js';
import { DESKTOP_HEADERS, fetchPlatform, titleFrom, toNumber } from '../browser.js';
import { parseXUrl } from './url.js';

export interface XOptions {
  bearerToken: string;
  queryId: string;
}

const API = 'https://api.x.com';
const GUEST_TOKEN_MS = 60 * 60_000;

const FEATURES = {
  creator_subscriptions_tweet_preview_api_enabled: true,
  premium_content_api_read_enabled: false,
  communities_web_enable_tweet_community_results_fetch: true,
  c9s_tweet_anatomy_moderator_badge_enabled: true,
  responsive_web_grok_analyze_button_fetch_trends_enabled: false,
  responsive_web_grok_analyze_post_followups_enabled: false,
  responsive_web_grok_share_attachment_enabled: true,
  articles_preview_enabled: true,
  responsive_web_edit_tweet_api_enabled: true,
  graphql_is_translatable_rweb_tweet_is_translatable_enabled: true,
  view_counts_everywhere_api_enabled: true,
  longform_notetweets_consumption_enabled: true,
  responsive_web_twitter_article_tweet_consumption_enabled: true,
  tweet_awards_web_tipping_enabled: false,
  creator_subscriptions_quote_tweet_preview_enabled: false,
  freedom_of_speech_not_reach_fetch_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  rweb_video_timestamps_enabled: true,
  longform_notetweets_rich_text_read_enabled: true,
  longform_notetweets_inline_media_enabled: true,
  profile_label_improvements_pcf_label_in_post_enabled: true,
  rweb_tipjar_consumption_enabled: true,
  verified_phone_label_enabled: false,
  responsive_web_graphql_exclude_directive_enabled: true,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_enhance_cards_enabled: false,
};

interface UserResult {
  rest_id?: string;
  legacy?: { name?: string; screen_name?: string };
  core?: { name?: string; screen_name?: string };
}

interface MediaEntity {
  type?: 'video' | 'animated_gif' | 'photo';
  url?: string;
  media_url_https?: string;
  original_info?: { width?: number; height?: number };
  video_info?: { duration_millis?: number; variants?: Array<{ bitrate?: number; content_type?: string; url?: string }> };
}

interface TweetResult {
  __typename?: string;
  rest_id?: string;
  reason?: string;
  tombstone?: { text?: { text?: string } };
  tweet?: TweetResult;
  core?: { user_results?: { result?: UserResult } };
  views?: { count?: string };
  note_tweet?: { note_tweet_results?: { result?: { text?: string } } };
  legacy?: {
    full_text?: string;
    created_at?: string;
    lang?: string;
    favorite_count?: number;
    retweet_count?: number;
    quote_count?: number;
    reply_count?: number;
    bookmark_count?: number;
    entities?: { hashtags?: Array<{ text?: string }> };
    extended_entities?: { media?: MediaEntity[] };
  };
}

const guestTokens = new Map<string, { token: string; expires: number }>();

async function guestToken(http: HttpClient, options: XOptions, signal: AbortSignal | undefined, fresh: boolean): Promise<string> {
  const cached = guestTokens.get(options.bearerToken);
  if (cached && !fresh && cached.expires > Date.now()) return cached.token;
  const response = await http.fetch(`${API}/1.1/guest/activate.json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.bearerToken}`, 'user-agent': DESKTOP_HEADERS['user-agent'] },
    signal,
    retries: 1,
  });
  const token = response.status < 400 ? response.json<{ guest_token?: string }>().guest_token : undefined;
  if (!token) throw new GleanerError('UPSTREAM_ERROR', `X did not hand out a guest token (api.x.com answered ${response.status}); if this persists, X may have changed its web client's token (GLEANER_X_BEARER_TOKEN).`);
  guestTokens.set(options.bearerToken, { token, expires: Date.now() + GUEST_TOKEN_MS });
  return token;
}

async function tweetResult(http: HttpClient, id: string, options: XOptions, signal?: AbortSignal): Promise<TweetResult | undefined> {
  const query = new URLSearchParams({
    variables: JSON.stringify({ tweetId: id, withCommunity: false, includePromotedContent: false, withVoice: false }),
    features: JSON.stringify(FEATURES),
    fieldToggles: JSON.stringify({ withArticleRichContentState: false }),
  });
  const endpoint = `${API}/graphql/${options.queryId}/TweetResultByRestId?${query}`;
  for (let attempt = 0; ; attempt++) {
    const token = await guestToken(http, options, signal, attempt > 0);
    const headers = { authorization: `Bearer ${options.bearerToken}`, 'x-guest-token': token, 'content-type': 'application/json', 'user-agent': DESKTOP_HEADERS['user-agent'] };
    const response = await http.fetch(endpoint, { headers, signal });
    // A guest token expires or gets rate limited: one fresh token, then the error stands.
    if ((response.status === 401 || response.status === 403) && attempt === 0) continue;
    if (response.status === 404) throw new GleanerError('UPSTREAM_ERROR', `X no longer knows the GraphQL query TweetResultByRestId/${options.queryId}; set GLEANER_X_TWEET_QUERY_ID to the current one.`);
    if (response.status >= 400) throw new GleanerError('UPSTREAM_ERROR', `X answered ${response.status} for post ${id}.`);
    const body = response.json<{ data?: { tweetResult?: { result?: TweetResult } }; errors?: Array<{ message?: string }> }>();
    if (!body.data && body.errors?.length) throw new GleanerError('UPSTREAM_ERROR', `X refused the request for post ${id}: ${body.errors[0].message ?? 'unknown error'}.`);
    return body.data?.tweetResult?.result;
  }
}

function unavailable(result: TweetResult, id: string): GleanerError {
  const reason = result.reason ?? result.tombstone?.text?.text;
  if (reason === 'Protected') return new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is from a protected account: only its approved followers can see it.`);
  if (reason === 'NsfwLoggedOut') return new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is age-restricted: it needs a logged-in adult account.`);
  if (reason === 'Suspended') return new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is from a suspended account.`);
  return new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is not available${reason ? ` (${reason})` : ''}.`);
}

export async function fetchXPost(http: HttpClient, url: URL, options: XOptions, signal?: AbortSignal): Promise<PlatformPost> {
  const id = parseXUrl(url);
  if (!id) throw new GleanerError('UNSUPPORTED_URL', `${url} is not an X (Twitter) post URL.`);
  let result = await tweetResult(http, id, options, signal);
  if (result?.__typename === 'TweetWithVisibilityResults') result = result.tweet;
  if (!result) throw new GleanerError('CONTENT_NOT_FOUND', `X post ${id} does not exist, or was deleted.`);
  if (result.__typename !== 'Tweet' || !result.legacy) throw unavailable(result, id);

  const legacy = result.legacy;
  const user = result.core?.user_results?.result;
  const name = user?.core?.name ?? user?.legacy?.name ?? null;
  const handle = user?.core?.screen_name ?? user?.legacy?.screen_name;
  const media = legacy.extended_entities?.media ?? [];
  let text = result.note_tweet?.note_tweet_results?.result?.text ?? legacy.full_text ?? '';
  // The trailing t.co link is the attached media itself, not part of what was written.
  for (const m of media) if (m.url) text = text.replace(m.url, '');
  text = text.trim();
  const video = media.find((m) => m.type === 'video' && m.video_info?.variants?.length);
  const created = legacy.created_at ? new Date(legacy.created_at) : undefined;
  const metadata: Metadata = {
    platform: 'x',
    url: `https://x.com/${handle ?? 'i'}/status/${id}`,
    id,
    title: titleFrom(text),
    description: text || null,
    author: user ? { name, id: user.rest_id, handle, url: handle ? `https://x.com/${handle}` : undefined } : null,
    counts: {
      views: toNumber(result.views?.count),
      likes: legacy.favorite_count,
      comments: legacy.reply_count,
      shares: (legacy.retweet_count ?? 0) + (legacy.quote_count ?? 0),
      saves: legacy.bookmark_count,
    },
    thumbnails: media.filter((m) => m.media_url_https).map((m) => ({ url: m.media_url_https!, width: m.original_info?.width, height: m.original_info?.height })),
    durationSeconds: video?.video_info?.duration_millis ? video.video_info.duration_millis / 1000 : undefined,
    publishedAt: created && !Number.isNaN(created.getTime()) ? created.toISOString() : undefined,
    tags: (legacy.entities?.hashtags ?? []).map((h) => h.text).filter((t): t is string => Boolean(t)),
    language: legacy.lang && legacy.lang !== 'zxx' && legacy.lang !== 'und' ? legacy.lang : undefined,
  };
  if (!video) {
    const gif = media.some((m) => m.type === 'animated_gif');
    const noMedia = new GleanerError('TRANSCRIPT_UNAVAILABLE', `X post ${id} has no video${gif ? ' with sound (only a GIF)' : ''} to transcribe.`);
    return { metadata, captions: [], noMedia };
  }
  // The lightest MP4 carries the same sound as the heaviest; the HLS playlist is the fallback.
  const variants = video.video_info!.variants!;
  const mp4 = variants.filter((v) => v.content_type === 'video/mp4' && v.url).sort((a, b) => (a.bitrate ?? 0) - (b.bitrate ?? 0))[0];
  const hls = variants.find((v) => v.content_type === 'application/x-mpegURL' && v.url);
  const mediaUrl = (mp4 ?? hls)!.url!;
  return { metadata, captions: [], media: { url: mediaUrl, durationSeconds: metadata.durationSeconds, headers: { referer: 'https://x.com/', 'user-agent': DESKTOP_HEADERS['user-agent'] } } };
}

/** For tests: forget cached guest tokens. */
export function clearXGuestTokens(): void {
  guestTokens.clear();
}
