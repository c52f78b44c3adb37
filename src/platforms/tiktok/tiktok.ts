/**
 * TikTok: the video page embeds its data as JSON in the __UNIVERSAL_DATA_FOR_REHYDRATION__ script
 * (`webapp.video-detail` holds a status code and the item). The media URL only plays with the
 * cookies the page set (tt_chain_token), so those travel with it. Captions, where TikTok made
 * them, are WebVTT files listed in `video.subtitleInfos` (Source ASR: its own speech recognition
 * in the spoken language; MT: machine translations of it).
 */
import * as cheerio from 'cheerio';
import type { HttpClient } from '../../net/http.js';
import { GleanerError } from '../../errors.js';
import { languageCode } from '../../ai/languages.js';
import { BROWSER_UA, cookieHeader, defined, fetchOk, hostIs, type CaptionTrack, type PlatformAdapter, type PlatformPost } from '../post.js';

const VIDEO_PATH = /^\/(?:@([\w.-]+)\/(?:video|photo)|embed(?:\/v2)?|v|share\/video)\/(\d+)/;
const SHORT_HOSTS = ['vm.tiktok.com', 'vt.tiktok.com'];

export function tiktokVideoId(url: URL): { id: string; user?: string } | undefined {
  if (!hostIs(url, 'tiktok.com')) return undefined;
  const match = VIDEO_PATH.exec(url.pathname);
  return match ? { id: match[2], user: match[1] } : undefined;
}

function isShortLink(url: URL): boolean {
  return SHORT_HOSTS.includes(url.hostname.toLowerCase()) || (hostIs(url, 'tiktok.com') && /^\/t\/\w+/.test(url.pathname));
}

/** Short links (vm.tiktok.com/XXXX) redirect to the video page. */
async function resolveShortLink(http: HttpClient, url: URL, signal?: AbortSignal): Promise<URL> {
  const reply = await http.fetch(url.toString(), { redirect: 'manual', headers: { 'user-agent': BROWSER_UA }, signal });
  const location = reply.headers.location;
  if (reply.status >= 300 && reply.status < 400 && location) return new URL(location, url);
  throw new GleanerError('CONTENT_NOT_FOUND', `The TikTok short link ${url} does not lead to a video.`);
}

interface ItemStruct {
  id: string;
  desc?: string;
  createTime?: string | number;
  textLanguage?: string;
  author?: { id?: string; uniqueId?: string; nickname?: string };
  stats?: Record<string, number | string>;
  statsV2?: Record<string, number | string>;
  challenges?: Array<{ title?: string }>;
  textExtra?: Array<{ hashtagName?: string }>;
  imagePost?: { images?: Array<{ imageURL?: { urlList?: string[] } }> };
  video?: {
    duration?: number;
    width?: number;
    height?: number;
    cover?: string;
    originCover?: string;
    playAddr?: string;
    downloadAddr?: string;
    PlayAddrStruct?: { UrlList?: string[] };
    subtitleInfos?: Array<{ LanguageCodeName?: string; Url?: string; Format?: string; Source?: string }>;
  };
}

export function parseTiktokPage(html: string): { status: number; item?: ItemStruct } {
  const $ = cheerio.load(html);
  const script = $('script#__UNIVERSAL_DATA_FOR_REHYDRATION__').text();
  if (!script) throw new GleanerError('UPSTREAM_ERROR', 'TikTok sent a page without its video data (a bot check or a changed page layout).');
  let data: any;
  try {
    data = JSON.parse(script);
  } catch (error) {
    throw new GleanerError('UPSTREAM_ERROR', 'TikTok sent video data that could not be read.', { cause: error });
  }
  const detail = data?.__DEFAULT_SCOPE__?.['webapp.video-detail'];
  return { status: Number(detail?.statusCode ?? 0), item: detail?.itemInfo?.itemStruct };
}

