/**
 * X (Twitter): a post is read from the web app's GraphQL endpoint TweetResultByRestId as a guest
 * (a guest token from /1.1/guest/activate.json, with the web app's public bearer token). The reply
 * holds the text, counts in `legacy` and `views`, the author, and videos in
 * `legacy.extended_entities.media[].video_info` (mp4 variants by bitrate, an HLS playlist).
 * X publishes no captions for these videos.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import { languageCode } from '../../ai/languages.js';
import { defined, fetchOk, hostIs, type PlatformAdapter, type PlatformPost } from '../post.js';

/** The web app's own bearer token: public, the same for every visitor. */
const WEB_BEARER = 'AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA';
const GRAPHQL = 'https://x.com/i/api/graphql/2ICDjqPd81tulZcYrtpTuQ/TweetResultByRestId';
const ACTIVATE = 'https://api.x.com/1.1/guest/activate.json';

const FEATURES = {
  creator_subscriptions_tweet_preview_api_enabled: true,
  tweetypie_unmention_optimization_enabled: true,
  responsive_web_edit_tweet_api_enabled: true,
  graphql_is_translatable_rweb_tweet_is_translatable_enabled: true,
  view_counts_everywhere_api_enabled: true,
  longform_notetweets_consumption_enabled: true,
  responsive_web_twitter_article_tweet_consumption_enabled: false,
  tweet_awards_web_tipping_enabled: false,
  freedom_of_speech_not_reach_fetch_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  longform_notetweets_rich_text_read_enabled: true,
  longform_notetweets_inline_media_enabled: true,
  responsive_web_graphql_exclude_directive_enabled: true,
  verified_phone_label_enabled: false,
  responsive_web_media_download_video_enabled: false,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_enhance_cards_enabled: false,
};

const STATUS_PATH = /^\/(?:[\w]+\/status(?:es)?|i\/web\/status|i\/status)\/(\d+)/;

export function xPostId(url: URL): string | undefined {
  if (!hostIs(url, 'x.com', 'twitter.com')) return undefined;
  return STATUS_PATH.exec(url.pathname)?.[1];
}

async function guestToken(http: HttpClient, signal?: AbortSignal): Promise<string> {
  const reply = await fetchOk(http, ACTIVATE, 'X', { method: 'POST', headers: { authorization: `Bearer ${WEB_BEARER}` }, body: '', signal, retries: 1 });
  const token = reply.json<{ guest_token?: string }>().guest_token;
  if (!token) throw new GleanerError('UPSTREAM_ERROR', 'X did not hand out a guest token.');
  return token;
}

