/**
 * TikTok: the video page carries the post as JSON (the __UNIVERSAL_DATA_FOR_REHYDRATION__ script,
 * under webapp.video-detail), with the author, counts, the play address and WebVTT caption tracks.
 * The CDN wants the page's cookies (tt_chain_token) and a tiktok.com Referer on media requests.
 */
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../types.js';
import type { CaptionTrack, PlatformPost } from '../post.js';
import { cookiesOf, DESKTOP_HEADERS, fetchPlatform, titleFrom, toNumber } from '../browser.js';
import { parseTikTokUrl } from './url.js';

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
  imagePost?: unknown;
  video?: {
    duration?: number;
    width?: number;
    height?: number;
    cover?: string;
    originCover?: string;
    playAddr?: string;
    downloadAddr?: string;
    bitrateInfo?: Array<{ Bitrate?: number; PlayAddr?: UrlEntry }>;
    subtitleInfos?: Array<{ LanguageCodeName?: string; Url?: string; Format?: string; Source?: string }>;
    claInfo?: { originalLanguageInfo?: { languageCode?: string; language?: string } };
  };
  music?: { playUrl?: string; duration?: number };
}

interface VideoDetail {
  statusCode?: number;
  statusMsg?: string;
  itemInfo?: { itemStruct?: ItemStruct };
}

/** webapp.video-detail status codes seen on logged-out pages. */
function statusError(code: number, id: string): GleanerError {
  switch (code) {
    case 10204:
      return new GleanerError('CONTENT_NOT_FOUND', `TikTok video ${id} does not exist or was removed.`);
    case 10222:
      return new GleanerError('CONTENT_UNAVAILABLE', `TikTok video ${id} is private: only logged-in followers can see it.`);
    case 10231:
      return new GleanerError('CONTENT_UNAVAILABLE', `TikTok video ${id} is not available in this server's region.`);
    case 10216:
      return new GleanerError('CONTENT_UNAVAILABLE', `TikTok video ${id} is under review and cannot be viewed now.`);
    default:
      return new GleanerError('UPSTREAM_ERROR', `TikTok answered status ${code} for video ${id}.`);
  }
}

function readDetail(html: string): VideoDetail | undefined {
  const match = /<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>([\s\S]*?)<\/script>/.exec(html);
  if (!match) return undefined;
  try {
    const data = JSON.parse(match[1]) as { __DEFAULT_SCOPE__?: Record<string, unknown> };
    return data.__DEFAULT_SCOPE__?.['webapp.video-detail'] as VideoDetail | undefined;
  } catch {
    return undefined;
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
  const page = await fetchPlatform(http, pageUrl, 'The TikTok video', { signal });
  const id = ref.id ?? parseTikTokUrl(new URL(page.url))?.id;
  if (!id) throw new GleanerError('CONTENT_NOT_FOUND', `The TikTok link ${url} does not lead to a video.`);
  const detail = readDetail(page.text());
  if (!detail) throw new GleanerError('UPSTREAM_ERROR', `The TikTok page of video ${id} did not hold the video's data (TikTok may have changed its page, or asked for a captcha).`);
  if (detail.statusCode) throw statusError(detail.statusCode, id);
  const item = detail.itemInfo?.itemStruct;
  if (!item?.id) throw new GleanerError('CONTENT_NOT_FOUND', `TikTok returned no video for ${id}.`);

  const cookie = cookiesOf(page);
  const mediaHeaders = { referer: 'https://www.tiktok.com/', 'user-agent': DESKTOP_HEADERS['user-agent'], ...(cookie ? { cookie } : {}) };
  return { metadata: toMetadata(item), media: mediaLink(item, mediaHeaders), captions: captionTracks(item), captionHeaders: mediaHeaders };
}

function toMetadata(item: ItemStruct): Metadata {
  const stats = { ...item.stats, ...item.statsV2 };
  const author = item.author;
  const handle = author?.uniqueId;
  const video = item.video;
  const tags = [...(item.challenges ?? []).map((c) => c.title), ...(item.textExtra ?? []).map((t) => t.hashtagName)].filter((t): t is string => Boolean(t));
  const created = toNumber(item.createTime);
  return {
    platform: 'tiktok',
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
    thumbnails: [video?.originCover, video?.cover]
      .filter((u): u is string => Boolean(u))
      .map((u) => ({ url: u, width: video?.width, height: video?.height })),
    durationSeconds: toNumber(video?.duration),
    publishedAt: created ? new Date(created * 1000).toISOString() : undefined,
    tags: [...new Set(tags)],
    language: item.textLanguage && item.textLanguage !== 'un' ? item.textLanguage : undefined,
  };
}

/** The lightest rendition: speech needs no picture quality. */
function mediaLink(item: ItemStruct, headers: Record<string, string>): PlatformPost['media'] {
  const video = item.video;
  const renditions = [...(video?.bitrateInfo ?? [])].sort((a, b) => (a.Bitrate ?? 0) - (b.Bitrate ?? 0));
  const url = renditions.map((r) => r.PlayAddr?.UrlList?.[0]).find(Boolean) ?? video?.playAddr ?? video?.downloadAddr;
  if (url) return { url, headers, durationSeconds: toNumber(video?.duration) };
  // Photo posts play a sound track; its words (if any) are what can be transcribed.
  if (item.music?.playUrl) return { url: item.music.playUrl, headers, durationSeconds: toNumber(item.music.duration) };
  return undefined;
}

function captionTracks(item: ItemStruct): CaptionTrack[] {
  const original = item.video?.claInfo?.originalLanguageInfo?.languageCode;
  return (item.video?.subtitleInfos ?? [])
    .filter((s) => s.Url && (s.Format ?? 'webvtt').toLowerCase() === 'webvtt')
    .map((s) => {
      const lang = bcp47(s.LanguageCodeName);
      const source = s.Source === 'MT' ? 'translation' : s.Source === 'ASR' ? 'asr' : 'author';
      return { lang, url: s.Url!, format: 'webvtt' as const, source, original: source !== 'translation' && (!original || lang.split('-')[0] === original) };
    });
}
