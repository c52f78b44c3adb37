/**
 * X (Twitter) posts for a logged-out visitor: the guest GraphQL API first (full counts, every video
 * variant), the syndication API when X turns guests away (rate limit, bad tokens, a stale query
 * id), as yt-dlp does. Both give the author, the text, the counts they have and the video
 * variants with their duration. The bearer token and the query id are in the platform profile
 * (x.bearerToken, x.tweetQueryId; shorthands GLEANER_X_BEARER_TOKEN, GLEANER_X_TWEET_QUERY_ID) because X changes them.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { PlatformPost } from '../post.js';
import { titleFrom, userAgent } from '../browser.js';
import { blocked, changed } from '../refusal.js';
import { parseXUrl } from './url.js';
import { graphqlStatus, GuestRefused } from './graphql.js';
import { syndicationStatus } from './syndication.js';
import type { XStatus } from './status.js';

export { clearXGuestTokens } from './graphql.js';

async function status(http: HttpClient, id: string, signal?: AbortSignal): Promise<XStatus> {
  try {
    return await graphqlStatus(http, id, signal);
  } catch (error) {
    if (!(error instanceof GuestRefused)) throw error;
    try {
      return await syndicationStatus(http, id, signal);
    } catch (fallback) {
      // The post's own state (gone, tombstoned) is the answer; a second refusal is X's, told with
      // the first one's reason (which says when login cookies were refused).
      const refused = fallback instanceof GleanerError && fallback.code === 'UPSTREAM_BLOCKED';
      if (fallback instanceof GleanerError && fallback.code !== 'UPSTREAM_ERROR' && !refused) throw fallback;
      if (refused) throw blocked('x', `${error.message}, and its syndication API refused this server too`);
      throw error.kind === 'changed' ? changed('x', `the guest API (${error.message})`) : blocked('x', `${error.message}, and its syndication API failed too`);
    }
  }
}

export async function fetchXPost(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost> {
  const id = parseXUrl(url);
  if (!id) throw new GleanerError('UNSUPPORTED_URL', `${url} is not an X (Twitter) post URL.`);
  const post = await status(http, id, signal);
  const handle = post.author?.handle;
  let text = post.text;
  // The trailing t.co link is the attached media itself, not part of what was written.
  for (const m of post.media) if (m.url) text = text.replace(m.url, '');
  text = text.trim();
  const video = post.media.find((m) => m.type === 'video' && m.video_info?.variants?.length);
  const created = post.createdAt ? new Date(post.createdAt) : undefined;
  const metadata: Metadata = {
    platform: 'x',
    url: `https://x.com/${handle ?? 'i'}/status/${id}`,
    id,
    title: titleFrom(text),
    description: text || null,
    author: post.author ? { ...post.author, url: handle ? `https://x.com/${handle}` : undefined } : null,
    counts: post.counts,
    thumbnails: post.media.filter((m) => m.media_url_https).map((m) => ({ url: m.media_url_https!, width: m.original_info?.width, height: m.original_info?.height })),
    durationSeconds: video?.video_info?.duration_millis ? video.video_info.duration_millis / 1000 : undefined,
    publishedAt: created && !Number.isNaN(created.getTime()) ? created.toISOString() : undefined,
    tags: post.hashtags,
    language: post.lang && post.lang !== 'zxx' && post.lang !== 'und' ? post.lang : undefined,
  };
  if (!video) {
    const gif = post.media.some((m) => m.type === 'animated_gif');
    const noMedia = new GleanerError('TRANSCRIPT_UNAVAILABLE', `X post ${id} has no video${gif ? ' with sound (only a GIF)' : ''} to transcribe.`);
    return { metadata, captions: [], noMedia };
  }
  // The lightest MP4 carries the same sound as the heaviest; the HLS playlist is the fallback.
  const variants = video.video_info!.variants!;
  const mp4 = variants.filter((v) => v.content_type === 'video/mp4' && v.url).sort((a, b) => (a.bitrate ?? 0) - (b.bitrate ?? 0))[0];
  const hls = variants.find((v) => v.content_type === 'application/x-mpegURL' && v.url);
  const mediaUrl = (mp4 ?? hls)?.url;
  if (!mediaUrl) return { metadata, captions: [], noMedia: changed('x', `the video variants of post ${id}`) };
  return { metadata, captions: [], media: { url: mediaUrl, durationSeconds: metadata.durationSeconds, headers: { referer: 'https://x.com/', 'user-agent': userAgent(http) } } };
}
