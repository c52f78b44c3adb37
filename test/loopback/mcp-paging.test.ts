/**
 * Long MCP replies in pages: a model reading the text block and a client reading structuredContent
 * both get the whole content, one page at a time through nextCursor, and the pages put together are
 * the REST reply. Over a real server on loopback, with the official SDK client. The long page and
 * the 30-minute transcript are built from recordings (test/support/long-replies.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope, pageData } from '../support/mcp.js';
import { REAL_PAGES_DIR, startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { LONG_VIDEO as VIDEO, THIRTY_MINUTES_MS, startLongPageSite, thirtyMinuteCaptions } from '../support/long-replies.js';
import { mcpInputSchema } from '../../src/surfaces/mcp/schemas.js';
import { pieces, PIECE_CHARS } from '../../src/surfaces/text/layout.js';
import { Ajv } from 'ajv';

let server: TestServer;
let replay: YoutubeReplay;
let site: { url: string; close: () => Promise<void> };
let pageUrl: string;
let key: string;
/** One session for the tests of `key`: a key holds at most 10 open sessions. */
let client: Client;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  replay.captionBodies.set(VIDEO, thirtyMinuteCaptions());
  site = await startLongPageSite();
  pageUrl = site.url;
  server = await startTestServer({
    // Every tool, those left out of the default list included: each pages, and the cursor-alone schema check covers them all.
    env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_MCP_TOOLS: 'all', GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}` },
  });
  // Mega: every page read is a request of the key's rate, and these tests read a few hundred.
  key = await server.createKey('Mega', { credits: 1_000 });
  client = await connectMcp(server.baseUrl, key);
}, 60_000);

afterAll(async () => {
  await client.close();
  await server.close();
  await replay.close();
  await site.close();
});

interface Page {
  text: string;
  structured: any;
}

const credits = async (apiKey = key) => (await server.request('GET', '/v1/me', { apiKey })).body.credits as number;

/** A paged result's text: two blocks, the page then its footer, read here as one (a blank line between). */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Page> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const parts = result.content as Array<{ type: string; text: string }>;
  expect(parts.map((part) => part.type)).toEqual(['text', 'text']);
  expect(parts[1].text).toMatch(/^\[Page \d+ of \d+[^\]]*\]$/);
  return { text: `${parts[0].text}\n\n${parts[1].text}`, structured: pageData(result) };
}

/**
 * Every page of a reply, following nextCursor from the first call to the last page with the cursor
 * alone: it carries the page size of the first call (maxChars) and, for a time range, the range.
 */
async function allPages(client: Client, name: string, args: Record<string, unknown>): Promise<Page[]> {
  const pages = [await call(client, name, args)];
  for (let cursor = pages[0].structured.nextCursor; cursor !== undefined; cursor = pages.at(-1)!.structured.nextCursor) {
    // The text block names the same cursor, so a model reading only the text can go on.
    expect(pages.at(-1)!.text).toContain(`call ${name} with cursor="${cursor}"`);
    pages.push(await call(client, name, { cursor }));
    expect(pages.length).toBeLessThan(1_000);
  }
  expect(pages.at(-1)!.text).not.toContain('cursor=');
  // "Page k of N" counts the same pages from the first call to the last.
  pages.forEach((page, i) => expect(page.text).toMatch(new RegExp(`\\[Page ${i + 1} of ${pages.length}[^\\]]*\\]$`)));
  return pages;
}

/** Drops the kept copy of the reply a cursor points into, as its 30 minutes running out would. */
async function forget(cursor: string): Promise<void> {
  const { e } = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { e: string };
  const me = await server.request('GET', '/v1/me', { apiKey: key });
  const stored = `mcp:pages:${me.body.id}:${e}`;
  expect(await server.app.services.store.get(stored)).toBeDefined();
  await server.app.services.store.delete(stored);
}

/** The text of a page without its header line(s) and its footer. */
const footerless = (text: string) => text.replace(/\n\n\[Page \d+ of \d+[^\]]*\]$/, '');

describe('web_scrape of a 230 KB page over MCP', () => {
  it('comes in pages of about 20,000 characters that put together are the REST reply, charged once', async () => {
    const rest = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(pageUrl)}`, { apiKey: key });
    expect(rest.status).toBe(200);
    expect(rest.body.content.length).toBeGreaterThan(200_000);

    const before = await credits();
    const pages = await allPages(client, 'web_scrape', { url: pageUrl });
    expect(before - (await credits())).toBe(1);

    expect(pages.length).toBeGreaterThanOrEqual(11);
    expect(pages.map((p) => p.structured.content).join('')).toBe(rest.body.content);
    expect(pages.flatMap((p) => p.structured.urls)).toEqual(rest.body.urls);
    pages.forEach((page, i) => {
      // The fields that are not paged are the reply's own, on every page.
      expect(page.structured).toMatchObject({ url: rest.body.url, title: 'Mozilla, four times over', countCharacters: rest.body.countCharacters });
      // The text block is the page as markdown under a short header, holding exactly this page's content.
      expect(page.text.startsWith(`# Mozilla, four times over\n${pageUrl}\n\n${page.structured.content}`)).toBe(true);
      // The links follow the content, one a line, on the pages whose structuredContent holds them.
      for (const url of page.structured.urls) expect(page.text).toContain(`- ${url}\n`);
      expect(page.text).toContain(`[Page ${i + 1} of ${pages.length}`);
      expect(page.structured.content.length).toBeLessThanOrEqual(20_000);
      if (i < pages.length - 2) expect(page.structured.content.length).toBeGreaterThan(18_000);
    });
  }, 180_000);

  it('never cuts a word between pages, whatever the page size', async () => {
    // Some 150 pages: a key without a rate limit.
    const client = await connectMcp(server.baseUrl, await server.createKey('Enterprise'));
    for (const maxChars of [2_000, 7_777]) {
      const pages = await allPages(client, 'web_scrape', { url: pageUrl, maxChars });
      const contents = pages.map((p) => p.structured.content as string).filter(Boolean);
      for (let i = 1; i < contents.length; i++) {
        const [end, start] = [contents[i - 1].at(-1)!, contents[i][0]];
        expect(/\s/.test(end) || /\s/.test(start), `page ${i} ends "${contents[i - 1].slice(-30)}", page ${i + 1} starts "${contents[i].slice(0, 30)}"`).toBe(true);
      }
      for (const page of pages) expect(footerless(page.text).length).toBeLessThanOrEqual(maxChars + 200);
    }
    await client.close();
  }, 180_000);
});

