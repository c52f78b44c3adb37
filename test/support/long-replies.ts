/**
 * Replies longer than any recording, built from recordings, for the MCP paging tests.
 *
 * The long page: the real Wikipedia article of test/fixtures/web/wikipedia (Readability's main
 * content, expected.html) served four times over in one article, about 230,000 characters of
 * markdown. The 30-minute transcript: the real json3 caption body of test/fixtures/youtube/timedtext-json3
 * (CVMO61kLAM8, 88 cues over 5.4 minutes) repeated with shifted times until it covers 30 minutes,
 * served for LONG_VIDEO's caption URLs by the YouTube replay.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { REAL_PAGES_DIR } from './fixture-site.js';
import { FIXTURES } from './youtube-replay.js';

/** The video whose captions the replay answers with the 30-minute body. */
export const LONG_VIDEO = 'GJLlxj_dtq8';
export const THIRTY_MINUTES_MS = 30 * 60_000;

/** The recorded json3 cues, repeated one after another until they reach 30 minutes. */
export function thirtyMinuteCaptions(): string {
  const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'timedtext-json3', 'bilingualtube_timedtext_json3_CVMO61kLAM8_2026-01.json'), 'utf8')) as {
    events: Array<{ tStartMs: number; dDurationMs: number }>;
  };
  const cues = recorded.events.filter((event) => 'segs' in event);
  const period = Math.max(...cues.map((cue) => cue.tStartMs + cue.dDurationMs));
  const events = [];
  for (let shift = 0; shift < THIRTY_MINUTES_MS; shift += period) {
    for (const cue of cues) if (cue.tStartMs + shift < THIRTY_MINUTES_MS) events.push({ ...cue, tStartMs: cue.tStartMs + shift });
  }
  return JSON.stringify({ ...recorded, events });
}

/** One page holding the real article four times over (or `copies` times: each is about 57,000 characters). */
export function longArticle(copies = 4): string {
  const article = fs.readFileSync(path.join(REAL_PAGES_DIR, 'wikipedia', 'expected.html'), 'utf8');
  const parts = Array.from({ length: copies }, (_, i) => `<section><h2>Part ${i + 1}</h2>${article}</section>`).join('\n');
  const title = copies === 4 ? 'four' : String(copies);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mozilla, ${title} times over</title></head><body><article>${parts}</article></body></html>`;
}

/** A loopback site answering every path with the long article. */
export async function startLongPageSite(html = longArticle()): Promise<{ url: string; close: () => Promise<void> }> {
  const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/mozilla`,
    close: async () => {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    },
  };
}
