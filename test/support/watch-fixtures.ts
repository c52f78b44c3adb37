/**
 * What watch tests share: a replayed YouTube channel that gains uploads when the test says so, and
 * a webhook receiver that checks each delivery's signature and lets a test await arrivals.
 *
 * The channel is UCTwECeGqMZee77BjdoYtI2Q (Creative Commons), recorded in
 * test/fixtures/youtube/newpipe/youtubechanneltabextractor/videos (source: test/fixtures/youtube/SOURCE.md):
 * its videos tab is served with its newest `hidden` uploads left out, so revealing them is the
 * channel gaining uploads between checks. Their player replies are the recorded GJLlxj_dtq8 one.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { FIXTURES, type YoutubeReplay } from './youtube-replay.js';

export const WATCHED_CHANNEL = 'UCTwECeGqMZee77BjdoYtI2Q';
const VIDEOS_PAGE = path.join(FIXTURES, 'newpipe', 'youtubechanneltabextractor', 'videos', 'generated_mock_3.json');

/* eslint-disable @typescript-eslint/no-explicit-any */
function gridOf(page: any): any[] {
  const tab = page.contents.twoColumnBrowseResultsRenderer.tabs.find((t: any) => t.tabRenderer?.selected);
  return tab.tabRenderer.content.richGridRenderer.contents;
}

export interface GrowingChannel {
  /** The uploads still hidden, newest first. */
  hidden(): string[];
  /** The channel gains its next `count` uploads (oldest of the hidden first). */
  reveal(count: number): string[];
}

/** Serves the channel's videos tab with its newest `initiallyHidden` uploads left out, until revealed. */
export function growingChannel(replay: YoutubeReplay, initiallyHidden: number): GrowingChannel {
  const recorded = JSON.parse(JSON.parse(fs.readFileSync(VIDEOS_PAGE, 'utf8')).response.responseBody);
  const found = gridOf(recorded)
    .slice(0, initiallyHidden)
    .map((item: any) => JSON.stringify(item).match(/"videoId":"([\w-]{11})"/)?.[1] ?? JSON.stringify(item).match(/"contentId":"([\w-]{11})"/)?.[1]);
  if (found.some((id: string | undefined) => !id)) throw new Error('a recorded upload without a video id');
  const newest = found as string[];
  for (const id of newest) replay.alias(id, 'GJLlxj_dtq8');
  let hiddenCount = initiallyHidden;
  const previous = replay.intercept;
  replay.intercept = (request) => {
    if (request.key.startsWith(`browse browseId=${WATCHED_CHANNEL} `)) {
      const page = structuredClone(recorded);
      const grid = gridOf(page);
      grid.splice(0, hiddenCount);
      return { body: JSON.stringify(page) };
    }
    return previous?.(request);
  };
  return {
    hidden: () => newest.slice(0, hiddenCount),
    reveal(count) {
      const shown = newest.slice(hiddenCount - count, hiddenCount).reverse();
      hiddenCount -= count;
      return shown;
    },
  };
}

export interface Delivery {
  path: string;
  delivery: string;
  event: string;
  body: any;
  /** The signature matched the secret and the timestamp it was sent with. */
  signed: boolean;
}

export interface WebhookReceiver {
  url(pathname: string): string;
  received: Delivery[];
  /** Resolves once a delivery matching `test` has arrived (already or later). */
  waitFor(test: (delivery: Delivery) => boolean): Promise<Delivery>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const received: Delivery[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const expected = `sha256=${createHmac('sha256', secret).update(`${req.headers['x-gleaner-timestamp']}.${raw}`).digest('hex')}`;
      const given = String(req.headers['x-gleaner-signature'] ?? '');
      const signed = given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
      received.push({ path: req.url ?? '', delivery: String(req.headers['x-gleaner-delivery']), event: String(req.headers['x-gleaner-event']), body: JSON.parse(raw), signed });
      res.end('ok');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (pathname) => `${origin}${pathname}`,
    received,
    async waitFor(test) {
      for (;;) {
        const found = received.find(test);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
