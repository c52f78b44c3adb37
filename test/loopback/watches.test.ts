/**
 * Watches on the embedded store, through a real server on loopback: the operations' bounds (each a
 * 400 that charges and stores nothing), the SSRF guard on webhook and feed URLs, a replayed channel
 * that gains two uploads (each transcribed, charged and delivered once by signed webhook and in
 * watch_events, also after a restart), a feed whose key runs out of credits (stopped, saying why),
 * and a check left half-done by a dead process, finished once by the next.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { growingChannel, startWebhookReceiver, WATCHED_CHANNEL, type GrowingChannel, type WebhookReceiver } from '../support/watch-fixtures.js';
import { itemKey, seenDigest, watchKey, type ItemRecord, type WatchRecord } from '../../src/watches/record.js';

const SECRET = 'watch-test-secret-0123456789';
let replay: YoutubeReplay;
let channel: GrowingChannel;
let receiver: WebhookReceiver;
let server: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  channel = growingChannel(replay, 2);
  receiver = await startWebhookReceiver(SECRET);
  env = {
    GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}`,
    GLEANER_ALLOW_PRIVATE_URLS: 'true',
    GLEANER_WEBHOOK_SECRET: SECRET,
    GLEANER_WATCH_MIN_INTERVAL_SECONDS: '1',
    GLEANER_JOB_LEASE_SECONDS: '1',
    // The watch tools are listed with their group only (they are set up once, not used in every conversation).
    GLEANER_MCP_TOOLS: 'all',
  };
  server = await startTestServer({ env });
});

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await replay?.close();
});

const credits = async (key: string, on = server) => (await on.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

/** Resolves after `count` more checks of `watchId` ran on `on` (the scheduler's own event, no clock). */
function checks(on: TestServer, watchId: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    const listener = (id: string) => {
      if (id !== watchId || --left > 0) return;
      on.app.watchScheduler.events.off('checked', listener);
      resolve();
    };
    on.app.watchScheduler.events.on('checked', listener);
  });
}

/** Resolves after `count` more webhook deliveries of `watchId` ended on `on` (delivered or given up). */
function deliveries(on: TestServer, watchId: string, count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    const listener = (id: string) => {
      if (id !== watchId || --left > 0) return;
      on.app.watchScheduler.events.off('delivered', listener);
      resolve();
    };
    on.app.watchScheduler.events.on('delivered', listener);
  });
}

