/**
 * youtubei.js result nodes (search results, channel and playlist listings) in Gleaner's shapes.
 * The node classes change with YouTube's layouts, so they are read defensively: a field YouTube
 * did not send is null, never guessed.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */

export interface VideoItem {
  type: 'video';
  id: string;
  title: string | null;
  description: string | null;
  thumbnail: string | null;
  /** Seconds. */
  duration: number | null;
  viewCount: number | null;
  /** YouTube lists only a relative age ("3 days ago") in results: exact dates are not invented. */
  uploadDate: string | null;
  publishedText: string | null;
  channel: { id: string | null; name: string | null };
  isShort: boolean;
  isLive: boolean;
  badges: string[];
}

export interface ChannelItem {
  type: 'channel';
  id: string;
  name: string | null;
  handle: string | null;
  description: string | null;
  thumbnail: string | null;
  subscriberCount: number | null;
  videoCount: number | null;
}

export interface PlaylistItem {
  type: 'playlist';
  id: string;
  title: string | null;
  description: string | null;
  thumbnail: string | null;
  videoCount: number | null;
  channel: { id: string | null; name: string | null };
}

export type ResultItem = VideoItem | ChannelItem | PlaylistItem;

export function text(value: any): string | null {
  if (value === undefined || value === null) return null;
  const s = typeof value === 'string' ? value : typeof value.toString === 'function' ? value.toString() : '';
  const trimmed = s === '[object Object]' ? '' : s.trim();
  return trimmed === '' || trimmed === 'N/A' ? null : trimmed;
}

/** "1,862 views", "2.9M views", "1.48M subscribers", "2.9 million views", "No views" as numbers. */
export function parseCount(value: string | null | undefined): number | null {
  if (!value) return null;
  if (/^no\b/i.test(value.trim())) return 0;
  const found = /([\d.,]+)\s*(k|m|b|thousand|million|billion)?\b/i.exec(value.replace(/\u00a0/g, ' '));
  if (!found) return null;
  const unit = (found[2] ?? '').toLowerCase();
  const scale = unit === 'k' || unit === 'thousand' ? 1e3 : unit === 'm' || unit === 'million' ? 1e6 : unit === 'b' || unit === 'billion' ? 1e9 : 1;
  const number = scale === 1 ? Number(found[1].replace(/[.,]/g, '')) : Number(found[1].replace(/,/g, ''));
  return Number.isFinite(number) ? Math.round(number * scale) : null;
}

/** "1:02:03" or "2:16" as seconds. */
export function parseClock(value: string | null | undefined): number | null {
  if (!value || !/^\d+(:\d{1,2}){1,2}$/.test(value.trim())) return null;
  return value
    .trim()
    .split(':')
    .reduce((total, part) => total * 60 + Number(part), 0);
}

function absolute(url: string | undefined): string | null {
  if (!url) return null;
  return url.startsWith('//') ? `https:${url}` : url;
}

function firstThumb(list: any): string | null {
  const thumbs = Array.isArray(list) ? list : [];
  if (thumbs.length === 0) return null;
  const best = [...thumbs].sort((a, b) => (b.width ?? 0) * (b.height ?? 0) - (a.width ?? 0) * (a.height ?? 0))[0];
  return absolute(best?.url);
}

function badgeLabels(node: any): string[] {
  return (node.badges ?? []).map((b: any) => text(b.label ?? b.text)).filter((l: string | null): l is string => Boolean(l));
}

function videoFromVideoNode(node: any): VideoItem {
  const lengthText = text(node.length_text) ?? text(node.thumbnail_overlays?.find?.((o: any) => o.type === 'ThumbnailOverlayTimeStatus')?.text);
  const badges = badgeLabels(node);
  const isLive = badges.some((b) => /live/i.test(b)) || Boolean(node.is_live);
  return {
    type: 'video',
    id: node.video_id ?? node.id,
    title: text(node.title),
    description: text(node.description_snippet) ?? text(node.snippets?.[0]?.text) ?? text(node.description),
    thumbnail: firstThumb(node.thumbnails),
    duration: node.duration?.seconds ?? parseClock(lengthText),
    viewCount: parseCount(text(node.view_count) ?? text(node.short_view_count)),
    uploadDate: null,
    publishedText: text(node.published),
    channel: { id: node.author?.id && node.author.id !== 'N/A' ? node.author.id : null, name: text(node.author?.name) },
    isShort: false,
    isLive,
    badges,
  };
}

function videoFromShort(node: any): VideoItem | undefined {
  const id = node.on_tap_endpoint?.payload?.videoId ?? node.id ?? node.video_id;
  if (!id) return undefined;
  return {
    type: 'video',
    id,
    title: text(node.overlay_metadata?.primary_text) ?? text(node.title),
    description: null,
    thumbnail: firstThumb(node.thumbnail ?? node.thumbnails) ?? absolute(node.on_tap_endpoint?.payload?.thumbnail?.thumbnails?.[0]?.url),
    duration: null,
    viewCount: parseCount(text(node.overlay_metadata?.secondary_text) ?? text(node.views)),
    uploadDate: null,
    publishedText: null,
    channel: { id: null, name: null },
    isShort: true,
    isLive: false,
    badges: [],
  };
}

