/**
 * The fallback: Facebook through its logged-out mobile site (m.facebook.com), which mostly went
 * away with the basic-site sunset: the video's player settings sit in
 * a data-store attribute (src, subtitlesSrc, videoURL), the /videos/ page adds a JSON-LD
 * VideoObject (name, duration, upload date, counts, author), and OpenGraph tags fill the rest.
 */
import * as cheerio from 'cheerio';
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { CaptionTrack, PlatformPost } from '../post.js';
import { fetchPlatform, pageHeaders, titleFrom, userAgent, toNumber } from '../browser.js';
import { parseFacebookUrl } from './url.js';

interface PlayerStore {
  videoID?: string;
  src?: string;
  subtitlesSrc?: string | null;
  videoURL?: string;
  width?: number;
  height?: number;
}

interface VideoObject {
  '@type'?: string;
  name?: string;
  description?: string;
  duration?: string;
  uploadDate?: string;
  contentUrl?: string;
  thumbnail?: { contentUrl?: string; width?: number; height?: number };
  thumbnailUrl?: string;
  interactionStatistic?: Array<{ interactionType?: { '@type'?: string }; userInteractionCount?: number }>;
  commentCount?: number;
  inLanguage?: string;
  keywords?: string;
  author?: { name?: string; url?: string };
}

/** Player settings sit in the attribute either as JSON or, inside inline scripts, as JSON escaped once more. */
function parseStore(raw: string): PlayerStore | undefined {
  // Once more escaped, "\\/" still parses as JSON, but to strings holding backslashes: unescape first.
  const readings = raw.includes('\\\\/') ? [raw.replace(/\\\\/g, '\\'), raw] : [raw];
  for (const candidate of readings) {
    try {
      return JSON.parse(candidate) as PlayerStore;
    } catch {
      /* try the next reading */
    }
  }
  return undefined;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([\da-f]+);/gi, (_, n: string) => String.fromCodePoint(Number.parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Facebook writes durations as "T3M58S" (ISO 8601 without the P). */
function seconds(duration: string | undefined): number | undefined {
  const match = /^P?T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(duration ?? '');
  if (!match || !(match[1] || match[2] || match[3])) return undefined;
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

function count(object: VideoObject | undefined, action: string): number | undefined {
  return object?.interactionStatistic?.find((s) => s.interactionType?.['@type']?.endsWith(action))?.userInteractionCount;
}

/** Keywords are comma-separated categories, one of which (the genre) has commas of its own. */
function keywords(ld: (VideoObject & { genre?: string }) | undefined): string[] {
  if (!ld?.keywords) return [];
  const genre = ld.genre && ld.keywords.includes(ld.genre) ? ld.genre : undefined;
  const rest = genre ? ld.keywords.replace(genre, '') : ld.keywords;
  return [...new Set([...(genre ? [genre] : []), ...rest.split(',').map((k) => k.trim()).filter(Boolean)])];
}

export async function fetchFacebookMobile(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost> {
  const ref = parseFacebookUrl(url);
  if (!ref) throw new GleanerError('UNSUPPORTED_URL', `${url} is not a Facebook video URL.`);
  const pageUrl = ref.short ?? (ref.path ? `https://m.facebook.com${ref.path}` : `https://m.facebook.com/watch/?v=${ref.id}`);
  const page = await fetchPlatform(http, pageUrl, 'The Facebook video', { headers: pageHeaders(http, 'mobile'), signal });
  const finalUrl = new URL(page.url);
  if (/^\/(login|checkpoint)/.test(finalUrl.pathname)) {
    throw new GleanerError('CONTENT_UNAVAILABLE', 'Facebook asks for a login to see this video (it may be private, or limited to a group or an age).');
  }
  const id = ref.id ?? parseFacebookUrl(finalUrl)?.id;
  if (!id) throw new GleanerError('CONTENT_NOT_FOUND', `The Facebook link ${url} does not lead to a video.`);

  const $ = cheerio.load(page.text());
  const meta = (name: string) => ($(`meta[property="${name}"]`).attr('content') ?? $(`meta[name="${name}"]`).attr('content'))?.trim() || undefined;
  // Read from the raw page: the mobile site ships parts of the page inside HTML comments, which a parser skips.
  const store = [...page.text().matchAll(/data-store="([^"]*)"/g)]
    .map((m) => decodeEntities(m[1]))
    .filter((raw) => raw.includes(id))
    .map(parseStore)
    .find((s) => s?.videoID === id && s.src);
  const ld = $('script[type="application/ld+json"]')
    .toArray()
    .map((element) => {
      try {
        return JSON.parse($(element).text()) as VideoObject;
      } catch {
        return undefined;
      }
    })
    .find((o) => o?.['@type'] === 'VideoObject');
  const mediaUrl = store?.src ?? ld?.contentUrl ?? meta('og:video');
  if (!mediaUrl && !ld) {
    throw new GleanerError('CONTENT_UNAVAILABLE', `Facebook showed no video ${id} to a logged-out visitor: it may be private, deleted or region-locked.`);
  }

  const description = ld?.description ?? meta('og:description') ?? meta('twitter:description') ?? null;
  const playerHref = meta('twitter:player') ? new URL(meta('twitter:player')!).searchParams.get('href') ?? undefined : undefined;
  const videoPage = store?.videoURL ?? meta('og:url') ?? playerHref ?? (ref.path ? `https://www.facebook.com${ref.path}` : undefined);
  const handle = ld?.author?.url?.replace(/^\/|\/$/g, '') || (videoPage ? /facebook\.com\/([^/]+)\/videos\//.exec(videoPage)?.[1] : undefined);
  const authorName = ld?.author?.name ?? /^(.+?) on Facebook/.exec(meta('og:title') ?? '')?.[1] ?? null;
  const durationSeconds = seconds(ld?.duration);
  const uploaded = ld?.uploadDate ? new Date(ld.uploadDate) : undefined;
  const thumbnail = ld?.thumbnail?.contentUrl ? { url: ld.thumbnail.contentUrl, width: ld.thumbnail.width, height: ld.thumbnail.height } : undefined;
  const metadata: Metadata = {
    platform: 'facebook',
    url: `https://www.facebook.com/${handle && !/^\d+$/.test(handle) ? `${handle}/videos/${id}/` : `watch/?v=${id}`}`,
    id,
    title: ld?.name?.replace(/\s*\|\s*Facebook$/, '') || titleFrom(description),
    description,
    author: authorName || handle ? { name: authorName ?? handle ?? null, handle, url: handle ? `https://www.facebook.com/${handle}` : undefined } : null,
    counts: ld ? { views: count(ld, 'WatchAction'), likes: count(ld, 'LikeAction'), shares: count(ld, 'ShareAction'), comments: toNumber(ld.commentCount) } : undefined,
    thumbnails: thumbnail ? [thumbnail] : meta('og:image') ? [{ url: meta('og:image')! }] : [],
    durationSeconds,
    publishedAt: uploaded && !Number.isNaN(uploaded.getTime()) ? uploaded.toISOString() : undefined,
    tags: keywords(ld),
    language: ld?.inLanguage,
  };
  const captions: CaptionTrack[] = store?.subtitlesSrc
    ? [{ lang: ld?.inLanguage ?? 'und', url: store.subtitlesSrc, format: 'srt', source: 'author', original: true }]
    : [];
  const headers = { referer: 'https://m.facebook.com/', 'user-agent': userAgent(http, 'mobile') };
  return {
    metadata,
    captions,
    captionHeaders: headers,
    media: mediaUrl ? { url: mediaUrl, durationSeconds, headers } : undefined,
  };
}