export function xPost(reply: any, id: string): PlatformPost {
  const messages: string[] = (reply?.errors ?? []).map((e: { message?: string }) => e.message).filter(Boolean);
  let result = reply?.data?.tweetResult?.result;
  if (!result) {
    if (messages.length) throw new GleanerError('UPSTREAM_ERROR', `X answered: ${messages.join('; ')}`);
    throw new GleanerError('CONTENT_NOT_FOUND', `The post ${id} does not exist on X.`);
  }
  if (result.tombstone || result.__typename === 'TweetTombstone') {
    const text = String(result.tombstone?.text?.text ?? 'This post is unavailable').replace(/\s*Learn more\.?$/, '');
    throw new GleanerError('CONTENT_UNAVAILABLE', `X says: ${text}`);
  }
  if (result.__typename === 'TweetUnavailable') {
    const reason = result.reason === 'Protected' ? 'its author protects their posts' : result.reason ? `reason: ${result.reason}` : 'no reason given';
    throw new GleanerError('CONTENT_UNAVAILABLE', `The post ${id} is not visible without logging in (${reason}).`);
  }
  if (result.__typename === 'TweetWithVisibilityResults') result = result.tweet;
  const legacy = result?.legacy ?? {};
  const user = result?.core?.user_results?.result ?? {};
  const screenName: string | undefined = user.core?.screen_name ?? user.legacy?.screen_name;
  const name: string | undefined = user.core?.name ?? user.legacy?.name;
  const media: any[] = legacy.extended_entities?.media ?? legacy.entities?.media ?? [];
  const video = media.find((m) => m.type === 'video' || m.type === 'animated_gif');
  const variants: Array<{ bitrate?: number; content_type?: string; url?: string }> = video?.video_info?.variants ?? [];
  // The leanest mp4 carries the same audio as the largest; the HLS playlist is the fallback.
  const mp4 = variants.filter((v) => v.content_type === 'video/mp4' && v.url).sort((a, b) => (a.bitrate ?? 0) - (b.bitrate ?? 0))[0];
  const hls = variants.find((v) => /mpegurl/i.test(v.content_type ?? '') && v.url);
  const mediaUrl = mp4?.url ?? hls?.url;
  const seconds = video?.video_info?.duration_millis ? video.video_info.duration_millis / 1000 : undefined;
  const created = legacy.created_at ? new Date(legacy.created_at) : undefined;
  const text: string | null = result?.note_tweet?.note_tweet_results?.result?.text ?? legacy.full_text ?? null;
  const postId = String(result?.rest_id ?? id);
  const size = video?.original_info ?? {};
  return {
    metadata: {
      platform: 'x',
      url: `https://x.com/${screenName ?? 'i'}/status/${postId}`,
      id: postId,
      title: text ? text.split('\n')[0].slice(0, 140) : null,
      description: text,
      author: screenName || name ? { name: name ?? screenName ?? null, ...defined({ id: user.rest_id, handle: screenName ? `@${screenName}` : undefined, url: screenName ? `https://x.com/${screenName}` : undefined }) } : null,
      counts: defined({
        views: result?.views?.count !== undefined ? Number(result.views.count) : undefined,
        likes: legacy.favorite_count,
        comments: legacy.reply_count,
        shares: legacy.retweet_count !== undefined ? legacy.retweet_count + (legacy.quote_count ?? 0) : undefined,
        saves: legacy.bookmark_count,
      }),
      thumbnails: media.filter((m) => m.media_url_https).map((m) => ({ url: m.media_url_https, ...defined({ width: m.original_info?.width, height: m.original_info?.height }) })),
      ...(mediaUrl
        ? { media: { type: 'video' as const, url: mediaUrl, ...defined({ durationSeconds: seconds, width: size.width, height: size.height }) } }
        : media[0]?.media_url_https
          ? { media: { type: 'image' as const, url: media[0].media_url_https } }
          : {}),
      ...defined({ durationSeconds: seconds, publishedAt: created && !Number.isNaN(created.getTime()) ? created.toISOString() : undefined, language: legacy.lang && legacy.lang !== 'und' && legacy.lang !== 'zxx' ? languageCode(legacy.lang) : undefined }),
      tags: (legacy.entities?.hashtags ?? []).map((h: { text: string }) => h.text),
    },
    captions: [],
    media: mediaUrl ? { url: mediaUrl, durationSeconds: seconds } : undefined,
  };
}

export const xAdapter: PlatformAdapter = {
  platform: 'x',
  label: 'X',
  matches: (url) => xPostId(url) !== undefined,
  async load(http, url, signal) {
    const id = xPostId(url)!;
    const token = await guestToken(http, signal);
    const query = new URLSearchParams({
      variables: JSON.stringify({ tweetId: id, withCommunity: false, includePromotedContent: false, withVoice: false }),
      features: JSON.stringify(FEATURES),
      fieldToggles: JSON.stringify({ withArticleRichContentState: false }),
    });
    const reply = await http.fetch(`${GRAPHQL}?${query}`, {
      headers: { authorization: `Bearer ${WEB_BEARER}`, 'x-guest-token': token, 'content-type': 'application/json', 'x-twitter-active-user': 'yes', 'x-twitter-client-language': 'en' },
      signal,
      maxBytes: 8 * 1024 * 1024,
    });
    // GraphQL answers errors in the body, often with 200; 404 is a post that never existed.
    if (reply.status === 404) throw new GleanerError('CONTENT_NOT_FOUND', `The post ${id} does not exist on X.`);
    if (reply.status === 429) throw new GleanerError('UPSTREAM_UNAVAILABLE', 'X is limiting requests from this server (HTTP 429); try again later or set GLEANER_PROXY_URL.');
    if (reply.status >= 500) throw new GleanerError('UPSTREAM_ERROR', `X answered HTTP ${reply.status}.`);
    let body: unknown;
    try {
      body = reply.json();
    } catch (error) {
      throw new GleanerError('UPSTREAM_ERROR', `X answered HTTP ${reply.status} with a body that is not JSON.`, { cause: error });
    }
    return xPost(body, id);
  },
};