function channelFromNode(node: any): ChannelItem {
  // Search results put the @handle where the subscriber count was, and the count where the video count was.
  const subs = text(node.subscriber_count);
  const videos = text(node.video_count);
  const handleShifted = Boolean(subs?.startsWith('@'));
  return {
    type: 'channel',
    id: node.id ?? node.author?.id,
    name: text(node.author?.name),
    handle: handleShifted ? subs : /\/(@[^/?#]+)/.exec(node.author?.url ?? '')?.[1] ?? null,
    description: text(node.description_snippet),
    thumbnail: firstThumb(node.author?.thumbnails),
    subscriberCount: parseCount(handleShifted ? videos : subs),
    videoCount: handleShifted ? null : parseCount(videos),
  };
}

function lockupRows(node: any): string[] {
  const rows = node.metadata?.metadata?.metadata_rows ?? [];
  return rows.flatMap((row: any) => (row.metadata_parts ?? []).map((part: any) => text(part.text))).filter(Boolean);
}

function playlistFromLockup(node: any): PlaylistItem {
  const overlays = JSON.stringify(node.content_image ?? {});
  const count = /"text":"([\d,.]+\s*(?:[KMB]\s*)?(?:videos?|episodes?|lessons?))"/i.exec(overlays)?.[1];
  const image = node.content_image?.primary_thumbnail?.image ?? node.content_image?.image;
  const channelPart = node.metadata?.metadata?.metadata_rows?.[0]?.metadata_parts?.[0];
  const channelId = channelPart?.text?.runs?.find?.((r: any) => r.endpoint?.payload?.browseId)?.endpoint?.payload?.browseId ?? null;
  return {
    type: 'playlist',
    id: node.content_id,
    title: text(node.metadata?.title),
    description: null,
    thumbnail: firstThumb(image),
    videoCount: parseCount(count ?? null),
    channel: { id: channelId, name: lockupRows(node)[0] ?? null },
  };
}

function playlistFromNode(node: any): PlaylistItem {
  return {
    type: 'playlist',
    id: node.id,
    title: text(node.title),
    description: null,
    thumbnail: firstThumb(node.thumbnails?.[0]?.thumbnails ?? node.thumbnails),
    videoCount: parseCount(text(node.video_count)),
    channel: { id: node.author?.id && node.author.id !== 'N/A' ? node.author.id : null, name: text(node.author?.name) },
  };
}

/** Result items of one node, shelves opened up; nodes that are not results (ads, chips) give none. */
export function resultItems(node: any): ResultItem[] {
  switch (node?.type) {
    case 'Video':
    case 'CompactVideo':
    case 'GridVideo':
    case 'PlaylistVideo':
      return node.video_id || node.id ? [videoFromVideoNode(node)] : [];
    case 'ShortsLockupView':
    case 'ReelItem': {
      const short = videoFromShort(node);
      return short ? [short] : [];
    }
    case 'Channel':
    case 'GridChannel':
      return [channelFromNode(node)];
    case 'Playlist':
    case 'GridPlaylist':
      return [playlistFromNode(node)];
    case 'LockupView':
      if (node.content_type === 'PLAYLIST') return [playlistFromLockup(node)];
      if (node.content_type === 'VIDEO') return [{ ...videoFromLockup(node) }];
      return [];
    case 'RichItem':
      return resultItems(node.content);
    case 'Shelf':
    case 'ReelShelf':
    case 'GridShelfView':
    case 'HorizontalCardList':
    case 'RichShelf':
    case 'VerticalList':
    case 'HorizontalList':
    case 'ExpandedShelfContents': {
      const inner = node.content?.items ?? node.content?.contents ?? node.contents ?? node.items ?? node.cards ?? [];
      const list = Array.isArray(inner) ? inner : [inner];
      return list.flatMap((child: any) => resultItems(child));
    }
    default:
      return [];
  }
}

function videoFromLockup(node: any): VideoItem {
  const overlays = JSON.stringify(node.content_image ?? {});
  const clock = /"text":"(\d+(?::\d{2}){1,2})"/.exec(overlays)?.[1];
  const rows = lockupRows(node);
  return {
    type: 'video',
    id: node.content_id,
    title: text(node.metadata?.title),
    description: null,
    thumbnail: firstThumb(node.content_image?.image),
    duration: parseClock(clock),
    viewCount: parseCount(rows.find((r) => /views?$/i.test(r)) ?? null),
    uploadDate: null,
    publishedText: rows.find((r) => /ago$/i.test(r)) ?? null,
    channel: { id: null, name: rows[0] ?? null },
    isShort: false,
    isLive: false,
    badges: [],
  };
}

/** The id of a video node in a channel or playlist listing. */
export function videoIdOf(node: any): string | undefined {
  const item = resultItems(node).find((i) => i.type === 'video');
  return item?.id;
}
