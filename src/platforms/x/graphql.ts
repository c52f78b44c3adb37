/**
 * X's guest GraphQL API (TweetResultByRestId): a guest token from api.x.com/1.1/guest/activate.json
 * with the public web client's bearer token, then the post. Its reply is the richest (reposts,
 * bookmarks, views), but guest tokens are rate limited each (429, error 88) and go bad (403,
 * error 239, "Bad guest token"): a bad or limited token is replaced by a fresh one, and when X
 * keeps refusing, the caller falls back to the syndication API (GuestRefused). With X's login
 * cookies in GLEANER_COOKIES_FILE the API is asked as that logged-in user instead, without a guest token.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import { toNumber, userAgent } from '../browser.js';
import { profileOf } from '../profile.js';
import { unescapeText, type XMediaEntity, type XStatus } from './status.js';

/** The platform profile's X entry: the web client's bearer token and the query id. */
interface XOptions {
  bearerToken: string;
  queryId: string;
}

/**
 * X turned the guest API away (rate limit, bad tokens, a stale query id, features it now wants):
 * the caller tries syndication. Only "this post does not exist" is an answer of its own.
 */
export class GuestRefused extends Error {
  constructor(
    readonly kind: 'blocked' | 'changed',
    message: string,
  ) {
    super(message);
  }
}

const API = 'https://api.x.com';
const GUEST_TOKEN_MS = 60 * 60_000;
/** The first token, then two fresh ones: enough to get past one bad or exhausted token, not to hammer X. */
const ATTEMPTS = 3;
const RATE_LIMITED = 88;
const BAD_GUEST_TOKEN = 239;
/** "No status found with that ID": the one refusal that is about the post, not about this client. */
const NO_STATUS = 144;

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
  is_blue_verified?: boolean;
  avatar?: { image_url?: string };
  legacy?: { name?: string; screen_name?: string; profile_image_url_https?: string };
  core?: { name?: string; screen_name?: string };
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
    extended_entities?: { media?: XMediaEntity[] };
  };
}

interface GraphqlReply {
  data?: { tweetResult?: { result?: TweetResult } };
  errors?: Array<{ code?: number; message?: string }>;
}

function firstMessage(response: { text(): string }): string | undefined {
  try {
    return (JSON.parse(response.text()) as GraphqlReply).errors?.find((e) => e.message)?.message;
  } catch {
    return undefined;
  }
}

const guestTokens = new Map<string, { token: string; expires: number }>();

async function guestToken(http: HttpClient, options: XOptions, signal: AbortSignal | undefined, fresh: boolean): Promise<string> {
  const cached = guestTokens.get(options.bearerToken);
  if (cached && !fresh && cached.expires > Date.now()) return cached.token;
  guestTokens.delete(options.bearerToken);
  const response = await http.fetch(`${API}/1.1/guest/activate.json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.bearerToken}`, 'user-agent': userAgent(http) },
    signal,
    retries: 0,
    credentials: true,
  });
  let token: string | undefined;
  try {
    token = response.status < 400 ? response.json<{ guest_token?: string }>().guest_token : undefined;
  } catch {
    token = undefined;
  }
  if (!token) {
    const kind = response.status === 401 || response.status === 403 || response.status === 429 || response.status >= 500 ? 'blocked' : 'changed';
    throw new GuestRefused(kind, `X handed out no guest token (api.x.com answered ${response.status})`);
  }
  guestTokens.set(options.bearerToken, { token, expires: Date.now() + GUEST_TOKEN_MS });
  return token;
}

function errorCodes(response: { text(): string }): number[] {
  try {
    return (JSON.parse(response.text()) as GraphqlReply).errors?.map((e) => e.code ?? 0) ?? [];
  } catch {
    return [];
  }
}

/**
 * The headers of a logged-in web client when GLEANER_COOKIES_FILE holds X's login cookies: the
 * cookies themselves travel with every request to x.com, and X also wants ct0 echoed as
 * x-csrf-token. Such requests carry no guest token (yt-dlp's twitter.py does the same).
 */
function loginSession(http: HttpClient): Record<string, string> | undefined {
  const authToken = http.cookie(API, 'auth_token');
  const csrf = http.cookie(API, 'ct0');
  if (!authToken || !csrf) return undefined;
  return { 'x-csrf-token': csrf, 'x-twitter-auth-type': 'OAuth2Session', 'x-twitter-active-user': 'yes', 'x-twitter-client-language': 'en' };
}