describe('a 30-minute YouTube transcript over MCP', () => {
  it('comes in pages of "[mm:ss] text" lines that put together are the REST segments', async () => {
    const before = await credits();
    const pages = await allPages(client, 'youtube_transcript', { video_id: VIDEO, maxChars: 8_000 });
    expect(before - (await credits())).toBe(1);

    const rest = await server.request('GET', `/v1/youtube/transcript?video_id=${VIDEO}`, { apiKey: key });
    expect(rest.status).toBe(200);
    const segments = pages.flatMap((p) => p.structured.content);
    expect(segments).toEqual(rest.body.content);
    expect(segments.at(-1).offset).toBeGreaterThan(THIRTY_MINUTES_MS - 60_000);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    // At the default page size too (a new call, charged again, then its pages).
    const byDefault = await allPages(client, 'youtube_transcript', { video_id: VIDEO });
    expect(byDefault.length).toBeGreaterThanOrEqual(2);
    expect(byDefault.flatMap((p) => p.structured.content)).toEqual(rest.body.content);
    for (const page of pages) {
      // Each structured segment is a line of the text block, in order, with its start as [mm:ss].
      const lines = page.structured.content.map((s: { offset: number; text: string }) => {
        const seconds = Math.floor(s.offset / 1000);
        return `[${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}] ${s.text}\n`;
      });
      const header = page.text.slice(0, page.text.indexOf('\n\n') + 2);
      expect(footerless(page.text)).toBe(`${header}${lines.join('')}`);
      expect(page.text.split('\n')[0]).toMatch(/^Transcript of youtube GJLlxj_dtq8 · language en · [\d.]+ min · captions$/);
    }
  }, 180_000);

  it('reads a time range (from/to in seconds) in pages, then stops at its end', async () => {
    const pages = await allPages(client, 'youtube_transcript', { video_id: VIDEO, from: 600, to: 900, maxChars: 2_000 });
    const rest = await server.request('GET', `/v1/youtube/transcript?video_id=${VIDEO}`, { apiKey: key });
    const wanted = (rest.body.content as Array<{ offset: number }>).filter((s) => s.offset >= 600_000 && s.offset < 900_000);
    expect(wanted.length).toBeGreaterThan(50);
    expect(pages.flatMap((p) => p.structured.content)).toEqual(wanted);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0].text).toContain('of the part from 10:00 to 15:00');
    const after = await call(client, 'youtube_transcript', { video_id: VIDEO, from: 3_600 });
    expect(after.structured.content).toEqual([]);
    expect(after.text).toContain('(nothing in this part)');
  });

  it('refuses from/to on a transcript without timings, before charging', async () => {
    const before = await credits();
    const result = await client.callTool({ name: 'youtube_transcript', arguments: { video_id: VIDEO, text: true, from: 10 } });
    expect(result.isError).toBe(true);
    expect(errorEnvelope(result).error.code).toBe('INVALID_REQUEST');
    expect(await credits()).toBe(before);
  });
});

