/**
 * transcript_search over the YouTube replay: the recorded 150-video playlist (its first 30 videos), each
 * video answered with the recorded player reply of GJLlxj_dtq8 made its own (id and title), and a
 * caption body of this test's own per video: 30 minutes of lines, where one phrase is said once, in
 * video 17 at 12:34, and its words are said apart in many other videos. Over REST and MCP; credits read
 * through /v1/me.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { FIXTURES, startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';

const PLAYLIST = 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr';
const PHRASE = 'the lighthouse keeper kept a ledger of storms';
const FILLER = [
  'so today we are going to look at how the whole system fits together',
  'and that is really the part that most people tend to skip over',
  'if you remember from last time we talked about the basic idea',
  'let me show you what happens when we change this one setting',
  'the numbers here are a little surprising at first glance',
  'a keeper of records would tell you the same thing about it',
  'there was a storm of questions after the first version came out',
  'we will come back to the lighthouse example in a later episode',
  'a ledger is just a list of entries written down in order',
  'now this is where things start to get interesting for us',
];

let server: TestServer;
let replay: YoutubeReplay;
let client: Client;
let ids: string[];

/** Video n (1-based) of the playlist: a line every 4 s for 30 minutes; video 17 says the phrase at 12:34. */
function captions(n: number): string {
  const events = Array.from({ length: 450 }, (_, i) => ({ tStartMs: i * 4000, dDurationMs: 4000, segs: [{ utf8: FILLER[(i * 7 + n) % FILLER.length] }] }));
  if (n === 17) events.splice(189, 0, { tStartMs: 754_000, dDurationMs: 2000, segs: [{ utf8: `and ${PHRASE} for forty years` }] });
  return JSON.stringify({ events });
}

const credits = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

/** A search on REST: answered at once, or a job followed to its end. */
async function search(key: string, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/transcript/search', { apiKey: key, body });
  if (reply.status !== 202) return reply;
  const me = (await server.request('GET', '/v1/me', { apiKey: key })).body as { id: string };
  await server.app.services.jobs.waitFor(reply.body.jobId, me.id, 120_000);
  const job = await server.request('GET', `/v1/jobs/${reply.body.jobId}`, { apiKey: key });
  return { ...job, status: 202, body: job.body.result, job: job.body };
}

