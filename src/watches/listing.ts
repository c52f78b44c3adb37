/**
 * What a watched source holds now: item ids with the URL to transcribe, newest first, at most
 * LISTING_WINDOW. The listing code is the operations' own (channel videos, playlist videos,
 * search sorted by upload date) and the feed reader.
 */
import type { HttpClient } from '../net/http.js';
import type { Logger } from '../log.js';
import { youtubeChannelVideos, youtubePlaylistVideos } from '../platforms/youtube/listings.js';
import { youtubeSearch } from '../platforms/youtube/search.js';
import { readFeed, type FeedItem } from './feed.js';
import { LISTING_WINDOW, type WatchSource } from './record.js';

const watchUrl = (videoId: string) => `https://www.youtube.com/watch?v=${videoId}`;
const videos = (ids: string[]): FeedItem[] => ids.map((id) => ({ id, url: watchUrl(id) }));

export async function listSource(http: HttpClient, source: WatchSource, log: Logger, signal?: AbortSignal): Promise<FeedItem[]> {
  switch (source.kind) {
    case 'channel':
      // The uploads tab: what a subscriber is told about (Shorts and streams have tabs of their own).
      return videos((await youtubeChannelVideos(http, source.value, { type: 'video', limit: LISTING_WINDOW }, log)).videoIds);
    case 'playlist': {
      // A playlist lists oldest first: its newest additions are at the end.
      const { videoIds } = await youtubePlaylistVideos(http, source.value, 500, log);
      return videos(videoIds.slice(-LISTING_WINDOW).reverse());
    }
    case 'search': {
      const reply = await youtubeSearch(http, { query: source.value, type: 'video', sortBy: 'date', definition: 'any', caption: 'any', limit: LISTING_WINDOW });
      return videos(reply.results.flatMap((result) => (result.type === 'video' ? [result.id] : [])));
    }
    case 'feed':
      return (await readFeed(http, source.value, signal)).slice(0, LISTING_WINDOW);
  }
}
