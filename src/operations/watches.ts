/**
 * Watches: a channel, a playlist, a YouTube search or a feed, checked at an interval; each new
 * upload's transcript is delivered once (signed webhook and/or watch_events). The scheduler that
 * checks them is in src/watches; these are the caller's four operations. docs/watches.md.
 */
import { z } from 'zod';
import { defineOperation, type ToolGroup } from './define.js';
import { GleanerError } from '../errors.js';
import { httpUrl, languageCode } from './inputs.js';
import { WATCHES_PER_KEY } from '../accounts/plans.js';
import { parseChannelRef, parsePlaylistRef } from '../platforms/youtube/ids.js';
import { publicWatch, type WatchSource } from '../watches/record.js';

const WATCH_GROUPS: ToolGroup[] = ['watch'];
/** Free, answered at once; a watch's transcripts are charged when delivered. */
// Watches are set up once, not used in every conversation: listed when GLEANER_MCP_TOOLS names the watch group.
const WATCH_OP = { groups: WATCH_GROUPS, mcpGroupOnly: true, plan: 'Free', cost: 0, kind: 'sync', openWorld: false } as const;

/** New items transcribed per check at most (more wait for the next check). */
export const MAX_ITEMS_PER_CHECK = 10;
const WEEK_SECONDS = 7 * 24 * 3600;

const watchIdInput = z.string().min(1).max(100).describe('watchId from watch_create');

const watchReply = z.object({
  watchId: z.string(),
  source: z.object({ kind: z.enum(['channel', 'playlist', 'search', 'feed']), value: z.string() }),
  webhookUrl: z.string().nullable(),
  intervalSeconds: z.number(),
  itemsPerCheck: z.number(),
  lang: z.string().nullable(),
  status: z.enum(['active', 'stopped']),
  stoppedReason: z.object({ code: z.string(), message: z.string() }).nullable().describe('Why a stopped watch stopped'),
  createdAt: z.string(),
  lastCheckAt: z.string().nullable(),
  nextCheckAt: z.string().nullable(),
  checks: z.number(),
  events: z.number().describe('Events recorded so far'),
});

const sourceNames = ['channel', 'playlist', 'search', 'feed'] as const;

function sourceOf(input: { channel?: string; playlist?: string; search?: string; feed?: string }): WatchSource {
  const kind = sourceNames.find((name) => input[name] !== undefined)!;
  return { kind, value: input[kind]!.trim() };
}

export const watchCreate = defineOperation({
  name: 'watch_create',
  title: 'Create a watch',
  description:
    "Watches a YouTube channel, playlist or search, or an RSS/Atom feed; delivers each new upload's transcript once (webhook, watch_events). Free; transcripts charged as transcript.",
  http: { method: 'POST', path: '/v1/watches', successStatus: 201 },
  input: z
    .object({
      channel: z.string().min(1).max(300).optional().describe('Channel id, @handle or URL'),
      playlist: z.string().min(1).max(2048).optional().describe('Playlist id or URL'),
      search: z.string().min(1).max(500).optional().describe('YouTube search query'),
      feed: httpUrl.optional().describe('RSS or Atom feed URL'),
      webhookUrl: httpUrl.optional().describe('Signed POST per event'),
      intervalSeconds: z.number().int().min(1).max(WEEK_SECONDS).default(3600).describe('Seconds between checks'),
      itemsPerCheck: z.number().int().min(1).max(MAX_ITEMS_PER_CHECK).default(5).describe('Most new items per check'),
      lang: languageCode.optional().describe('Preferred language code'),
    })
    .superRefine((input, ctx) => {
      const given = sourceNames.filter((name) => input[name] !== undefined);
      if (given.length === 0) ctx.addIssue({ code: 'custom', path: ['channel'], message: 'give one of channel, playlist, search or feed' });
      if (given.length > 1) ctx.addIssue({ code: 'custom', path: [given[1]], message: `give only one of channel, playlist, search or feed (got ${given.join(' and ')})` });
    }),
  output: watchReply,
  ...WATCH_OP,
  readOnly: false,
  // Every bound is checked before anything is stored: a refused watch costs nothing.
  async check(input, ctx) {
    const min = ctx.services.config.GLEANER_WATCH_MIN_INTERVAL_SECONDS;
    if (input.intervalSeconds < min) throw new GleanerError('INVALID_REQUEST', `intervalSeconds must be at least ${min} on this server (got ${input.intervalSeconds}).`);
    const source = sourceOf(input);
    if (source.kind === 'channel') parseChannelRef(source.value);
    if (source.kind === 'playlist') parsePlaylistRef(source.value);
    if (source.kind === 'feed') await ctx.services.http.assertAllowed(source.value);
    if (input.webhookUrl) await ctx.services.http.assertAllowed(input.webhookUrl);
    const limit = WATCHES_PER_KEY[ctx.account.plan];
    const have = (await ctx.services.watches.list(ctx.account.id)).length;
    if (have >= limit) throw new GleanerError('INVALID_REQUEST', `This key has ${have} watches, the most the ${ctx.account.plan} plan allows (${limit}); delete one with watch_delete first.`);
  },
  async run(input, ctx) {
    const watch = await ctx.services.watches.create({
      ownerId: ctx.account.id,
      source: sourceOf(input),
      webhookUrl: input.webhookUrl,
      intervalSeconds: input.intervalSeconds,
      itemsPerCheck: input.itemsPerCheck,
      lang: input.lang,
      limit: WATCHES_PER_KEY[ctx.account.plan],
    });
    return publicWatch(watch);
  },
});

