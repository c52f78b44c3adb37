/**
 * Facebook videos, reels, watch pages and fb.watch links through www.facebook.com, as a logged-out
 * browser sees them in 2026: the page's ServerJS payloads carry the video's Relay data (see
 * serverjs.ts, relay-video.ts). Speech to text gets the DASH manifest's audio-only representation
 * (Gleaner parses the manifest itself), else the SD progressive MP4; captions come from the
 * captions locales. The mobile site (mobile.ts) is only the fallback for pages without Relay data.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { PlatformPost } from '../post.js';
import { fetchPlatform, titleFrom, userAgent } from '../browser.js';
import { blocked } from '../refusal.js';
import { parseDashManifest } from '../dash.js';
import { parseFacebookUrl, type FacebookRef } from './url.js';
import { relayResults } from '../serverjs.js';
import { relayVideo, type RelayVideo } from './relay-video.js';
import { fetchFacebookMobile } from './mobile.js';

function wwwUrl(ref: FacebookRef, url: URL): string {
  if (ref.short) return ref.short;
  if (ref.path) return `https://www.facebook.com${ref.path}`;
  if (url.pathname.startsWith('/reel/')) return `https://www.facebook.com/reel/${ref.id}/`;
  return `https://www.facebook.com/watch/?v=${ref.id}`;
}

/** The audio-only DASH representation when the manifest has one (speech needs no picture), else the SD MP4, else an HLS playlist. */
function speechSource(video: RelayVideo, pageUrl: string): string | undefined {
  if (video.dashXml) {
    try {
      const audio = parseDashManifest(video.dashXml, video.dashUrl ?? pageUrl).audio[0];
      if (audio) return audio.url;
    } catch {
      /* an unreadable manifest: the progressive file will do */
    }
  }
  return video.progressive[0] ?? video.hls[0];
}

function metadataOf(video: RelayVideo): Metadata {
  const description = video.description ?? null;
  return {
    platform: 'facebook',
    type: 'video',
    url: video.permalink ?? `https://www.facebook.com/watch/?v=${video.id}`,
    id: video.id,
    title: video.title ?? titleFrom(description),
    description,
    author: video.owner?.name || video.owner?.id ? { name: video.owner.name ?? null, id: video.owner.id, url: video.owner.id ? `https://www.facebook.com/${video.owner.id}` : undefined } : null,
    thumbnails: video.thumbnail ? [{ url: video.thumbnail, width: video.width, height: video.height }] : [],
    durationSeconds: video.durationSeconds,
    publishedAt: video.publishedAt,
    tags: [],
  };
}

export async function fetchFacebook(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost> {
  const ref = parseFacebookUrl(url);
  if (!ref) throw new GleanerError('UNSUPPORTED_URL', `${url} is not a Facebook video URL.`);
  const page = await fetchPlatform(http, wwwUrl(ref, url), 'The Facebook video', { signal });
  const finalUrl = new URL(page.url);
  if (/^\/checkpoint/.test(finalUrl.pathname)) throw blocked('facebook', 'it answered with a security checkpoint instead of the video');
  const id = ref.id ?? parseFacebookUrl(finalUrl)?.id;
  const video = relayVideo(relayResults(page.text()), id);
  if (!video) {
    // No Relay data: an older page layout, or a login wall. The mobile site is the last resort.
    try {
      return await fetchFacebookMobile(http, ref.id || ref.path ? url : finalUrl, signal);
    } catch (error) {
      if (/^\/login/.test(finalUrl.pathname)) throw blocked('facebook', 'it asks for a login to show this video (it may also be private, or limited to a group or an age)');
      throw error;
    }
  }
  const headers = { referer: 'https://www.facebook.com/', 'user-agent': userAgent(http) };
  const mediaUrl = speechSource(video, page.url);
  return {
    metadata: metadataOf(video),
    captions: video.captions,
    captionHeaders: headers,
    media: mediaUrl ? { url: mediaUrl, durationSeconds: video.durationSeconds, headers } : undefined,
  };
}