beforeAll(async () => {
  replay = await startYoutubeReplay();
  const player = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'transcript-api', 'youtube.innertube.json.static'), 'utf8'));
  server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}`, GLEANER_KEEP_TRANSCRIPTS_DAYS: '30' } });
  const listed = await server.request('GET', `/v1/youtube/playlist/videos?id=${PLAYLIST}&limit=30`, { apiKey: await server.createKey('Pro') });
  ids = listed.body.videoIds;
  expect(ids).toHaveLength(30);
  // Each video's player reply is the recorded one made its own: its id in every URL, its own title and length.
  const players = new Map(
    ids.map((id, i) => {
      const own = JSON.parse(JSON.stringify(player).replaceAll('GJLlxj_dtq8', id));
      own.videoDetails.title = `Talk ${i + 1}`;
      own.videoDetails.lengthSeconds = '1800';
      return [`player videoId=${id}`, JSON.stringify(own)];
    }),
  );
  replay.intercept = (request) => (players.has(request.key) ? { body: players.get(request.key)! } : undefined);
  ids.forEach((id, i) => replay.captionBodies.set(id, captions(i + 1)));
  client = await connectMcp(server.baseUrl, await server.createKey('Pro'));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  await replay?.close();
});

describe('transcript_search', () => {
  it('finds a phrase said once in video 17 at 12:34 as the top passage, linked at t=754; a second search charges nothing', async () => {
    const key = await server.createKey('Free', { credits: 100 });
    const first = await search(key, { playlistId: PLAYLIST, limit: 30, query: `"${PHRASE}"` });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body.videos).toEqual({ searched: 30, kept: 0, fetched: 30 });
    expect(first.body.creditsUsed).toBe(30);
    expect(await credits(key)).toBe(70);
    const top = first.body.passages[0];
    expect(top).toMatchObject({ videoId: ids[16], title: 'Talk 17', start: 754, time: '12:34', platform: 'youtube' });
    expect(top.link).toBe(`https://www.youtube.com/watch?v=${ids[16]}&t=754`);
    expect(top.text).toContain(PHRASE);
    // A few lines around the hit: two before, the hit, two after.
    expect(top.text.split('\n')).toHaveLength(5);
    // The phrase is said once: no other passage has it.
    expect(first.body.passages).toHaveLength(1);

    // Kept: the same words unquoted (ranked by BM25 over every video) answer at once, free, the same passage first.
    const second = await search(key, { playlistId: PLAYLIST, limit: 30, query: 'lighthouse keeper ledger storms' });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.headers.get('x-credits-used')).toBe('0');
    expect(second.body.videos).toEqual({ searched: 30, kept: 30, fetched: 0 });
    expect(second.body.creditsUsed).toBe(0);
    expect(second.body.passages[0].link).toBe(`https://www.youtube.com/watch?v=${ids[16]}&t=754`);
    expect(second.body.passages.length).toBeGreaterThan(1);
    expect(await credits(key)).toBe(70);
  }, 180_000);

  it('stems and takes prefixes: "storm" finds "storms", "lightho*" finds "lighthouse"', async () => {
    const key = await server.createKey('Free', { credits: 100 });
    const urls = [ids[16], ids[0]].map((id) => `https://youtu.be/${id}`);
    const stemmed = await search(key, { urls, query: 'keeper storm forty' });
    expect(stemmed.status).toBe(200);
    expect(stemmed.body.passages[0].start).toBe(754);
    const prefixed = await search(key, { urls, query: 'lightho* "forty years"' });
    expect(prefixed.body.passages.map((p: { start: number }) => p.start)).toEqual([754]);
  });

  it('refuses bad input with a clear 400, charged nothing', async () => {
    const key = await server.createKey('Free', { credits: 5 });
    for (const body of [
      { query: 'x' },
      { query: '', urls: ['https://youtu.be/kX3nB4PpJko'] },
      { query: 'x'.repeat(201), urls: ['https://youtu.be/kX3nB4PpJko'] },
      { query: 'x', urls: Array.from({ length: 101 }, () => 'https://youtu.be/kX3nB4PpJko') },
      { query: 'x', playlistId: PLAYLIST, channelId: 'UCTwECeGqMZee77BjdoYtI2Q' },
      { query: 'x', playlistId: PLAYLIST, limit: 501 },
    ]) {
      const reply = await server.request('POST', '/v1/transcript/search', { apiKey: key, body });
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.body.error.code).toBe('INVALID_REQUEST');
    }
    expect(await credits(key)).toBe(5);
  });

  it('over MCP: passages a model reads (time, title, link, the lines), paged like other long replies', async () => {
    const result = await client.callTool({ name: 'transcript_search', arguments: { playlistId: PLAYLIST, limit: 30, query: 'lighthouse keeper ledger storms', maxResults: 20 } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const [text, footer] = (result.content as Array<{ text: string }>).map((block) => block.text);
    expect(text).toMatch(/^Search "lighthouse keeper ledger storms" in 30 videos \(30 kept, 0 fetched, 0 credits\): \d+ passages\n\n/);
    expect(text).toContain(`1. [12:34] Talk 17 — https://www.youtube.com/watch?v=${ids[16]}&t=754\n`);
    expect(text).toContain(`   > and ${PHRASE} for forty years\n`);
    expect(footer).toBe('[Page 1 of 1: the whole reply.]');
    const paged = await client.callTool({ name: 'transcript_search', arguments: { playlistId: PLAYLIST, limit: 30, query: 'lighthouse keeper ledger storms', maxResults: 20, maxChars: 1_000 } });
    const structured = paged.structuredContent as { nextCursor?: string; passages: unknown[] };
    expect(structured.nextCursor).toBeDefined();
    const next = await client.callTool({ name: 'transcript_search', arguments: { cursor: structured.nextCursor } });
    expect((next.content as Array<{ text: string }>)[0].text).toMatch(/^Search /);
    const bad = await client.callTool({ name: 'transcript_search', arguments: { query: 'x' } });
    expect(bad.isError).toBe(true);
    expect(errorEnvelope(bad).error.code).toBe('INVALID_REQUEST');
  }, 60_000);
});