export const watchList = defineOperation({
  name: 'watch_list',
  title: 'List watches',
  description: "This key's watches: source, status (a stopped one says why), next check. Free.",
  http: { method: 'GET', path: '/v1/watches' },
  input: z.object({}),
  output: z.object({ watches: z.array(watchReply) }),
  ...WATCH_OP,
  readOnly: true,
  async run(_input, ctx) {
    return { watches: (await ctx.services.watches.list(ctx.account.id)).map(publicWatch) };
  },
});

export const watchDelete = defineOperation({
  name: 'watch_delete',
  title: 'Delete a watch',
  description: 'Deletes a watch: no more checks; its events go with it. Free.',
  http: { method: 'DELETE', path: '/v1/watches/{watchId}' },
  input: z.object({ watchId: watchIdInput }),
  output: z.object({ watchId: z.string(), deleted: z.literal(true) }),
  ...WATCH_OP,
  readOnly: false,
  async run(input, ctx) {
    await ctx.services.watches.delete(input.watchId, ctx.account.id);
    return { watchId: input.watchId, deleted: true as const };
  },
});

const watchEvent = z.object({
  eventId: z.string(),
  seq: z.number(),
  type: z.enum(['watch.baseline', 'watch.upload', 'watch.item_failed', 'watch.stopped']),
  watchId: z.string(),
  createdAt: z.string(),
  item: z.object({ id: z.string(), url: z.string() }).optional(),
  transcript: z.unknown().optional().describe('The transcript reply, on watch.upload'),
  creditsUsed: z.number().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  baselineItems: z.number().optional(),
});

export const watchEvents = defineOperation({
  name: 'watch_events',
  title: 'Watch events',
  description: "A watch's events, oldest first: new uploads with transcripts, failures, why it stopped. Free.",
  http: { method: 'GET', path: '/v1/watches/{watchId}/events' },
  input: z.object({
    watchId: watchIdInput,
    cursor: z.string().regex(/^\d{1,9}$/, 'is not a cursor from a previous page').optional().describe('nextCursor of the previous page'),
    limit: z.number().int().min(1).max(50).default(10).describe('Events per page'),
  }),
  output: z.object({
    events: z.array(watchEvent),
    nextCursor: z.string().describe('Pass as cursor for events after these'),
    more: z.boolean().describe('More events are recorded already'),
  }),
  ...WATCH_OP,
  readOnly: true,
  async run(input, ctx) {
    const watch = await ctx.services.watches.get(input.watchId, ctx.account.id);
    const page = await ctx.services.watches.events(watch, input.cursor === undefined ? 0 : Number(input.cursor), input.limit);
    return { events: page.events, nextCursor: String(page.nextCursor), more: page.more };
  },
});

export const WATCH_OPERATIONS = [watchCreate, watchList, watchDelete, watchEvents];
