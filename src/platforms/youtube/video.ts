/**
 * One video: its player reply (captions, details, playability) and, for metadata, its watch-page
 * reply (likes, publication date, channel), in Gleaner's shapes.
 */
import type { Innertube, YT } from 'youtubei.js';
import { GleanerError } from '../../errors.js';
import type { Metadata } from '../../model/content.js';
import type { CaptionTrack } from './captions.js';
import { callYoutube } from './client.js';
import { botCheckError, isBotCheck } from './refusals.js';
import { videoChapters } from './chapters.js';

type Info = YT.VideoInfo;

/** The reply-shapes video object (video batch, search). */
export interface YoutubeVideo {
  id: string;
  title: string | null;
  description: string | null;
  /** Seconds. */
  duration: number | null;
  channel: { id: string | null; name: string | null };
  tags: string[];
  thumbnail: string | null;
  uploadDate: string | null;
  viewCount: number | null;
  likeCount: number | null;
  transcriptLanguages: string[];
}

/**
 * Why a player reply gives nothing, or undefined when it is playable: CONTENT_NOT_FOUND (the video
 * does not exist), UPSTREAM_BLOCKED (the bot check, aimed at this server, not the video) or
 * CONTENT_UNAVAILABLE (private, age-restricted, region-locked, paid).
 */
export function playabilityError(info: Info, videoId: string, client = 'WEB'): GleanerError | undefined {
  const status = info.playability_status;
  if (!status || status.status === 'OK' || status.status === 'LIVE_STREAM_OFFLINE') return undefined;
  const screen = status.error_screen as { reason?: { toString(): string } } | null | undefined;
  const reason = (status.reason || screen?.reason?.toString() || '').trim();
  const said = reason ? ` (YouTube: "${reason}")` : '';
  if (status.status === 'ERROR') return new GleanerError('CONTENT_NOT_FOUND', `The YouTube video ${videoId} does not exist or was removed${said}.`);
  if (isBotCheck(reason)) return botCheckError(`the video ${videoId}`, { clients: [client], exits: 0 });
  return new GleanerError('CONTENT_UNAVAILABLE', `The YouTube video ${videoId} is not viewable: it is private, age-restricted, region-locked or paid${said}.`);
}

/** youtubei.js throws on a player reply whose status is ERROR: that is a video that does not exist. */
export const missingVideo = (videoId: string) => (status: number | undefined, message: string) =>
  status === undefined && /unavailable|does not exist|not found/i.test(message)
    ? new GleanerError('CONTENT_NOT_FOUND', `The YouTube video ${videoId} does not exist or was removed (YouTube: "${message}").`)
    : undefined;

/** The player reply alone (captions, duration, details); unviewable videos are errors. */
export async function loadPlayer(yt: Innertube, videoId: string): Promise<Info> {
  const info = await callYoutube(`the player request for ${videoId}`, () => yt.getBasicInfo(videoId), missingVideo(videoId));
  const error = playabilityError(info, videoId);
  if (error) throw error;
  return info;
}

/** Player and watch-page replies together (metadata: likes, date, channel). */
export async function loadVideo(yt: Innertube, videoId: string): Promise<Info> {
  let info: Info;
  try {
    info = await callYoutube(`the watch request for ${videoId}`, () => yt.getInfo(videoId), missingVideo(videoId));
  } catch (error) {
    // The watch page of a private or removed video may be unreadable: the player reply says why.
    const code = (error as GleanerError).code;
    if (code === 'UPSTREAM_ERROR' || code === 'UPSTREAM_CHANGED') await loadPlayer(yt, videoId);
    throw error;
  }
  const error = playabilityError(info, videoId);
  if (error) throw error;
  return info;
}

export function captionTracks(info: Info): { tracks: CaptionTrack[]; defaultIndex?: number; translationLanguages: string[] } {
  const captions = info.captions;
  const tracks = (captions?.caption_tracks ?? []).map((track) => ({
    languageCode: track.language_code,
    name: track.name?.toString() ?? track.language_code,
    kind: track.kind,
    baseUrl: track.base_url,
    isTranslatable: Boolean(track.is_translatable),
  }));
  const audio = captions?.audio_tracks?.[captions.default_audio_track_index ?? 0] ?? captions?.audio_tracks?.[0];
  const index = audio?.default_caption_track_index;
  return {
    tracks,
    defaultIndex: typeof index === 'number' && index >= 0 && index < tracks.length ? index : undefined,
    translationLanguages: (captions?.translation_languages ?? []).map((l) => l.language_code),
  };
}

