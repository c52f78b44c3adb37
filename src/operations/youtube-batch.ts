/**
 * What the YouTube batches share: the videos a batch names (a list, a playlist or a channel) and how
 * many are worked at once.
 */
import { z } from 'zod';
import pLimit from 'p-limit';
import type { OperationContext } from './define.js';
import { youtubeChannelVideos, youtubePlaylistVideos } from '../platforms/youtube/listings.js';

/** Items in flight at once in a batch; the outbound client's per-host politeness bounds it further. */
const BATCH_WIDTH = 10;

/** Runs `work` over `items`, at most BATCH_WIDTH at once, results in the order of the items. */
export function eachInBatch<T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const limit = pLimit(BATCH_WIDTH);
  return Promise.all(items.map((item) => limit(() => work(item))));
}

/**
 * The videos a batch names: exactly one of videoIds, playlistId or channelId (the Supadata SDK's
 * batch source); `limit` caps how many a playlist or channel gives.
 */
export const channelId = z.string().min(1).max(300).describe('Channel id, @handle or URL');
export const playlistId = z.string().min(1).max(2048).describe('Playlist id or URL');

export const batchSource = {
  videoIds: z.array(z.string().min(1).max(2048)).min(1).max(50).optional().describe('Video ids or URLs'),
  playlistId: playlistId.optional(),
  channelId: channelId.optional(),
  limit: z.number().int().min(1).max(50).default(10).describe('Most videos of the playlist or channel'),
};
type BatchSource = { videoIds?: string[]; playlistId?: string; channelId?: string; limit: number };

export const oneSource = (sources: Array<'urls' | 'videoIds' | 'playlistId' | 'channelId' | 'watchId'>) => (input: Partial<BatchSource> & { urls?: string[]; watchId?: string }, ctx: z.RefinementCtx): void => {
  const given = sources.filter((name) => input[name] !== undefined);
  const names = `${sources.slice(0, -1).join(', ')} or ${sources.at(-1)}`;
  if (given.length === 0) ctx.addIssue({ code: 'custom', path: ['videoIds'], message: `give one of ${names}` });
  if (given.length > 1) ctx.addIssue({ code: 'custom', path: [given[1]], message: `give only one of ${names} (got ${given.join(' and ')})` });
};

export async function batchRefs(input: BatchSource, ctx: OperationContext): Promise<string[]> {
  if (input.playlistId) return (await youtubePlaylistVideos(ctx.services.http, input.playlistId, input.limit, ctx.log)).videoIds;
  if (input.channelId) return (await youtubeChannelVideos(ctx.services.http, input.channelId, { type: 'video', limit: input.limit }, ctx.log)).videoIds;
  return input.videoIds ?? [];
}