/** The post's result object as X's GraphQL API gives it, or GuestRefused when X will not answer guests. */
async function tweetResult(http: HttpClient, id: string, signal?: AbortSignal): Promise<TweetResult | undefined> {
  const { bearerToken, tweetQueryId } = profileOf(http).x;
  const options: XOptions = { bearerToken, queryId: tweetQueryId };
  const query = new URLSearchParams({
    variables: JSON.stringify({ tweetId: id, withCommunity: false, includePromotedContent: false, withVoice: false }),
    features: JSON.stringify(FEATURES),
    fieldToggles: JSON.stringify({ withArticleRichContentState: false }),
  });
  const endpoint = `${API}/graphql/${options.queryId}/TweetResultByRestId?${query}`;
  const session = loginSession(http);
  let last = '';
  // A logged-in session is one identity: a second try with it would meet the same refusal.
  for (let attempt = 0; attempt < (session ? 1 : ATTEMPTS); attempt++) {
    const base = { authorization: `Bearer ${options.bearerToken}`, 'content-type': 'application/json', 'user-agent': userAgent(http) };
    const headers = session ? { ...base, ...session } : { ...base, 'x-guest-token': await guestToken(http, options, signal, attempt > 0) };
    // No client-side retry of a 429: the same token stays limited, a fresh one is the remedy.
    const response = await http.fetch(endpoint, { headers, signal, retries: 0, credentials: true });
    const codes = response.status >= 400 || response.text().includes('"errors"') ? errorCodes(response) : [];
    const refusedToken = response.status === 401 || response.status === 403 || response.status === 429 || codes.includes(RATE_LIMITED) || codes.includes(BAD_GUEST_TOKEN);
    if (refusedToken) {
      last = `api.x.com answered ${response.status}${codes.length ? ` (error ${codes.join(', ')})` : ''}`;
      if (session) throw new GuestRefused('blocked', `${last} to the login cookies (auth_token, ct0) of GLEANER_COOKIES_FILE; they may have expired`);
      guestTokens.delete(options.bearerToken);
      continue;
    }
    if (codes.includes(NO_STATUS)) return undefined;
    if (response.status === 404) throw new GuestRefused('changed', `X no longer knows the GraphQL query TweetResultByRestId/${options.queryId} (the profile's x.tweetQueryId, or GLEANER_X_TWEET_QUERY_ID)`);
    // Any other refusal (400 code 336 "The following features cannot be null", a 5xx) says nothing about the post.
    const said = firstMessage(response);
    if (response.status >= 400) {
      throw new GuestRefused(response.status >= 500 ? 'blocked' : 'changed', `api.x.com answered ${response.status}${codes.length ? ` (error ${codes.join(', ')}${said ? `: ${said}` : ''})` : ''} to TweetResultByRestId/${options.queryId}`);
    }
    let body: GraphqlReply;
    try {
      body = response.json<GraphqlReply>();
    } catch {
      throw new GuestRefused('changed', `api.x.com answered TweetResultByRestId/${options.queryId} with a body that is not JSON`);
    }
    if (!body.data && body.errors?.length) throw new GuestRefused('changed', `api.x.com refused TweetResultByRestId/${options.queryId}: ${body.errors[0].message ?? 'unknown error'}`);
    return body.data?.tweetResult?.result;
  }
  throw new GuestRefused('blocked', `${last} with ${ATTEMPTS} guest tokens`);
}

/** X's reasons for withholding a post from a viewer whose age it does not know (NsfwLoggedOut, NsfwViewerHasNoStatedAge, ...). */
const AGE_REASON = /^Nsfw|Age(Verification|Restrict)|Underage/;

function unavailable(result: TweetResult, id: string): GleanerError {
  const reason = result.reason ?? result.tombstone?.text?.text;
  if (reason === 'Protected') return new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is from a protected account: only its approved followers can see it.`);
  if (reason && AGE_REASON.test(reason)) {
    return new GleanerError(
      'CONTENT_UNAVAILABLE',
      `X post ${id} is age-restricted (X: ${reason}): X shows it only to a logged-in account with a stated adult age. Put the login cookies of such an account (auth_token and ct0) in GLEANER_COOKIES_FILE to read it.`,
    );
  }
  if (reason === 'Suspended') return new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is from a suspended account.`);
  return new GleanerError('CONTENT_UNAVAILABLE', `X post ${id} is not available${reason ? ` (${reason})` : ''}.`);
}

export async function graphqlStatus(http: HttpClient, id: string, signal?: AbortSignal): Promise<XStatus> {
  let result = await tweetResult(http, id, signal);
  // The wrapped post of a TweetWithVisibilityResults (a content warning) carries no __typename of its own.
  if (result?.__typename === 'TweetWithVisibilityResults' && result.tweet) result = { __typename: 'Tweet', ...result.tweet };
  if (!result) throw new GleanerError('CONTENT_NOT_FOUND', `X post ${id} does not exist, or was deleted.`);
  if (result.__typename !== 'Tweet' || !result.legacy) throw unavailable(result, id);
  const legacy = result.legacy;
  const user = result.core?.user_results?.result;
  return {
    id,
    text: unescapeText(result.note_tweet?.note_tweet_results?.result?.text ?? legacy.full_text ?? ''),
    createdAt: legacy.created_at,
    lang: legacy.lang,
    author: user
      ? {
          id: user.rest_id,
          name: user.core?.name ?? user.legacy?.name ?? null,
          handle: user.core?.screen_name ?? user.legacy?.screen_name,
          avatarUrl: user.avatar?.image_url ?? user.legacy?.profile_image_url_https,
          verified: user.is_blue_verified,
        }
      : undefined,
    counts: {
      views: toNumber(result.views?.count),
      likes: legacy.favorite_count,
      comments: legacy.reply_count,
      shares: (legacy.retweet_count ?? 0) + (legacy.quote_count ?? 0),
      saves: legacy.bookmark_count,
    },
    hashtags: (legacy.entities?.hashtags ?? []).map((h) => h.text).filter((t): t is string => Boolean(t)),
    media: legacy.extended_entities?.media ?? [],
    source: 'graphql',
  };
}

/** For tests: forget cached guest tokens. */
export function clearXGuestTokens(): void {
  guestTokens.clear();
}