describe('cursors and page sizes', () => {
  it('a bad cursor is INVALID_REQUEST and charges nothing', async () => {
    const first = await call(client, 'web_scrape', { url: pageUrl });
    const good = first.structured.nextCursor as string;
    const before = await credits();
    const otherTool = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(good, 'base64url').toString()), t: 'web_map' })).toString('base64url');
    const attempts: Array<Record<string, unknown>> = [
      { cursor: 'not a cursor' },
      { cursor: Buffer.from('{"v":1}').toString('base64url') },
      { cursor: good.slice(0, -4) },
      { cursor: otherTool },
      { cursor: good, url: `${pageUrl}?other` },
      { cursor: good, maxChars: 10 },
      { url: pageUrl, maxChars: 1_000_000 },
    ];
    for (const args of attempts) {
      const result = await client.callTool({ name: 'web_scrape', arguments: args });
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(errorEnvelope(result).error.code).toBe('INVALID_REQUEST');
    }
    expect(await credits()).toBe(before);
    // The good cursor still works, and a further page costs nothing.
    expect((await call(client, 'web_scrape', { cursor: good })).structured.content.length).toBeGreaterThan(0);
    expect(await credits()).toBe(before);
  }, 180_000);

  it('a cursor whose kept reply is gone is refused, uncharged, and says to call again', async () => {
    const { structured } = await call(client, 'web_scrape', { url: pageUrl });
    await forget(structured.nextCursor);
    const before = await credits();
    const result = await client.callTool({ name: 'web_scrape', arguments: { cursor: structured.nextCursor } });
    expect(result.isError).toBe(true);
    expect(errorEnvelope(result).error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/no longer kept .*30 minutes.*call web_scrape again without cursor/i) });
    expect(await credits()).toBe(before);
  });

  it("one key's cursor reads nothing of another key's reply", async () => {
    const { structured } = await call(client, 'web_scrape', { url: pageUrl });
    const other = await server.createKey('Pro', { credits: 10 });
    const stranger = await connectMcp(server.baseUrl, other);
    const result = await stranger.callTool({ name: 'web_scrape', arguments: { cursor: structured.nextCursor } });
    expect(result.isError).toBe(true);
    // Said as it is, and nothing of the other key's reply (whether it is still kept, its arguments).
    const { message } = errorEnvelope(result).error;
    expect(errorEnvelope(result).error.code).toBe('INVALID_REQUEST');
    expect(message).toMatch(/given to another API key and is not valid for this one/);
    expect(message).not.toMatch(/kept|mozilla|127\.0\.0\.1/i);
    expect(await credits(other)).toBe(10);
    await stranger.close();
  });

  it('a cursor alone keeps the page size of the call that began the paging (maxChars travels in the cursor)', async () => {
    const first = await call(client, 'web_scrape', { url: pageUrl, maxChars: 5_000 });
    const of = Number(/\[Page 1 of (\d+)\./.exec(first.text)![1]);
    expect(of).toBeGreaterThan(40);
    const second = await call(client, 'web_scrape', { cursor: first.structured.nextCursor });
    expect(second.text).toContain(`[Page 2 of ${of}.`);
    expect(second.structured.content.length).toBeLessThanOrEqual(5_000);
    expect(second.structured.content.length).toBeGreaterThan(4_000);
    // A maxChars given with the cursor wins, and the cursor it hands on carries it.
    const larger = await call(client, 'web_scrape', { cursor: second.structured.nextCursor, maxChars: 20_000 });
    expect(larger.structured.content.length).toBeGreaterThan(15_000);
    const after = await call(client, 'web_scrape', { cursor: larger.structured.nextCursor });
    expect(after.structured.content.length).toBeGreaterThan(15_000);
    // A client that fills every default of the schema into the cursor call (format, render, ...) pages alike.
    const filled = await call(client, 'web_scrape', { cursor: first.structured.nextCursor, format: 'markdown', onlyMainContent: true, render: 'auto' });
    expect(filled.structured).toEqual(second.structured);
    // The first call still needs its url, said in those words.
    const missing = await client.callTool({ name: 'web_scrape', arguments: { maxChars: 5_000 } });
    expect(errorEnvelope(missing).error).toEqual({ code: 'INVALID_REQUEST', message: 'url is required.' });
  }, 120_000);

  it('the listed input schema of every paged tool takes a cursor alone (no required argument), and still takes a first call', async () => {
    const { tools } = await client.listTools();
    const ajv = new Ajv({ strict: false, logger: false });
    // job_list and watch_events take a cursor of their own listing (with watch_events' watchId), not a page cursor.
    const paged = tools.filter((tool) => 'cursor' in (tool.inputSchema.properties ?? {}) && !['job_list', 'watch_events'].includes(tool.name));
    expect(paged.map((tool) => tool.name)).toEqual(expect.arrayContaining(['web_scrape', 'web_map', 'web_crawl', 'transcript', 'youtube_transcript', 'video_transcript', 'job_status', 'job_cancel']));
    for (const tool of paged) {
      expect(tool.inputSchema.required, tool.name).toBeUndefined();
      expect(ajv.validate(tool.inputSchema, { cursor: 'eyJ2IjoxfQ' }), tool.name).toBe(true);
      expect(ajv.validate(tool.inputSchema, { cursor: 'eyJ2IjoxfQ', maxChars: 5_000 }), tool.name).toBe(true);
    }
    // The zod input REST checks is unchanged: there the url is required.
    const rest = await server.request('GET', '/v1/web/scrape', { apiKey: key });
    expect(rest.status).toBe(400);
    expect(rest.body.error.message).toBe('url is required.');
  });

  it('REST stays whole: it takes no paging arguments', async () => {
    const reply = await server.request('GET', `/v1/web/scrape?url=${encodeURIComponent(pageUrl)}&maxChars=2000`, { apiKey: key });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain('maxChars');
  });

  it('GLEANER_MCP_PAGE_CHARS sets the default page size', async () => {
    const small = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_MCP_PAGE_CHARS: '5000' } });
    try {
      const client = await connectMcp(small.baseUrl, await small.createKey('Pro'));
      const pages = await allPages(client, 'web_scrape', { url: pageUrl });
      await client.close();
      expect(pages.length).toBeGreaterThan(40);
      for (const page of pages) expect(page.structured.content.length).toBeLessThanOrEqual(5_000);
    } finally {
      await small.close();
    }
  }, 180_000);

  it('adds few characters to the tool list: cursor and maxChars on paged tools, from/to on transcripts', async () => {
    const { tools } = await client.listTools();
    let added = 0;
    for (const tool of tools) {
      // What the tool would list without paging: its MCP input schema (REST aliases already left out).
      const own = mcpInputSchema(server.app.gate.operation(tool.name)!);
      added += JSON.stringify(tool.inputSchema).length - JSON.stringify(own).length;
    }
    expect(added).toBeGreaterThan(0);
    // Every tool listed (GLEANER_MCP_TOOLS=all): 2,500 until cursor and maxChars were described and bounded (issue 41).
    expect(added).toBeLessThanOrEqual(5_000);
    const scrape = tools.find((t) => t.name === 'web_scrape')!;
    expect(Object.keys(scrape.inputSchema.properties!)).toEqual(expect.arrayContaining(['cursor', 'maxChars']));
    expect(Object.keys(tools.find((t) => t.name === 'youtube_transcript')!.inputSchema.properties!)).toEqual(expect.arrayContaining(['from', 'to']));
    expect(tools.find((t) => t.name === 'account')!.inputSchema.properties).not.toHaveProperty('cursor');
  });
});