async function allEvents(on: TestServer, key: string, watchId: string, limit = 1): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await on.request('GET', `/v1/watches/${watchId}/events?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { apiKey: key });
    expect(page.status).toBe(200);
    events.push(...page.body.events);
    cursor = page.body.nextCursor;
    if (!page.body.more) return events;
  }
}

describe('watch operations: bounds', () => {
  it('refuse out-of-bounds input with a clear 400, storing and charging nothing', async () => {
    const strict = await startTestServer({ env: { GLEANER_WEBHOOK_SECRET: SECRET } });
    try {
      const key = await strict.createKey('Free', { credits: 10 });
      const create = (body: unknown) => strict.request('POST', '/v1/watches', { apiKey: key, body });
      const refusals: Array<[unknown, RegExp]> = [
        [{ intervalSeconds: 3600 }, /give one of channel, playlist, search or feed/],
        [{ channel: WATCHED_CHANNEL, search: 'cats', intervalSeconds: 3600 }, /give only one of/],
        // The server's minimum (300 s by default): a caller cannot go below it.
        [{ channel: WATCHED_CHANNEL, intervalSeconds: 60 }, /intervalSeconds must be at least 300/],
        [{ channel: WATCHED_CHANNEL, intervalSeconds: 0 }, /intervalSeconds/],
        [{ channel: WATCHED_CHANNEL, intervalSeconds: 3600, itemsPerCheck: 11 }, /itemsPerCheck/],
        [{ channel: 'not a channel!', intervalSeconds: 3600 }, /not a channel/],
        [{ playlist: 'nope', intervalSeconds: 3600 }, /not a YouTube playlist/],
        [{ feed: 'ftp://example.com/feed.xml', intervalSeconds: 3600 }, /feed/],
        [{ channel: WATCHED_CHANNEL, intervalSeconds: 3600, surprise: 1 }, /Unknown parameter "surprise"/],
      ];
      for (const [body, message] of refusals) {
        const reply = await create(body);
        expect(reply.status, JSON.stringify(body)).toBe(400);
        expect(reply.body.error.code).toBe('INVALID_REQUEST');
        expect(reply.body.error.message).toMatch(message);
      }
      // Webhook and feed URLs go through the SSRF guard, as job webhooks do.
      for (const body of [
        { channel: WATCHED_CHANNEL, intervalSeconds: 3600, webhookUrl: 'http://127.0.0.1:9/hook' },
        { feed: 'http://169.254.169.254/latest/feed', intervalSeconds: 3600 },
      ]) {
        const reply = await create(body);
        expect(reply.status).toBe(400);
        expect(reply.body.error.code).toBe('URL_NOT_ALLOWED');
      }
      expect((await strict.request('GET', '/v1/watches', { apiKey: key })).body.watches).toEqual([]);

      // Watches per key by plan: Free has one.
      const first = await create({ channel: WATCHED_CHANNEL, intervalSeconds: 3600 });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ status: 'active', source: { kind: 'channel', value: WATCHED_CHANNEL }, intervalSeconds: 3600, itemsPerCheck: 5 });
      const second = await create({ search: 'creative commons', intervalSeconds: 3600 });
      expect(second.status).toBe(400);
      expect(second.body.error.message).toMatch(/the most the Free plan allows \(1\)/);

      // Reading: unknown ids are 404, a bad cursor 400; deleting frees the slot.
      expect((await strict.request('GET', '/v1/watches/wch_nope/events', { apiKey: key })).status).toBe(404);
      expect((await strict.request('GET', `/v1/watches/${first.body.watchId}/events?cursor=abc`, { apiKey: key })).status).toBe(400);
      const other = await strict.createKey('Pro');
      expect((await strict.request('GET', `/v1/watches/${first.body.watchId}/events`, { apiKey: other })).status).toBe(404);
      expect((await strict.request('DELETE', `/v1/watches/${first.body.watchId}`, { apiKey: other })).status).toBe(404);
      expect((await strict.request('DELETE', `/v1/watches/${first.body.watchId}`, { apiKey: key })).body).toEqual({ watchId: first.body.watchId, deleted: true });
      expect((await strict.request('GET', '/v1/watches', { apiKey: key })).body.watches).toEqual([]);
      expect((await create({ search: 'creative commons', intervalSeconds: 3600 })).status).toBe(201);
      expect(await credits(key, strict)).toBe(10);
    } finally {
      await strict.close();
    }
  }, 60_000);
});

describe('a watch on a replayed channel (embedded store)', () => {
  it('records the baseline, then delivers each of two new uploads once, signed, charged 1 credit each; a restart delivers nothing again', async () => {
    // Where the scenario was, should it fail (a timeout says nothing of where it waited).
    let step = 'creating the watch';
    let watchId = '';
    onTestFailed(async () => {
      const record = watchId ? await server.app.services.store.get<WatchRecord>(watchKey(watchId)).catch(() => undefined) : undefined;
      console.error(`[watches] the scenario stopped while ${step}; the watch's record: ${JSON.stringify(record)}; now ${Date.now()}`);
    });
    const key = await server.createKey('Pro', { credits: 50 });
    const created = await server.request('POST', '/v1/watches', { apiKey: key, body: { channel: WATCHED_CHANNEL, webhookUrl: receiver.url('/channel'), intervalSeconds: 1 } });
    expect(created.status).toBe(201);
    watchId = created.body.watchId as string;
    step = 'waiting for the baseline webhook';
    const baseline = await receiver.waitFor((d) => d.path === '/channel' && d.body.type === 'watch.baseline');
    expect(baseline.body).toMatchObject({ watchId, seq: 1, baselineItems: 50 });
    expect(baseline.signed).toBe(true);
    // The back catalogue is not delivered: nothing charged.
    step = 'waiting for a check after the baseline';
    await checks(server, watchId, 1);
    expect(await credits(key)).toBe(50);

    const gained = channel.reveal(2);
    step = 'waiting for the two uploads';
    const uploads = await Promise.all(gained.map((id) => receiver.waitFor((d) => d.path === '/channel' && d.body.item?.id === id)));
    for (const upload of uploads) {
      expect(upload.signed).toBe(true);
      expect(upload.event).toBe('watch.upload');
      expect(upload.body).toMatchObject({ watchId, type: 'watch.upload', creditsUsed: 1, transcript: { lang: 'en', content: expect.any(Array) } });
      expect(upload.delivery).toBe(`dlv_${upload.body.eventId}`);
    }
    // Oldest first.
    expect(uploads.map((u) => u.body.seq)).toEqual([2, 3]);
    expect(await credits(key)).toBe(48);

    // More checks find nothing new.
    step = 'waiting for two more checks';
    await checks(server, watchId, 2);
    const mine = () => receiver.received.filter((d) => d.path === '/channel');
    expect(mine()).toHaveLength(3);
    const events = await allEvents(server, key, watchId);
    expect(events.map((e) => [e.type, e.item?.id ?? null])).toEqual([['watch.baseline', null], ['watch.upload', gained[0]], ['watch.upload', gained[1]]]);
    const listed = (await server.request('GET', '/v1/watches', { apiKey: key })).body.watches;
    expect(listed).toEqual([expect.objectContaining({ watchId, status: 'active', events: 3 })]);

    // Over MCP: the same events (read through watch_events), and a bound refused as an error result, free.
    step = 'reading the events over MCP';
    const client = await connectMcp(server.baseUrl, key);
    try {
      const read = (await client.callTool({ name: 'watch_events', arguments: { watchId, limit: 50 } })) as any;
      expect(read.isError).toBeFalsy();
      expect(read.structuredContent.events.map((e: any) => e.item?.id ?? e.type)).toEqual(['watch.baseline', ...gained]);
      const refused = await client.callTool({ name: 'watch_create', arguments: { channel: WATCHED_CHANNEL, itemsPerCheck: 11 } });
      expect(refused.isError).toBe(true);
      expect(errorEnvelope(refused).error.code).toBe('INVALID_REQUEST');
    } finally {
      await client.close();
    }
    expect(await credits(key)).toBe(48);

    // transcript_search over the watch: the uploads' transcripts were kept when the watch made them, so
    // searching them fetches and charges nothing; another key's search of this watch is a 404.
    const said = (uploads[0]!.body.transcript.content as Array<{ text: string }>).map((segment) => segment.text).join(' ');
    const word = said.split(/[^A-Za-z]+/).find((candidate) => candidate.length >= 6)!;
    step = 'searching the watch';
    const search = await server.request('POST', '/v1/transcript/search', { apiKey: key, body: { watchId, query: word } });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    expect(search.body.passages.length).toBeGreaterThan(0);
    for (const passage of search.body.passages) expect(gained).toContain(passage.videoId);
    expect(await credits(key)).toBe(48);
    const stranger = await server.createKey('Pro');
    expect((await server.request('POST', '/v1/transcript/search', { apiKey: stranger, body: { watchId, query: word } })).status).toBe(404);

    // A restart on the same store: checks go on, nothing is delivered or charged again.
    step = 'restarting the server';
    await server.close();
    server = await startTestServer({ env, dataDir: server.dataDir });
    step = 'waiting for two checks after the restart';
    await checks(server, watchId, 2);
    expect(mine()).toHaveLength(3);
    expect(await credits(key)).toBe(48);
    expect((await server.request('DELETE', `/v1/watches/${watchId}`, { apiKey: key })).status).toBe(200);
  }, 120_000);
});

