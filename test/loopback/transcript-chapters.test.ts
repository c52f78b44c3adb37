/**
 * MCP `from`/`to` naming a chapter, over the YouTube replay: ud9d5cMDP_0 (maiLab, recorded 2022) has seven
 * chapters in its description; its captions here are this test's own, a line every 30 s over its 16:50.
 * A chapter by number or title gives exactly its lines; a chapter the video lacks is a 400 charged nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope, pageData } from '../support/mcp.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';

const VIDEO = 'https://www.youtube.com/watch?v=ud9d5cMDP_0';
const events = Array.from({ length: 34 }, (_, i) => ({ tStartMs: i * 30_000, dDurationMs: 30_000, segs: [{ utf8: `line ${i}` }] }));

let server: TestServer;
let replay: YoutubeReplay;
let client: Client;
let key: string;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  replay.captionBodies.set('ud9d5cMDP_0', JSON.stringify({ events }));
  server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}` } });
  key = await server.createKey('Pro', { credits: 100 });
  client = await connectMcp(server.baseUrl, key);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  await replay?.close();
});

const credits = async () => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

async function call(args: Record<string, unknown>) {
  const result = await client.callTool({ name: 'youtube_transcript', arguments: { url: VIDEO, ...args } });
  const blocks = (result.content as Array<{ text: string }>).map((block) => block.text);
  return { result, text: blocks[0], footer: blocks[1], structured: pageData(result) as { content: Array<{ text: string; offset: number }>; chapters: Array<{ title: string; start: number }> } };
}

describe('from/to naming a chapter', () => {
  it('"chapter 3", its number and its title give exactly that chapter\'s lines', async () => {
    const whole = await call({});
    const chapters = whole.structured.chapters;
    expect(chapters).toHaveLength(7);
    const [third, fourth] = [chapters[2], chapters[3]];
    const expected = events.filter((e) => e.tStartMs >= third.start * 1000 && e.tStartMs < fourth.start * 1000).map((e) => e.segs[0].utf8);
    expect(expected.length).toBeGreaterThan(1);
    for (const from of ['chapter 3', '3', third.title, third.title.toUpperCase()]) {
      const part = await call({ from });
      expect(part.result.isError, JSON.stringify(part.result.content)).toBeFalsy();
      expect(part.structured.content.map((s) => s.text)).toEqual(expected);
      expect(part.text).toContain(`## ${third.title} [`);
      expect(part.text).not.toContain(`## ${fourth.title}`);
    }
    // from a chapter to a later one: both whole.
    const span = await call({ from: 'chapter 2', to: 'chapter 3' });
    expect(span.structured.content.map((s) => s.text)).toEqual(events.filter((e) => e.tStartMs >= chapters[1].start * 1000 && e.tStartMs < fourth.start * 1000).map((e) => e.segs[0].utf8));
    // A chapter and seconds mix: from chapter 2's start to a second.
    const mixed = await call({ from: 'chapter 2', to: chapters[1].start + 31 });
    expect(mixed.structured.content.map((s) => s.text)).toEqual(events.filter((e) => e.tStartMs >= chapters[1].start * 1000 && e.tStartMs < (chapters[1].start + 31) * 1000).map((e) => e.segs[0].utf8));
    expect(mixed.structured.content).toHaveLength(1);
  });

  it('a chapter the video lacks is a clear 400, charged nothing', async () => {
    await call({});
    const before = await credits();
    for (const from of ['chapter 9', 'Nothing of the kind', '0']) {
      const { result } = await call({ from });
      expect(result.isError).toBe(true);
      const error = errorEnvelope(result).error;
      expect(error.code).toBe('INVALID_REQUEST');
      expect(error.message).toMatch(/chapters/);
    }
    const backwards = await call({ from: 'chapter 4', to: 'chapter 2' });
    expect(errorEnvelope(backwards.result).error.message).toMatch(/to must come after from/);
    expect(await credits()).toBe(before);
  });
});