describe('a crawl job over MCP', () => {
  let crawlSite: FixtureSite;
  beforeAll(async () => {
    crawlSite = await startFixtureSite({ pages: 30 });
  });
  afterAll(() => crawlSite.close());

  it("pages the finished job's result by crawled page, splitting a long one, and job_status pages it alike", async () => {
    const pages = await allPages(client, 'web_crawl', { url: crawlSite.origin, maxPages: 30, maxChars: 2_000 });
    const jobId = pages[0].structured.jobId as string;
    const rest = await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(rest.body.status).toBe('completed');
    expect(pages.length).toBeGreaterThan(3);
    // Put back together: a crawled page split over two MCP pages shows up in both, its content in parts.
    const joined: Array<{ url: string; content: string }> = [];
    for (const page of pages) {
      expect(page.structured).toMatchObject({ jobId, status: 'completed', operation: 'web_crawl' });
      for (const crawled of page.structured.result.pages) {
        const last = joined.at(-1);
        if (last && last.url === crawled.url) last.content += crawled.content;
        else joined.push({ ...crawled });
        // The text block shows every crawled page's url and its part of the content.
        expect(page.text).toContain(crawled.content);
      }
    }
    expect(joined).toEqual(rest.body.result.pages);
    expect(pages.at(-1)!.structured.result.stats).toEqual(rest.body.result.stats);

    // Once the kept copy is gone (30 minutes), a job's pages come from its record: still free.
    await forget(pages[0].structured.nextCursor);
    const before = await credits();
    expect((await call(client, 'web_crawl', { cursor: pages[0].structured.nextCursor, maxChars: 2_000 })).structured).toEqual(pages[1].structured);
    expect(await credits()).toBe(before);

    const viaStatus = await allPages(client, 'job_status', { jobId, maxChars: 2_000 });
    expect(viaStatus.map((p) => p.structured.result.pages)).toEqual(pages.map((p) => p.structured.result.pages));
  }, 180_000);
});