function statusError(status: number, id: string): GleanerError {
  // Codes as the web app reports them: 10216 private post, 10222 private account, 10204 gone or blocked.
  if (status === 10216 || status === 10222) return new GleanerError('CONTENT_UNAVAILABLE', `The TikTok video ${id} is private.`);
  if (status === 10204) return new GleanerError('CONTENT_NOT_FOUND', `The TikTok video ${id} does not exist or is not viewable from this server's address.`);
  return new GleanerError('CONTENT_UNAVAILABLE', `TikTok does not show the video ${id} (status ${status}); it may be removed, restricted or region-locked.`);
}

const num = (value: unknown) => (value === undefined || value === null || value === '' ? undefined : Number(value));

export function tiktokPost(item: ItemStruct, pageUrl: string, cookies?: string): PlatformPost {
  const video = item.video ?? {};
  const stats = { ...item.statsV2, ...item.stats };
  const handle = item.author?.uniqueId;
  const created = Number(item.createTime);
  const tags = [...new Set([...(item.challenges ?? []).map((c) => c.title), ...(item.textExtra ?? []).map((t) => t.hashtagName)].filter((t): t is string => Boolean(t)))];
  const mediaUrl = video.playAddr || video.PlayAddrStruct?.UrlList?.[0] || video.downloadAddr;
  const isVideo = Boolean(mediaUrl) && !item.imagePost;
  const captions: CaptionTrack[] = (video.subtitleInfos ?? [])
    .filter((s) => s.Url && (s.Format ?? 'webvtt').toLowerCase() === 'webvtt')
    .map((s) => ({
      lang: languageCode(s.LanguageCodeName) ?? 'und',
      url: s.Url!,
      kind: s.Source === 'MT' ? ('translation' as const) : s.Source === 'ASR' ? ('asr' as const) : ('manual' as const),
    }));
  const canonical = `https://www.tiktok.com/@${handle ?? '_'}/video/${item.id}`;
  return {
    metadata: {
      platform: 'tiktok',
      url: canonical,
      id: item.id,
      title: item.desc || null,
      description: item.desc || null,
      author: item.author ? { name: item.author.nickname ?? handle ?? null, ...defined({ id: item.author.id, handle: handle ? `@${handle}` : undefined, url: handle ? `https://www.tiktok.com/@${handle}` : undefined }) } : null,
      counts: defined({ views: num(stats.playCount), likes: num(stats.diggCount), comments: num(stats.commentCount), shares: num(stats.shareCount), saves: num(stats.collectCount) }),
      thumbnails: [video.cover, video.originCover].filter((u): u is string => Boolean(u)).map((url) => ({ url, ...defined({ width: video.width, height: video.height }) })),
      ...(isVideo ? { media: { type: 'video' as const, url: mediaUrl!, ...defined({ durationSeconds: video.duration, width: video.width, height: video.height }) } } : {}),
      ...defined({ durationSeconds: video.duration || undefined, publishedAt: Number.isFinite(created) && created > 0 ? new Date(created * 1000).toISOString() : undefined, language: languageCode(item.textLanguage) }),
      tags,
    },
    captions,
    media: isVideo ? { url: mediaUrl!, durationSeconds: video.duration || undefined, headers: { referer: pageUrl, ...(cookies ? { cookie: cookies } : {}) } } : undefined,
  };
}

export const tiktokAdapter: PlatformAdapter = {
  platform: 'tiktok',
  label: 'TikTok',
  matches: (url) => tiktokVideoId(url) !== undefined || isShortLink(url),
  async load(http, url, signal) {
    let target = url;
    if (!tiktokVideoId(target) && isShortLink(target)) target = await resolveShortLink(http, target, signal);
    const ref = tiktokVideoId(target);
    if (!ref) throw new GleanerError('UNSUPPORTED_URL', `${url} is not a TikTok video URL (expected https://www.tiktok.com/@user/video/<id>).`);
    const pageUrl = `https://www.tiktok.com/@${ref.user ?? '_'}/video/${ref.id}`;
    const page = await fetchOk(http, pageUrl, 'TikTok', { headers: { 'user-agent': BROWSER_UA, 'accept-language': 'en-US,en;q=0.8' }, signal });
    const { status, item } = parseTiktokPage(page.text());
    if (status !== 0 || !item) throw statusError(status, ref.id);
    return tiktokPost(item, pageUrl, cookieHeader(page.headers['set-cookie']));
  },
};