describe('a watch on a feed whose key runs out of credits', () => {
  it('delivers what the credits pay for, then stops with an event saying why', async () => {
    const ids = ['feedvid0001', 'feedvid0002', 'feedvid0003'];
    for (const id of ids) replay.alias(id, 'GJLlxj_dtq8');
    let entries = 1;
    const feed = http.createServer((_req, res) => {
      const shown = ids.slice(0, entries).reverse();
      res.writeHead(200, { 'content-type': 'application/atom+xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>${shown
        .map((id) => `<entry><id>yt:video:${id}</id><title>${id}</title><link rel="alternate" href="https://www.youtube.com/watch?v=${id}"/></entry>`)
        .join('')}</feed>`);
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    try {
      const key = await server.createKey('Basic', { credits: 1 });
      const feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/videos.xml`;
      const created = await server.request('POST', '/v1/watches', { apiKey: key, body: { feed: feedUrl, webhookUrl: receiver.url('/feed'), intervalSeconds: 1 } });
      expect(created.status).toBe(201);
      const watchId = created.body.watchId;
      await receiver.waitFor((d) => d.path === '/feed' && d.body.type === 'watch.baseline');
      entries = 3;
      const stopped = await receiver.waitFor((d) => d.path === '/feed' && d.body.type === 'watch.stopped');
      expect(stopped.signed).toBe(true);
      expect(stopped.body.error).toMatchObject({ code: 'CREDITS_EXHAUSTED', message: expect.stringMatching(/credits/) });
      const delivered = receiver.received.filter((d) => d.path === '/feed' && d.body.type === 'watch.upload');
      expect(delivered.map((d) => d.body.item.id)).toEqual(['yt:video:feedvid0002']);
      expect(await credits(key)).toBe(0);
      const listed = (await server.request('GET', '/v1/watches', { apiKey: key })).body.watches[0];
      expect(listed).toMatchObject({ status: 'stopped', stoppedReason: { code: 'CREDITS_EXHAUSTED' }, nextCheckAt: null });
      const events = await allEvents(server, key, watchId, 10);
      expect(events.map((e) => e.type)).toEqual(['watch.baseline', 'watch.upload', 'watch.stopped']);
    } finally {
      await new Promise<void>((resolve) => feed.close(() => resolve()));
    }
  }, 120_000);
});

describe('a check left half-done by a process that died', () => {
  it('is resumed by the next holder: the recorded upload is charged and delivered once, with its delivery id', async () => {
    const key = await server.createKey('Pro', { credits: 20 });
    const me = (await server.request('GET', '/v1/me', { apiKey: key })).body.id as string;
    const created = await server.request('POST', '/v1/watches', { apiKey: key, body: { search: 'nothing new here', webhookUrl: receiver.url('/resume'), intervalSeconds: 3600 } });
    const watchId = created.body.watchId as string;
    const { store } = server.app.services;
    // Its first check (at once, on creation) ends before the test writes what a dead holder would leave.
    while (((await store.get<WatchRecord>(watchKey(watchId)))?.checks ?? 0) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    // What a holder killed after recording an upload leaves: the event recorded, its webhook pending, the lease expired.
    const event = { eventId: `wev_${watchId.slice(4)}_1`, seq: 1, type: 'watch.upload', watchId, createdAt: new Date().toISOString(), item: { id: 'feedvid0001', url: 'https://www.youtube.com/watch?v=feedvid0001' }, transcript: { content: 'x' }, creditsUsed: 1 };
    const item: ItemRecord = { itemId: 'feedvid0001', url: event.item.url, state: 'recorded', reservation: null, failures: 0, event: event as ItemRecord['event'], webhook: { deliveryId: `dlv_${event.eventId}`, attempts: 1, state: 'pending' } };
    const ended = deliveries(server, watchId, 1);
    await store.set(itemKey(watchId, 'feedvid0001'), item);
    await store.set(`watch:${watchId}:event:1`, itemKey(watchId, 'feedvid0001'));
    await store.update<WatchRecord, void>(watchKey(watchId), (watch) => ({
      value: { ...watch!, baselined: true, eventCount: 1, pending: ['feedvid0001'], nextCheckAt: Date.now(), lease: { owner: 'dead-process', expiresAt: Date.now() - 1 } },
      result: undefined,
    }));
    const arrived = await receiver.waitFor((d) => d.path === '/resume' && d.body.type === 'watch.upload');
    expect(arrived.delivery).toBe(`dlv_${event.eventId}`);
    await ended;
    expect(receiver.received.filter((d) => d.path === '/resume' && d.body.type === 'watch.upload')).toHaveLength(1);
    const watch = (await store.get<WatchRecord>(watchKey(watchId)))!;
    expect(watch).toMatchObject({ pending: [], ownerId: me });
    expect(watch.seen).toContain(seenDigest('feedvid0001'));
    expect((await store.get<ItemRecord>(itemKey(watchId, 'feedvid0001')))!.webhook).toMatchObject({ state: 'delivered', attempts: 2 });
  }, 60_000);
});

describe('a feed whose entries carry huge guids (issue 39: watch records bounded in bytes)', () => {
  it('keeps the watch record small (seen ids as fixed-size digests) and still delivers each new entry once', async () => {
    const ids = Array.from({ length: 32 }, (_, i) => `hugevid${String(i).padStart(4, '0')}`);
    for (const id of ids) replay.alias(id, 'GJLlxj_dtq8');
    // 200 KB a guid, as in the review: 30 of them were 6 MB of seen ids in one record.
    const guid = (id: string) => `${id}:${'g'.repeat(200 * 1024)}`;
    let entries = 30;
    const feed = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${ids
        .slice(0, entries)
        .reverse()
        .map((id) => `<item><title>${id}</title><guid isPermaLink="false">${guid(id)}</guid><link>https://www.youtube.com/watch?v=${id}</link></item>`)
        .join('')}</channel></rss>`);
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    try {
      const key = await server.createKey('Pro', { credits: 20 });
      const feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/huge.xml`;
      const created = await server.request('POST', '/v1/watches', { apiKey: key, body: { feed: feedUrl, webhookUrl: receiver.url('/huge'), intervalSeconds: 1 } });
      expect(created.status).toBe(201);
      const watchId = created.body.watchId as string;
      await receiver.waitFor((d) => d.path === '/huge' && d.body.type === 'watch.baseline');
      entries = 32;
      const uploads = await Promise.all(ids.slice(30).map((id) => receiver.waitFor((d) => d.path === '/huge' && d.body.item?.url.endsWith(id))));
      expect(uploads.map((u) => u.body.type)).toEqual(['watch.upload', 'watch.upload']);
      await checks(server, watchId, 3);
      expect(receiver.received.filter((d) => d.path === '/huge' && d.body.type === 'watch.upload')).toHaveLength(2);
      expect(await credits(key)).toBe(18);
      const record = (await server.app.services.store.get<WatchRecord>(watchKey(watchId)))!;
      expect(record.seen).toHaveLength(32);
      // 32 entries of 200 KB ids: a few KB, not 6.4 MB.
      expect(JSON.stringify(record).length).toBeLessThan(16 * 1024);
      expect((await server.request('DELETE', `/v1/watches/${watchId}`, { apiKey: key })).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => feed.close(() => resolve()));
    }
  }, 120_000);
});

describe('two keys whose webhooks never answer (issue 39: fair watch slots)', () => {
  it('do not starve another key’s watch: its baseline and uploads are delivered while their deliveries hang', async () => {
    // A receiver that reads each delivery and never answers (each attempt waits for its 15 s timeout).
    const hung = http.createServer(() => undefined);
    let hanging = 0;
    hung.on('request', () => void hanging++);
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/never`;
    const ids = ['fairvid0001', 'fairvid0002', 'fairvid0003'];
    for (const id of ids) replay.alias(id, 'GJLlxj_dtq8');
    let entries = 1;
    const feed = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/atom+xml' });
      res.end(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>${ids
        .slice(0, entries)
        .reverse()
        .map((id) => `<entry><id>yt:video:${id}</id><link rel="alternate" href="https://www.youtube.com/watch?v=${id}"/></entry>`)
        .join('')}</feed>`);
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    const feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/fair.xml`;
    try {
      // The two Free keys' watches come first in the scheduler's list; each process checks two watches at a time.
      for (const name of ['a', 'b']) {
        const attacker = await server.createKey('Free');
        const made = await server.request('POST', '/v1/watches', { apiKey: attacker, body: { feed: `${feedUrl}?${name}`, webhookUrl: hungUrl, intervalSeconds: 1 } });
        expect(made.status).toBe(201);
      }
      const victim = await server.createKey('Pro', { credits: 10 });
      const created = await server.request('POST', '/v1/watches', { apiKey: victim, body: { feed: feedUrl, webhookUrl: receiver.url('/victim'), intervalSeconds: 1 } });
      expect(created.status).toBe(201);
      await receiver.waitFor((d) => d.path === '/victim' && d.body.type === 'watch.baseline');
      entries = 3;
      const uploads = await Promise.all(ids.slice(1).map((id) => receiver.waitFor((d) => d.path === '/victim' && d.body.item?.id === `yt:video:${id}`)));
      expect(uploads.map((u) => u.body.type)).toEqual(['watch.upload', 'watch.upload']);
      // Meanwhile the two keys' deliveries were made and never answered.
      expect(hanging).toBeGreaterThanOrEqual(2);
      expect(await credits(victim)).toBe(8);
    } finally {
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
      await new Promise<void>((resolve) => feed.close(() => resolve()));
    }
  }, 60_000);
});
