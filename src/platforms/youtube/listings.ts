/**
 * Channels and playlists: their info, and their video ids page after page through continuations.
 * Every request moves to the next proxy of the pool when its exit is blocked, as for transcripts.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Innertube } from 'youtubei.js';
import { GleanerError } from '../../errors.js';
import type { HttpClient } from '../../net/http.js';
import type { Logger } from '../../log.js';
import { callYoutube, innertube } from './client.js';
import { onFreshExits } from './clients.js';
import { parseChannelRef, parsePlaylistRef } from './ids.js';
import { parseCount, text, videoIdOf } from './items.js';

export interface ChannelInfo {
  id: string;
  name: string | null;
  handle: string | null;
  description: string | null;
  subscriberCount: number | null;
  videoCount: number | null;
  thumbnail: string | null;
  banner: string | null;
  url: string;
  keywords: string[];
}

export interface PlaylistInfo {
  id: string;
  title: string | null;
  videoCount: number | null;
  viewCount: number | null;
  lastUpdated: string | null;
  description: string | null;
  thumbnail: string | null;
  channel: { id: string | null; name: string | null };
}

export interface VideoIdLists {
  videoIds: string[];
  shortIds: string[];
  liveIds: string[];
  /**
   * False when YouTube stopped answering before the limit was reached while it still announced
   * more pages; the ids gathered until then are returned rather than thrown away.
   */
  complete: boolean;
}

/**
 * How a channel or playlist lookup failed: HTTP 400/404 or an alert saying it does not exist is
 * CONTENT_NOT_FOUND; an alert about a removed, terminated or hidden one is CONTENT_UNAVAILABLE.
 */
