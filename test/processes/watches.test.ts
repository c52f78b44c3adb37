/**
 * Watches across real processes (issue 30, part 4), on the embedded store shared by two `serve`
 * processes and on one Redis shared by two: a watch on a replayed channel that gains two uploads
 * between checks delivers each transcript exactly once by signed webhook and in watch_events,
 * charged once, even though the process holding the watch's lease is killed with kill -9 in the
 * middle of transcribing the second; a key left at zero credits gets its watch stopped with an
 * event saying why. The holder is read from the watch's lease in the store. Every wait is for an
 * event (a webhook, a log line, a held request), not a clock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callApi, createKeyWithCli, hasRedis, startGleaner, startRedis, type GleanerProcess } from '../support/processes.js';
import { startYoutubeReplay } from '../support/youtube-replay.js';
import { growingChannel, startWebhookReceiver, WATCHED_CHANNEL } from '../support/watch-fixtures.js';
import { openStore } from '../../src/store/store.js';
import { watchKey, type WatchRecord } from '../../src/watches/record.js';

const SECRET = 'watch-processes-secret-0123456789';

/** The time (epoch ms) of the last log line of `proc` matching `test`, or -1. */
function lastLogTime(proc: GleanerProcess, test: (entry: any) => boolean): number {
  let last = -1;
  for (const line of proc.log().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (test(entry)) last = Math.max(last, entry.time);
    } catch {
      /* a partial line */
    }
  }
  return last;
}

const stores: Array<{ name: string; redis: boolean }> = [
  { name: 'the embedded store (SQLite) shared by two serve processes', redis: false },
  { name: 'one Redis shared by two serve processes', redis: true },
];