export function durationSeconds(info: Info): number {
  return Number(info.basic_info.duration ?? 0) || 0;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "18 Nov 2020", "Nov 18, 2020", "Premiered Nov 18, 2020" as 2020-11-18; anything else null. */
export function parseDisplayDate(text: string | undefined): string | null {
  if (!text) return null;
  const dmy = /(\d{1,2}) ([A-Za-z]{3})[a-z]*\.? (\d{4})/.exec(text);
  const mdy = /([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4})/.exec(text);
  const [day, month, year] = dmy ? [dmy[1], dmy[2], dmy[3]] : mdy ? [mdy[2], mdy[1], mdy[3]] : [];
  const m = month ? MONTHS.indexOf(month.toLowerCase()) : -1;
  if (m < 0 || !day || !year) return null;
  return `${year}-${String(m + 1).padStart(2, '0')}-${day.padStart(2, '0')}`;
}

interface Microformat {
  publish_date?: string;
  upload_date?: string;
  category?: string;
}

/** ISO date of publication: the player's microformat, else the watch page's date text. */
export function publishDate(info: Info): string | null {
  const micro = (info.page?.[0] as { microformat?: Microformat } | undefined)?.microformat;
  const iso = micro?.publish_date ?? micro?.upload_date;
  if (iso) return iso;
  return parseDisplayDate(info.primary_info?.published?.toString());
}

function bestThumbnail(info: Info): string | null {
  const thumbs = info.basic_info.thumbnail ?? [];
  return thumbs.length > 0 ? [...thumbs].sort((a, b) => b.width * b.height - a.width * a.height)[0].url : null;
}

export function toVideo(info: Info): YoutubeVideo {
  const basic = info.basic_info;
  const owner = info.secondary_info?.owner?.author;
  return {
    id: basic.id ?? '',
    title: basic.title ?? null,
    description: basic.short_description ?? null,
    duration: basic.duration ?? null,
    channel: { id: basic.channel_id ?? owner?.id ?? null, name: basic.author ?? owner?.name ?? null },
    tags: basic.keywords ?? basic.tags ?? [],
    thumbnail: bestThumbnail(info),
    uploadDate: publishDate(info),
    viewCount: typeof basic.view_count === 'number' ? basic.view_count : null,
    likeCount: typeof basic.like_count === 'number' ? basic.like_count : null,
    transcriptLanguages: [...new Set(captionTracks(info).tracks.map((t) => t.languageCode))],
  };
}

export function toMetadata(info: Info): Metadata {
  const video = toVideo(info);
  const owner = info.secondary_info?.owner?.author;
  const handle = owner?.url ? /\/(@[^/?#]+)/.exec(owner.url)?.[1] : undefined;
  const publishedAt = video.uploadDate ?? undefined;
  const chapters = videoChapters(info);
  return {
    platform: 'youtube',
    url: `https://www.youtube.com/watch?v=${video.id}`,
    id: video.id,
    title: video.title,
    description: video.description,
    author: {
      name: video.channel.name,
      ...(video.channel.id ? { id: video.channel.id, url: `https://www.youtube.com/channel/${video.channel.id}` } : {}),
      ...(handle ? { handle } : {}),
    },
    counts: {
      ...(video.viewCount !== null ? { views: video.viewCount } : {}),
      ...(video.likeCount !== null ? { likes: video.likeCount } : {}),
    },
    thumbnails: (info.basic_info.thumbnail ?? []).map((t) => ({ url: t.url, width: t.width, height: t.height })),
    ...(video.duration !== null ? { durationSeconds: video.duration } : {}),
    ...(publishedAt ? { publishedAt } : {}),
    tags: video.tags,
    ...(chapters.length ? { chapters } : {}),
  };
}

/**
 * The smallest audio-only stream with a plain URL, for speech to text when a video has no captions;
 * of a video with dubbed audio tracks, the original one. Streams whose URL is ciphered, or absent
 * (WEB since 2025: SABR only), need YouTube's player script or a PO token: other clients
 * (VISIONOS, ANDROID, IOS) still list direct URLs.
 */
export function audioStreamUrl(info: Info): string | undefined {
  const formats = [...(info.streaming_data?.adaptive_formats ?? []), ...(info.streaming_data?.formats ?? [])].filter(
    (format) => typeof format.url === 'string' && format.url.startsWith('http'),
  );
  const original = (format: (typeof formats)[number]) => !format.audio_track || format.audio_track.audio_is_default || format.is_original === true;
  const audio = formats
    .filter((format) => format.has_audio && !format.has_video && original(format))
    .sort((a, b) => (a.bitrate ?? Infinity) - (b.bitrate ?? Infinity));
  return audio[0]?.url ?? formats.find((format) => format.has_audio)?.url;
}

/**
 * A direct URL of the video's pictures for frame sampling: the smallest rendition with video (a
 * frame of 144p to 360p is enough for a model and costs little to download), muxed ones first.
 */
export function videoStreamUrl(info: Info): string | undefined {
  const formats = [...(info.streaming_data?.formats ?? []), ...(info.streaming_data?.adaptive_formats ?? [])].filter(
    (format) => typeof format.url === 'string' && format.url.startsWith('http') && format.has_video,
  );
  const usable = formats.filter((format) => (format.height ?? 0) >= 144);
  const ranked = (usable.length ? usable : formats).sort((a, b) => (a.height ?? 0) - (b.height ?? 0) || (a.bitrate ?? Infinity) - (b.bitrate ?? Infinity));
  return ranked[0]?.url;
}