const gone = (what: string) => (status: number | undefined, message: string) => {
  if (status === 400 || status === 404) return new GleanerError('CONTENT_NOT_FOUND', `${what} does not exist on YouTube (HTTP ${status}).`);
  if (status !== undefined) return undefined;
  if (/does not exist|not found|invalid|isn't available|unavailable/i.test(message)) return new GleanerError('CONTENT_NOT_FOUND', `${what}: YouTube says "${message}"`);
  if (/removed|terminated|violat|private|restricted|members/i.test(message)) return new GleanerError('CONTENT_UNAVAILABLE', `${what}: YouTube says "${message}"`);
  return undefined;
};

/** The UC... id of a channel named by id, @handle or URL. */
export async function resolveChannelId(http: HttpClient, yt: Innertube, input: string): Promise<string> {
  const ref = parseChannelRef(input);
  if (ref.kind === 'id') return ref.id;
  const endpoint = await onFreshExits(http, () => callYoutube(`the lookup of ${ref.url}`, () => yt.resolveURL(ref.url), gone(`The channel ${input}`)));
  const browseId = (endpoint?.payload as { browseId?: string } | undefined)?.browseId;
  if (!browseId?.startsWith('UC')) throw new GleanerError('CONTENT_NOT_FOUND', `"${input}" does not lead to a YouTube channel.`);
  return browseId;
}

async function loadChannel(http: HttpClient, yt: Innertube, id: string) {
  return onFreshExits(http, () => callYoutube(`the channel page of ${id}`, () => yt.getChannel(id), gone(`The channel ${id}`)));
}

function imageUrl(images: any): string | null {
  const list = Array.isArray(images) ? images : [];
  const best = [...list].sort((a, b) => (b.width ?? 0) - (a.width ?? 0))[0];
  return best?.url ? (best.url.startsWith('//') ? `https:${best.url}` : best.url) : null;
}

export async function youtubeChannel(http: HttpClient, input: string): Promise<ChannelInfo> {
  const yt = await innertube(http);
  const id = await resolveChannelId(http, yt, input);
  const channel = await loadChannel(http, yt, id);
  const meta = channel.metadata as any;
  const header = channel.header as any;
  const rows: string[] = (header?.content?.metadata?.metadata_rows ?? []).flatMap((row: any) =>
    (row.metadata_parts ?? []).map((part: any) => text(part.text)).filter(Boolean),
  );
  const vanity = /\/(@[^/?#]+)/.exec(meta?.vanity_channel_url ?? '')?.[1] ?? null;
  return {
    id,
    name: text(meta?.title) ?? text(header?.page_title),
    handle: rows.find((r) => r.startsWith('@')) ?? vanity,
    description: text(meta?.description),
    subscriberCount: parseCount(rows.find((r) => /subscriber/i.test(r)) ?? text(header?.subscribers)),
    videoCount: parseCount(rows.find((r) => /\bvideos?\b/i.test(r)) ?? text(header?.videos_count)),
    thumbnail: imageUrl(meta?.avatar) ?? imageUrl(meta?.thumbnail),
    banner: imageUrl(header?.content?.banner?.image) ?? imageUrl(header?.banner),
    url: `https://www.youtube.com/channel/${id}`,
    keywords: typeof meta?.keywords === 'string' ? (meta.keywords.match(/"[^"]+"|\S+/g) ?? []).map((k: string) => k.replace(/"/g, '')) : [],
  };
}

interface IdFeed {
  videos?: unknown[];
  items?: unknown[];
  has_continuation: boolean;
  getContinuation(): Promise<IdFeed>;
}

/**
 * Ids from a feed and its continuations, up to `limit`. A continuation that fails after the first
 * page ends the list early (complete: false) instead of failing the whole call.
 */
async function collectIds(http: HttpClient, first: IdFeed, limit: number, log: Logger | undefined, what: string): Promise<{ ids: string[]; complete: boolean }> {
  const ids: string[] = [];
  const seen = new Set<string>();
  let feed = first;
  for (;;) {
    const nodes = (feed.videos ?? feed.items ?? []) as unknown[];
    for (const node of nodes) {
      const id = videoIdOf(node);
      if (!id || seen.has(id)) continue;
      seen.add(id);
      ids.push(id);
      if (ids.length >= limit) return { ids, complete: true };
    }
    if (!feed.has_continuation || nodes.length === 0) return { ids, complete: true };
    try {
      const current = feed;
      feed = await onFreshExits(http, () => callYoutube(`the next page of ${what}`, () => current.getContinuation()));
    } catch (error) {
      log?.warn({ err: error, what, gathered: ids.length }, 'youtube listing stopped early');
      return { ids, complete: false };
    }
  }
}

export type ChannelVideoType = 'all' | 'video' | 'short' | 'live';

export async function youtubeChannelVideos(
  http: HttpClient,
  input: string,
  options: { type: ChannelVideoType; limit: number },
  log?: Logger,
): Promise<VideoIdLists & { channelId: string }> {
  const yt = await innertube(http);
  const id = await resolveChannelId(http, yt, input);
  const channel = await loadChannel(http, yt, id);
  const want = (type: ChannelVideoType) => options.type === 'all' || options.type === type;
  const tab = async (present: boolean, open: () => Promise<unknown>, name: string) => {
    if (!present) return { ids: [], complete: true };
    const feed = (await onFreshExits(http, () => callYoutube(`the ${name} tab of ${id}`, open, gone(`The ${name} tab of ${id}`)))) as IdFeed;
    return collectIds(http, feed, options.limit, log, `the ${name} of ${id}`);
  };
  // Tabs are read one after the other: one channel, one host, no need to hurry YouTube.
  const videos = want('video') ? await tab(channel.has_videos, () => channel.getVideos(), 'videos') : { ids: [], complete: true };
  const shorts = want('short') ? await tab(channel.has_shorts, () => channel.getShorts(), 'shorts') : { ids: [], complete: true };
  const live = want('live') ? await tab(channel.has_live_streams, () => channel.getLiveStreams(), 'live') : { ids: [], complete: true };
  return {
    channelId: id,
    videoIds: videos.ids,
    shortIds: shorts.ids,
    liveIds: live.ids,
    complete: videos.complete && shorts.complete && live.complete,
  };
}

async function loadPlaylist(http: HttpClient, yt: Innertube, id: string) {
  return onFreshExits(http, () => callYoutube(`the playlist ${id}`, () => yt.getPlaylist(id), gone(`The playlist ${id}`)));
}

export async function youtubePlaylist(http: HttpClient, input: string): Promise<PlaylistInfo> {
  const yt = await innertube(http);
  const id = parsePlaylistRef(input);
  const playlist = await loadPlaylist(http, yt, id);
  const info = playlist.info as any;
  const updated = text(info.last_updated);
  return {
    id,
    title: text(info.title),
    videoCount: parseCount(text(info.total_items)),
    viewCount: parseCount(text(info.views)),
    lastUpdated: updated ? updated.replace(/^(last )?updated( on)?\s*/i, '') : null,
    description: text(info.description),
    thumbnail: imageUrl(info.thumbnails),
    channel: { id: info.author?.id && info.author.id !== 'N/A' ? info.author.id : null, name: text(info.author?.name) },
  };
}

export async function youtubePlaylistVideos(http: HttpClient, input: string, limit: number, log?: Logger): Promise<VideoIdLists & { playlistId: string }> {
  const yt = await innertube(http);
  const id = parsePlaylistRef(input);
  const playlist = await loadPlaylist(http, yt, id);
  const { ids, complete } = await collectIds(http, playlist as unknown as IdFeed, limit, log, `the playlist ${id}`);
  return { playlistId: id, videoIds: ids, shortIds: [], liveIds: [], complete };
}