describe.each(stores)('watches on $name', ({ redis: onRedis }) => {
  const stops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  it.skipIf(onRedis && !hasRedis())('deliver each new upload once, signed and charged once, across a kill -9 of the lease holder; a key at zero credits is stopped, saying why', async () => {
    const replay = await startYoutubeReplay();
    stops.push(() => replay.close());
    const channel = growingChannel(replay, 2);
    const receiver = await startWebhookReceiver(SECRET);
    stops.push(() => receiver.close());
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-watch-processes-'));
    const env: Record<string, string> = {
      GLEANER_DATA_DIR: dataDir,
      GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}`,
      GLEANER_ALLOW_PRIVATE_URLS: 'true',
      GLEANER_WEBHOOK_SECRET: SECRET,
      // The documented test knob: checks every second; a dead holder's lease expires in 2 s.
      GLEANER_WATCH_MIN_INTERVAL_SECONDS: '1',
      GLEANER_JOB_LEASE_SECONDS: '2',
    };
    if (onRedis) {
      const redis = await startRedis();
      stops.push(() => redis.stop());
      env.GLEANER_STORE_URL = redis.url;
    }
    const key = await createKeyWithCli(env, 'Pro', 50);
    const poorKey = await createKeyWithCli(env, 'Pro', 1);
    const procs: GleanerProcess[] = [];
    for (let i = 0; i < 2; i++) {
      const proc = await startGleaner(['serve', '--port', '0'], env);
      stops.push(() => proc.stop());
      procs.push(proc);
    }
    const [a, b] = procs;

    const watch = await callApi(a.url!, key, 'POST', '/v1/watches', { channel: WATCHED_CHANNEL, webhookUrl: receiver.url('/rich'), intervalSeconds: 1 });
    expect(watch.status).toBe(201);
    const poor = await callApi(b.url!, poorKey, 'POST', '/v1/watches', { channel: WATCHED_CHANNEL, webhookUrl: receiver.url('/poor'), intervalSeconds: 1 });
    expect(poor.status).toBe(201);
    const watchId = watch.body.watchId as string;

    // 1. The first check records the baseline: the back catalogue is not delivered.
    await receiver.waitFor((d) => d.path === '/rich' && d.body.type === 'watch.baseline');
    await receiver.waitFor((d) => d.path === '/poor' && d.body.type === 'watch.baseline');

    // 2. The channel gains an upload: both watches deliver it; the poor key is then at zero and its watch stops.
    const [first] = channel.reveal(1);
    await receiver.waitFor((d) => d.path === '/rich' && d.body.item?.id === first);
    await receiver.waitFor((d) => d.path === '/poor' && d.body.item?.id === first);
    const stopped = await receiver.waitFor((d) => d.path === '/poor' && d.body.type === 'watch.stopped');
    expect(stopped.body.error).toMatchObject({ code: 'CREDITS_EXHAUSTED', message: expect.stringMatching(/no credits left/) });
    const poorListed = await callApi(a.url!, poorKey, 'GET', '/v1/watches');
    expect(poorListed.body.watches[0]).toMatchObject({ status: 'stopped', stoppedReason: { code: 'CREDITS_EXHAUSTED' } });

    // 3. A second upload; its transcript request is held, so the process checking the watch is caught
    //    mid-transcription (its credit reserved), and killed with kill -9.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let caught!: () => void;
    const caughtMidway = new Promise<void>((resolve) => (caught = resolve));
    const [second] = channel.hidden();
    replay.hold = (request) => {
      if (request.key !== `player videoId=${second}`) return undefined;
      caught();
      return released;
    };
    channel.reveal(1);
    await caughtMidway;
    // The lease holder, read from the shared store: its owner id is host:pid:nonce.
    const store = await openStore({ dataDir, storeUrl: env.GLEANER_STORE_URL });
    const lease = (await store.get<WatchRecord>(watchKey(watchId)))?.lease;
    await store.close();
    const holder = procs.find((proc) => lease?.owner.split(':')[1] === String(proc.child.pid))!;
    expect(holder).toBeDefined();
    const survivor = holder === a ? b : a;
    await holder.stop('SIGKILL');
    replay.hold = undefined;
    release();

    // 4. The survivor takes the check over once the lease expires and delivers the second upload.
    await receiver.waitFor((d) => d.path === '/rich' && d.body.item?.id === second);
    // Delivered by the survivor, not by the killed holder, which was caught before recording it.
    const delivered = (proc: GleanerProcess) => lastLogTime(proc, (entry) => entry.msg === 'watch event delivered' && entry.item === second && entry.watchId === watchId);
    expect(delivered(holder)).toBe(-1);
    await survivor.waitForLog(new RegExp(`"item":"${second}"[^\\n]*"msg":"watch event delivered"`));
    expect(delivered(survivor)).toBeGreaterThan(0);
    // A process started afterwards checks too (a restart): a few more checks deliver nothing again.
    const third = await startGleaner(['serve', '--port', '0'], env);
    stops.push(() => third.stop());
    const checksNow = (await callApi(survivor.url!, key, 'GET', '/v1/watches')).body.watches[0].checks as number;
    while ((await callApi(third.url!, key, 'GET', '/v1/watches')).body.watches[0].checks < checksNow + 3) await new Promise((resolve) => setTimeout(resolve, 100));

    const rich = receiver.received.filter((d) => d.path === '/rich');
    expect(rich.every((d) => d.signed)).toBe(true);
    expect(rich.filter((d) => d.body.type === 'watch.upload').map((d) => d.body.item.id)).toEqual([first, second]);
    expect(rich.map((d) => d.body.type)).toEqual(['watch.baseline', 'watch.upload', 'watch.upload']);
    const events = await callApi(third.url!, key, 'GET', `/v1/watches/${watchId}/events?limit=50`);
    expect(events.body.events.map((e: any) => [e.type, e.item?.id ?? null])).toEqual([['watch.baseline', null], ['watch.upload', first], ['watch.upload', second]]);
    expect(events.body.events[2].transcript.content.length).toBeGreaterThan(0);
    // Charged per transcript, once: two uploads, one credit each; the poor key paid its one.
    expect((await callApi(third.url!, key, 'GET', '/v1/me')).body.credits).toBe(48);
    expect((await callApi(third.url!, poorKey, 'GET', '/v1/me')).body.credits).toBe(0);
    expect(receiver.received.filter((d) => d.path === '/poor').map((d) => d.body.type)).toEqual(['watch.baseline', 'watch.upload', 'watch.stopped']);
  }, 300_000);
});
