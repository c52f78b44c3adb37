/**
 * TikTok: the video page carries the post as JSON (the __UNIVERSAL_DATA_FOR_REHYDRATION__ script,
 * under webapp.video-detail), with the author, counts, the renditions and WebVTT caption tracks
 * (subtitleInfos, and claInfo.captionInfos). The page is read by page.ts: a WAF challenge in its
 * place is solved, and a refusal of one browser identity answered by asking as another. The CDN wants the page's
 * cookies (tt_chain_token) and a tiktok.com Referer on media requests. The page's headers and the
 * CDN's come from the platform profile.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { CaptionTrack, PlatformPost } from '../post.js';
import { titleFrom, toNumber, userAgent } from '../browser.js';
import { profileOf } from '../profile.js';
import { blocked } from '../refusal.js';
import { parseTikTokUrl } from './url.js';
import { fetchVideoPage } from './page.js';
import { speechRenditions, type BitrateInfo } from './renditions.js';

interface UrlEntry {
  UrlList?: string[];
  Width?: number;
  Height?: number;
}

interface ItemStruct {
  id?: string;
  desc?: string;
  createTime?: string | number;
  author?: { id?: string; uniqueId?: string; nickname?: string };
  stats?: Record<string, number | string>;
  statsV2?: Record<string, string>;
  challenges?: Array<{ title?: string }>;
  textExtra?: Array<{ hashtagName?: string }>;
  textLanguage?: string;
  imagePost?: { images?: Array<{ imageURL?: { urlList?: string[] }; imageWidth?: number; imageHeight?: number }> };
  video?: {
    duration?: number;
    width?: number;
    height?: number;
    cover?: string;
    originCover?: string;
    playAddr?: string;
    downloadAddr?: string;
    bitrateInfo?: Array<BitrateInfo & { PlayAddr?: UrlEntry }>;
    subtitleInfos?: Array<{ LanguageCodeName?: string; Url?: string; Format?: string; Source?: string }>;
    claInfo?: {
      originalLanguageInfo?: { languageCode?: string; language?: string };
      captionInfos?: Array<{ language?: string; url?: string; urlList?: string[]; captionFormat?: string; isAutoGen?: boolean; isOriginalCaption?: boolean }>;
    };
  };
  music?: { playUrl?: string; duration?: number };
}


/** webapp.video-detail status codes, mapped as yt-dlp maps them. */
function statusError(code: number, message: string | undefined, id: string): GleanerError {
  switch (code) {
    case 10204:
      // The same code says "removed" (with TikTok's own message saying so) and "this address is blocked".
      if (/doesn.t exist|not exist|removed|deleted/i.test(message ?? '')) return new GleanerError('CONTENT_NOT_FOUND', `TikTok video ${id} does not exist or was removed.`);
      return blocked('tiktok', `it withholds video ${id} from this server's address (status 10204)`);
    case 10216:
    case 10222:
      return new GleanerError('CONTENT_UNAVAILABLE', `TikTok video ${id} is private (a private post or account): only approved logged-in viewers can see it.`);
    case 10231:
      return new GleanerError('CONTENT_UNAVAILABLE', `TikTok video ${id} is not available in this server's region.`);
    default:
      return new GleanerError('UPSTREAM_ERROR', `TikTok answered status ${code} for video ${id}.`);
  }
}

/** "eng-US" (ISO 639-2 with a region, as TikTok writes it) to "en-US". */
function bcp47(code: string | undefined): string {
  if (!code) return 'und';
  try {
    return Intl.getCanonicalLocales(code)[0] ?? code;
  } catch {
    return code;
  }
}

export async function fetchTikTok(http: HttpClient, url: URL, signal?: AbortSignal): Promise<PlatformPost> {
  const ref = parseTikTokUrl(url);
  if (!ref) throw new GleanerError('UNSUPPORTED_URL', `${url} is not a TikTok video URL.`);
  const pageUrl = ref.short ?? `https://www.tiktok.com/@${encodeURIComponent(ref.user ?? '_')}/video/${ref.id}`;
  const { page, detail, cookie, identity } = await fetchVideoPage(http, pageUrl, signal);
  const id = ref.id ?? parseTikTokUrl(new URL(page.url))?.id;
  if (!id) throw new GleanerError('CONTENT_NOT_FOUND', `The TikTok link ${url} does not lead to a video.`);
  if (detail.statusCode) throw statusError(detail.statusCode, detail.statusMsg, id);
  const item = detail.itemInfo?.itemStruct as ItemStruct | undefined;
  if (!item?.id) throw new GleanerError('CONTENT_NOT_FOUND', `TikTok returned no video for ${id}.`);

  const mediaHeaders = { 'user-agent': userAgent(http, identity), ...profileOf(http).tiktok.mediaHeaders, ...(cookie ? { cookie } : {}) };
  const metadata = toMetadata(item);
  if (item.imagePost?.images?.length) {
    // A photo slideshow: its pictures are the post; the music under them is not its words.
    const noMedia = new GleanerError('TRANSCRIPT_UNAVAILABLE', `TikTok post ${id} is a photo slideshow: it has no spoken video to transcribe.`);
    return { metadata, captions: [], noMedia };
  }
  return { metadata, media: mediaLink(item, mediaHeaders), captions: captionTracks(item), captionHeaders: mediaHeaders };
}