describe('a transcript batch over MCP', () => {
  it('pages by video, splitting a long transcript by segment', async () => {
    const urls = [VIDEO, 'F1xioXWb8CY', 'not a video'];
    const pages = await allPages(client, 'youtube_transcript_batch', { urls, maxChars: 5_000 });
    const rest = await server.request('POST', '/v1/youtube/transcript/batch', { apiKey: key, body: { urls } });
    expect(rest.status).toBe(200);
    const joined: any[] = [];
    for (const page of pages) {
      for (const item of page.structured.results) {
        const last = joined.at(-1);
        if (last?.url === item.url) last.transcript.content.push(...item.transcript.content);
        else joined.push(structuredClone(item));
      }
    }
    // The transcript cache answers the REST call: only `cached` may differ.
    const uncached = (items: any[]) => items.map((item) => (item.transcript ? { ...item, transcript: { ...item.transcript, cached: false } } : item));
    expect(uncached(joined)).toEqual(uncached(rest.body.results));
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.at(-1)!.text).toContain(`## not a video\n${rest.body.results[2].errorCode}`);
  }, 180_000);
});

describe('the other long replies over MCP: maps, video lists, video batches, plain-text transcripts', () => {
  /** Every page's text block shows the items its structuredContent holds, and no other face is pointed at. */
  const sameFaces = (pages: Page[], items: (page: Page) => string[]) => {
    for (const page of pages) {
      expect(page.text).not.toMatch(/structuredContent/);
      for (const item of items(page)) expect(page.text).toContain(item);
    }
  };

  it('web_map pages its URLs, one a line', async () => {
    const mapSite = await startFixtureSite({ pages: 120 });
    try {
      const pages = await allPages(client, 'web_map', { url: mapSite.origin, limit: 200, maxChars: 1_000 });
      const rest = await server.request('GET', `/v1/web/map?url=${encodeURIComponent(mapSite.origin)}&limit=200`, { apiKey: key });
      expect(rest.status).toBe(200);
      expect(rest.body.urls.length).toBeGreaterThan(100);
      expect(pages.length).toBeGreaterThan(3);
      expect(pages.flatMap((p) => p.structured.urls)).toEqual(rest.body.urls);
      sameFaces(pages, (page) => page.structured.urls.map((url: string) => `${url}\n`));
    } finally {
      await mapSite.close();
    }
  }, 120_000);

  it("a channel's and a playlist's video ids come in pages of links", async () => {
    const channel = await allPages(client, 'youtube_channel_videos', { id: 'UCTwECeGqMZee77BjdoYtI2Q', type: 'video', limit: 60, maxChars: 1_000 });
    const channelRest = await server.request('GET', '/v1/youtube/channel/videos?id=UCTwECeGqMZee77BjdoYtI2Q&type=video&limit=60', { apiKey: key });
    expect(channelRest.body.videoIds).toHaveLength(60);
    expect(channel.length).toBeGreaterThan(1);
    expect(channel.flatMap((p) => p.structured.videoIds)).toEqual(channelRest.body.videoIds);
    sameFaces(channel, (page) => page.structured.videoIds.map((id: string) => `- https://www.youtube.com/watch?v=${id}\n`));

    const playlist = await allPages(client, 'youtube_playlist_videos', { id: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', limit: 150, maxChars: 1_000 });
    const playlistRest = await server.request('GET', '/v1/youtube/playlist/videos?id=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr&limit=150', { apiKey: key });
    expect(playlistRest.body.videoIds).toHaveLength(150);
    expect(playlist.length).toBeGreaterThan(4);
    expect(playlist.flatMap((p) => p.structured.videoIds)).toEqual(playlistRest.body.videoIds);
    sameFaces(playlist, (page) => page.structured.videoIds.map((id: string) => `- https://www.youtube.com/watch?v=${id}\n`));
    for (const page of playlist) expect(page.structured.playlistId).toBe(playlistRest.body.playlistId);
  }, 120_000);

  it("youtube_video_batch pages its job's results by video", async () => {
    const videoIds = ['kX3nB4PpJko', VIDEO, 'F1xioXWb8CY', ...Array.from({ length: 17 }, (_, i) => `zzzzzzzzz${String(i).padStart(2, '0')}`)];
    const pages = await allPages(client, 'youtube_video_batch', { videoIds, maxChars: 1_000 });
    const jobId = pages[0].structured.jobId as string;
    const rest = await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key });
    expect(rest.body.status).toBe('completed');
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flatMap((p) => p.structured.result.results)).toEqual(rest.body.result.results);
    sameFaces(pages, (page) => page.structured.result.results.map((item: { videoId: string }) => `## ${item.videoId}\n`));
  }, 120_000);

  it('a transcript as plain text (text=true) pages by paragraph or line, never mid-word', async () => {
    const pages = await allPages(client, 'youtube_transcript', { url: VIDEO, text: true, maxChars: 5_000 });
    const rest = await server.request('GET', `/v1/youtube/transcript?video_id=${VIDEO}&text=true`, { apiKey: key });
    expect(typeof rest.body.content).toBe('string');
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.map((p) => p.structured.content).join('')).toBe(rest.body.content);
    for (const page of pages) {
      expect(typeof page.structured.content).toBe('string');
      expect(page.structured.content.length).toBeLessThanOrEqual(5_000);
      expect(page.text).toContain(page.structured.content);
      expect(page.text).not.toMatch(/structuredContent/);
    }
    for (const page of pages.slice(0, -1)) expect(page.structured.content).toMatch(/\s$/);
  }, 120_000);
});

