/**
 * Facebook: the logged-out mobile page (m.facebook.com) of a video carries the player's settings
 * as JSON in `data-store` attributes (`videoID`, `src`: the mp4, `subtitlesSrc`: an SRT caption
 * file where the video has captions), OpenGraph tags, and on /videos/ pages JSON-LD (VideoObject
 * with duration, upload date and counts; SocialMediaPosting with the author and comment count).
 * A page that asks for a login is a private or removed video.
 */
import * as cheerio from 'cheerio';
import { GleanerError } from '../../errors.js';
import { defined, fetchOk, hashtags, hostIs, jsonLd, metaTags, MOBILE_UA, type PlatformAdapter, type PlatformPost } from '../post.js';

export function facebookVideoId(url: URL): string | undefined {
  if (!hostIs(url, 'facebook.com')) return undefined;
  const v = url.searchParams.get('v');
  if (/^\/watch\/?$/.test(url.pathname) && v && /^\d+$/.test(v)) return v;
  return /^\/(?:[^/]+\/videos\/(?:[^/]+\/)?|videos\/|reel\/|watch\/live\/\?v=)(\d+)/.exec(url.pathname)?.[1];
}

function isShareLink(url: URL): boolean {
  return hostIs(url, 'fb.watch') || (hostIs(url, 'facebook.com') && /^\/share\/[vr]\//.test(url.pathname));
}

/** "T3M58S" (Facebook drops the P), "PT1H2M3S" -> seconds. */
export function isoDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^P?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(value.trim());
  if (!match || !match.slice(1).some(Boolean)) return undefined;
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

function interactions(list: unknown): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of Array.isArray(list) ? list : []) {
    const type = typeof entry?.interactionType === 'string' ? entry.interactionType : entry?.interactionType?.['@type'];
    const name = /schema\.org\/(\w+)Action/.exec(String(type ?? ''))?.[1];
    if (name && Number.isFinite(Number(entry.userInteractionCount))) counts[name] = Number(entry.userInteractionCount);
  }
  return counts;
}

interface PlayerStore {
  videoID?: string;
  src?: string;
  subtitlesSrc?: string | null;
  width?: number;
  height?: number;
}

function playerStores($: cheerio.CheerioAPI): PlayerStore[] {
  const stores: PlayerStore[] = [];
  $('[data-store]').each((_, element) => {
    const raw = $(element).attr('data-store');
    if (!raw || !raw.includes('videoID')) return;
    try {
      stores.push(JSON.parse(raw));
    } catch {
      /* not the player's: skip */
    }
  });
  return stores;
}

export function facebookPost(html: string, id: string): PlatformPost {
  const $ = cheerio.load(html);
  const meta = metaTags($);
  const ld = jsonLd($);
  const videoLd = ld.find((item) => item['@type'] === 'VideoObject');
  const postLd = ld.find((item) => item['@type'] === 'SocialMediaPosting');
  const store = playerStores($).find((s) => String(s.videoID) === id);
  const mediaUrl = store?.src ?? meta.get('og:video:secure_url') ?? meta.get('og:video') ?? videoLd?.contentUrl;
  if (!mediaUrl && !videoLd && !meta.get('og:title')) {
    throw new GleanerError('CONTENT_UNAVAILABLE', `Facebook does not show the video ${id} to logged-out visitors; it may be private or removed.`);
  }
  const videoCounts = interactions(videoLd?.interactionStatistic);
  const postCounts = interactions(postLd?.interactionStatistic);
  const seconds = isoDuration(videoLd?.duration);
  const author = postLd?.author ?? videoLd?.author;
  const authorUrl = typeof author?.url === 'string' ? new URL(author.url, 'https://www.facebook.com/').toString() : undefined;
  const title = (videoLd?.name as string | undefined)?.replace(/\s*\|\s*Facebook$/, '') ?? meta.get('og:title') ?? null;
  const description = (postLd?.articleBody as string | undefined) ?? (videoLd?.description as string | undefined) ?? meta.get('og:description') ?? meta.get('description') ?? null;
  const published = videoLd?.uploadDate ?? videoLd?.datePublished ?? postLd?.dateCreated;
  const publishedAt = published ? new Date(published) : undefined;
  const thumbnail = videoLd?.thumbnailUrl ?? meta.get('og:image');
  const keywords = typeof videoLd?.keywords === 'string' ? videoLd.keywords.split(',').map((k: string) => k.trim()).filter(Boolean) : [];
  const subtitles = store?.subtitlesSrc;
  return {
    metadata: {
      platform: 'facebook',
      url: `https://www.facebook.com/watch/?v=${id}`,
      id,
      title,
      description,
      author: author?.name ? { name: author.name, ...defined({ id: author.identifier !== undefined ? String(author.identifier) : undefined, url: authorUrl }) } : null,
      counts: defined({
        views: videoCounts.Watch,
        likes: postCounts.Like ?? videoCounts.Like,
        comments: postLd?.commentCount ?? videoLd?.commentCount ?? postCounts.Comment,
        shares: postCounts.Share ?? videoCounts.Share,
      }),
      thumbnails: thumbnail ? [{ url: thumbnail, ...defined({ width: videoLd?.thumbnail?.width, height: videoLd?.thumbnail?.height }) }] : [],
      ...(mediaUrl ? { media: { type: 'video' as const, url: mediaUrl, ...defined({ durationSeconds: seconds, width: videoLd?.width, height: videoLd?.height }) } } : {}),
      ...defined({
        durationSeconds: seconds,
        publishedAt: publishedAt && !Number.isNaN(publishedAt.getTime()) ? publishedAt.toISOString() : undefined,
        language: typeof videoLd?.inLanguage === 'string' ? videoLd.inLanguage : undefined,
      }),
      tags: [...new Set([...hashtags(description), ...keywords])],
    },
    // Facebook does not say the captions' language; "und" keeps that honest.
    captions: subtitles ? [{ lang: typeof videoLd?.inLanguage === 'string' ? videoLd.inLanguage : 'und', url: subtitles, kind: 'manual' }] : [],
    media: mediaUrl ? { url: mediaUrl, durationSeconds: seconds, headers: { referer: 'https://m.facebook.com/' } } : undefined,
  };
}

export const facebookAdapter: PlatformAdapter = {
  platform: 'facebook',
  label: 'Facebook',
  matches: (url) => facebookVideoId(url) !== undefined || isShareLink(url),
  async load(http, url, signal) {
    let target = url;
    if (!facebookVideoId(target) && isShareLink(target)) {
      const hop = await http.fetch(target.toString(), { redirect: 'manual', headers: { 'user-agent': MOBILE_UA }, signal });
      if (hop.headers.location) target = new URL(hop.headers.location, target);
    }
    const id = facebookVideoId(target);
    if (!id) throw new GleanerError('UNSUPPORTED_URL', `${url} is not a Facebook video URL (expected https://www.facebook.com/<page>/videos/<id> or /watch/?v=<id>).`);
    // The mobile site still serves the video's data to logged-out visitors.
    const mobile = new URL(target.toString());
    mobile.hostname = 'm.facebook.com';
    const page = await fetchOk(http, mobile.toString(), 'Facebook', { headers: { 'user-agent': MOBILE_UA, 'accept-language': 'en-US,en;q=0.5' }, signal });
    if (/^\/(login|checkpoint)/.test(new URL(page.url).pathname)) {
      throw new GleanerError('CONTENT_UNAVAILABLE', `Facebook asks for a login to show the video ${id}; it is private or restricted.`);
    }
    return facebookPost(page.text(), id);
  },
};