function toMetadata(item: ItemStruct): Metadata {
  const stats = { ...item.stats, ...item.statsV2 };
  const author = item.author;
  const handle = author?.uniqueId;
  const video = item.video;
  const tags = [...(item.challenges ?? []).map((c) => c.title), ...(item.textExtra ?? []).map((t) => t.hashtagName)].filter((t): t is string => Boolean(t));
  const created = toNumber(item.createTime);
  const images = (item.imagePost?.images ?? []).flatMap((image) => {
    const url = image.imageURL?.urlList?.[0];
    return url ? [{ url, width: image.imageWidth, height: image.imageHeight }] : [];
  });
  return {
    platform: 'tiktok',
    type: images.length ? 'carousel' : 'video',
    url: `https://www.tiktok.com/@${handle ?? '_'}/video/${item.id}`,
    id: item.id,
    title: titleFrom(item.desc),
    description: item.desc || null,
    author: author ? { name: author.nickname ?? handle ?? null, id: author.id, handle, url: handle ? `https://www.tiktok.com/@${handle}` : undefined } : null,
    counts: {
      views: toNumber(stats.playCount),
      likes: toNumber(stats.diggCount),
      comments: toNumber(stats.commentCount),
      shares: toNumber(stats.shareCount),
      saves: toNumber(stats.collectCount),
    },
    thumbnails: images.length
      ? images
      : [video?.originCover, video?.cover].filter((u): u is string => Boolean(u)).map((u) => ({ url: u, width: video?.width, height: video?.height })),
    durationSeconds: images.length ? undefined : toNumber(video?.duration),
    publishedAt: created ? new Date(created * 1000).toISOString() : undefined,
    tags: [...new Set(tags)],
    language: item.textLanguage && item.textLanguage !== 'un' ? item.textLanguage : undefined,
  };
}

/** The renditions that may carry sound, lightest first (renditions.ts); the pipeline tries them in turn. */
function mediaLink(item: ItemStruct, headers: Record<string, string>): PlatformPost['media'] {
  const video = item.video;
  const [url, ...alternates] = speechRenditions(video?.bitrateInfo, video?.playAddr ?? video?.downloadAddr);
  if (!url) return undefined;
  return { url, alternates, headers, durationSeconds: toNumber(video?.duration) };
}

/** subtitleInfos first; claInfo.captionInfos (the newer list, with its own field names) when that is empty. */
function captionTracks(item: ItemStruct): CaptionTrack[] {
  const original = item.video?.claInfo?.originalLanguageInfo?.languageCode;
  const subtitles = (item.video?.subtitleInfos ?? [])
    .filter((s) => s.Url && (s.Format ?? 'webvtt').toLowerCase() === 'webvtt')
    .map((s) => {
      const lang = bcp47(s.LanguageCodeName);
      const source: CaptionTrack['source'] = s.Source === 'MT' ? 'translation' : s.Source === 'ASR' ? 'asr' : 'author';
      return { lang, url: s.Url!, format: 'webvtt' as const, source, original: source !== 'translation' && (!original || lang.split('-')[0] === original) };
    });
  if (subtitles.length) return subtitles;
  return (item.video?.claInfo?.captionInfos ?? [])
    .filter((c) => (c.url ?? c.urlList?.[0]) && (c.captionFormat ?? 'webvtt').toLowerCase() === 'webvtt')
    .map((c) => {
      const source: CaptionTrack['source'] = c.isOriginalCaption === false ? 'translation' : c.isAutoGen === false ? 'author' : 'asr';
      return { lang: bcp47(c.language), url: (c.url ?? c.urlList?.[0])!, format: 'webvtt' as const, source, original: Boolean(c.isOriginalCaption) };
    });
}