describe('YouTube search results over MCP', () => {
  it('are a numbered list, paged by result', async () => {
    const pages = await allPages(client, 'youtube_search', { query: 'test', limit: 40, maxChars: 1_000 });
    const rest = await server.request('GET', '/v1/youtube/search?query=test&limit=40', { apiKey: key });
    expect(rest.status).toBe(200);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flatMap((p) => p.structured.results)).toEqual(rest.body.results);
    let n = 0;
    for (const page of pages) {
      for (const item of page.structured.results) expect(page.text).toContain(`${++n}. [${item.type}] ${item.title ?? item.name}`);
    }
  });
});

describe('pieces of a text', () => {
  it('put together are the text, end at a blank line, a line or a space, and never exceed a piece, over every real page', () => {
    const names = fs.readdirSync(REAL_PAGES_DIR).filter((name) => fs.existsSync(path.join(REAL_PAGES_DIR, name, 'source.html')));
    let cuts = 0;
    let hard = 0;
    for (const name of names) {
      const text = fs.readFileSync(path.join(REAL_PAGES_DIR, name, 'source.html'), 'utf8');
      const parts = pieces(text);
      expect(parts.join(''), name).toBe(text);
      for (const [i, part] of parts.entries()) {
        expect(part.length).toBeLessThanOrEqual(PIECE_CHARS);
        if (i === parts.length - 1) continue;
        cuts++;
        // Mid-word only where there was no choice: a piece-long run without a space (minified script, a data: URL).
        if (!/\s$/.test(part)) {
          hard++;
          expect(part.slice(1), name).toMatch(/^\S+$/);
        }
      }
    }
    expect(cuts).toBeGreaterThan(1_000);
    expect(hard).toBeLessThan(cuts);
  });

  it('cut the empty text into one empty piece, and never split a surrogate pair', () => {
    expect(pieces('')).toEqual(['']);
    const emoji = '😀'.repeat(1_500);
    const parts = pieces(emoji);
    expect(parts.join('')).toBe(emoji);
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const part of parts) expect(loneSurrogate.test(part)).toBe(false);
  });
});
