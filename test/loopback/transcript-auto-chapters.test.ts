/**
 * Auto-chapters on transcripts, over the YouTube replay: cV5TjZCJkuA (Unbox Therapy, recorded January 2026) has no
 * timestamps in its description, and its watch reply's player bar has seven chapter markers. Its transcript carries
 * them over REST and MCP, from one watch request; a video whose description has chapters (ud9d5cMDP_0) makes none;
 * a watch request that fails (429, a bot-check page) still gives the transcript, without chapters, charged as usual.
 * The caption body is the replay's one recorded body, served for every video.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, pageData } from '../support/mcp.js';
import { FIXTURES, startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';

const AUTO = 'cV5TjZCJkuA';
/** The markers of the recorded watch reply, in seconds. */
const MARKERS = [
  { title: 'Intro', start: 0 },
  { title: 'Unboxing', start: 30 },
  { title: 'Design', start: 70 },
  { title: 'Facial Recognition', start: 170 },
  { title: 'Other Sensors', start: 210 },
  { title: 'Selfie Test', start: 275 },
  { title: 'Display', start: 333 },
];
/** Other ids for the same recording, so that each test reads a transcript no earlier test kept. */
const OVER_MCP = 'autoChapMcp';
const REFUSED_429 = 'autoChap429';
const BOT_CHECK = 'autoChapBot';
const READ = 'autoChapRed';
const recordedNext = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, 'newpipe/stream/youtubestreamextractordefault/descriptionunboxing/generated_mock_8.json'), 'utf8'),
) as { response: { responseBody: string } };

let server: TestServer;
let replay: YoutubeReplay;
let client: Client;
let key: string;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  for (const id of [OVER_MCP, REFUSED_429, BOT_CHECK, READ]) {
    replay.alias(id, AUTO);
    replay.add(`next videoId=${id}`, recordedNext.response.responseBody);
  }
  const tooMany = fs.readFileSync(path.join(FIXTURES, 'transcript-api/youtube_too_many_requests.html.static'), 'utf8');
  replay.intercept = (request) => {
    if (request.path !== '/youtubei/v1/next') return undefined;
    if (request.key === `next videoId=${REFUSED_429}`) return { status: 429, type: 'text/html; charset=utf-8', body: tooMany };
    // The "unusual traffic" page answered with 200 where JSON was asked for: what a bot check looks like.
    if (request.key === `next videoId=${BOT_CHECK}`) return { status: 200, type: 'text/html; charset=utf-8', body: tooMany };
    return undefined;
  };
  server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}` } });
  key = await server.createKey('Pro', { credits: 100 });
  client = await connectMcp(server.baseUrl, key);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  await replay?.close();
});

const watchRequests = (videoId: string) => replay.requests.filter((r) => r.key === `next videoId=${videoId}`).length;
const transcript = (videoId: string) => server.request('GET', `/v1/youtube/transcript?video_id=${videoId}`, { apiKey: key });

describe('chapters from the player markers on transcripts', () => {
  it('REST: a video whose chapters are only markers has them on its transcript, from one watch request', async () => {
    const reply = await transcript(AUTO);
    expect(reply.status).toBe(200);
    expect(reply.body.chapters).toEqual(MARKERS);
    expect(reply.body.content.length).toBeGreaterThan(0);
    expect(watchRequests(AUTO)).toBe(1);
  });

  it('MCP: the transcript tool carries the same chapters', async () => {
    const result = await client.callTool({ name: 'youtube_transcript', arguments: { url: `https://www.youtube.com/watch?v=${OVER_MCP}` } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((pageData(result) as { chapters?: unknown }).chapters).toEqual(MARKERS);
    expect(watchRequests(OVER_MCP)).toBe(1);
  });

  it('read, which loads the watch reply for the video\'s facts, gives the transcript its chapters from that same reply', async () => {
    const reply = await server.request('GET', `/v1/read?url=${encodeURIComponent(`https://www.youtube.com/watch?v=${READ}`)}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.result.chapters).toEqual(MARKERS);
    expect(watchRequests(READ)).toBe(1);
  });

  it('a video whose description has chapters makes no watch request', async () => {
    const reply = await transcript('ud9d5cMDP_0');
    expect(reply.status).toBe(200);
    expect(reply.body.chapters).toHaveLength(7);
    expect(watchRequests('ud9d5cMDP_0')).toBe(0);
  });

  it('a watch request refused (429) or answered with a bot-check page gives the transcript without chapters, charged as usual', async () => {
    for (const id of [REFUSED_429, BOT_CHECK]) {
      const reply = await transcript(id);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.content.length).toBeGreaterThan(0);
      expect(reply.body.chapters).toBeUndefined();
      expect(reply.headers.get('x-credits-used')).toBe('1');
      expect(watchRequests(id)).toBeGreaterThanOrEqual(1);
    }
  });
});
