/**
 * `read`: one tool for any link. Over MCP (the text block a model reads) and REST, against loopback
 * stand-ins: the YouTube replay (recorded InnerTube replies and captions), the recorded TikTok page with
 * caption bodies this test writes (no TikTok WebVTT body is recorded anywhere), the real Wikipedia page
 * of test/fixtures/web and the real PDF of test/fixtures/documents. Each read names its route and is
 * charged what the routed operation charges.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope, pageData } from '../support/mcp.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { startDocumentSite, type DocumentSite } from '../support/document-site.js';
import { REAL_PAGES_DIR } from '../support/fixture-site.js';
import { fixture } from '../support/paths.js';
import { readRoute } from '../../src/operations/read.js';
import fs from 'node:fs';
import path from 'node:path';

const TIKTOK_PAGE = '/@illojuan/video/7571863205253778710';
const PLAYLIST = 'https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr';

let server: TestServer;
let replay: YoutubeReplay;
let documents: DocumentSite;
let tiktok: http.Server;
let site: http.Server;
let siteOrigin: string;
let key: string;
let client: Client;

/** The recorded TikTok page, and a WebVTT body for each of its caption tracks. */
function startTiktok(): Promise<http.Server> {
  const page = fixture('tiktok/video_7571863205253778710.html');
  const item = JSON.parse(/<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>([\s\S]*?)<\/script>/.exec(page)![1]).__DEFAULT_SCOPE__['webapp.video-detail'].itemInfo.itemStruct;
  const vtt = (words: string[]) => `WEBVTT\n\n${words.map((w, i) => `00:00:0${i * 2}.000 --> 00:00:0${i * 2 + 2}.000\n${w}`).join('\n\n')}\n`;
  const bodies = new Map<string, [string, string]>([[TIKTOK_PAGE, [page, 'text/html; charset=utf-8']]]);
  for (const track of item.video.subtitleInfos as Array<{ Url: string; LanguageCodeName: string }>) {
    const words = track.LanguageCodeName === 'spa-ES' ? ['Hola a todos', 'esto es un menú nuevo', 'hasta luego'] : ['Hello everyone', 'this is a new menu', 'see you'];
    bodies.set(new URL(track.Url).pathname, [vtt(words), 'text/vtt']);
  }
  const server = http.createServer((req, res) => {
    const found = bodies.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!found) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': found[1] }).end(found[0]);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const originOf = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  [replay, documents, tiktok] = await Promise.all([startYoutubeReplay(), startDocumentSite(), startTiktok()]);
  const article = fs.readFileSync(path.join(REAL_PAGES_DIR, 'wikipedia', 'source.html'));
  site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteOrigin = originOf(site);
  server = await startTestServer({
    env: {
      GLEANER_ALLOW_PRIVATE_URLS: 'true',
      GLEANER_UPSTREAM_OVERRIDES: [`youtube.com=${replay.origin}`, `googleapis.com=${replay.origin}`, `tiktok.com=${originOf(tiktok)}`, `tiktokcdn-eu.com=${originOf(tiktok)}`].join(','),
    },
  });
  key = await server.createKey('Pro', { credits: 100 });
  client = await connectMcp(server.baseUrl, key);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  await Promise.all([replay?.close(), documents?.close()]);
  for (const s of [tiktok, site]) {
    if (!s) continue;
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const credits = async () => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

/** One MCP read: its text block, its structuredContent and the credits it cost. */
async function read(args: Record<string, unknown>) {
  const before = await credits();
  const result = await client.callTool({ name: 'read', arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const text = (result.content as Array<{ text: string }>)[0].text;
  return { text, structured: pageData(result), cost: before - (await credits()) };
}

describe('read', () => {
  it('routes each kind of link to the operation that serves it', () => {
    const route = (url: string) => readRoute(new URL(url));
    expect(route('https://www.youtube.com/watch?v=kX3nB4PpJko')).toBe('transcript');
    expect(route('https://youtu.be/kX3nB4PpJko')).toBe('transcript');
    expect(route(PLAYLIST)).toBe('youtube_playlist_videos');
    expect(route('https://www.youtube.com/@creativecommons')).toBe('youtube_channel_videos');
    expect(route('https://www.youtube.com/channel/UCTwECeGqMZee77BjdoYtI2Q/videos')).toBe('youtube_channel_videos');
    expect(route('https://www.tiktok.com/@illojuan/video/7571863205253778710')).toBe('transcript');
    expect(route('https://cdn.example.org/talk.mp4')).toBe('transcript');
    expect(route('https://example.org/paper.pdf')).toBe('web_scrape');
    expect(route('https://example.org/blog/post')).toBe('web_scrape');
    expect(route('https://www.youtube.com/about')).toBe('web_scrape');
  });

  it('a YouTube video: its facts and its transcript, paged like the transcript tool, charged as it (1 credit)', async () => {
    const { text, structured, cost } = await read({ url: 'https://www.youtube.com/watch?v=kX3nB4PpJko' });
    expect(structured.route).toBe('transcript');
    expect(structured.result.aiGenerated).toBe(false);
    expect(structured.result.content.length).toBeGreaterThan(0);
    expect(text).toContain('(read as transcript)');
    expect(text).toContain(`[00:00] ${structured.result.content[0].text}`);
    expect(structured.video).toMatchObject({ platform: 'youtube', id: 'kX3nB4PpJko' });
    expect(text.startsWith(`# ${structured.title}\n`)).toBe(true);
    expect(cost).toBe(1);
    // The same read on REST is the same reply, charged the same.
    const rest = await server.request('GET', `/v1/read?url=${encodeURIComponent('https://www.youtube.com/watch?v=kX3nB4PpJko')}`, { apiKey: key });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-credits-used')).toBe('1');
    expect(rest.body.result.content).toEqual(structured.result.content);
  });

  it('a TikTok video: the published captions with the post\'s facts (1 credit)', async () => {
    const { text, structured, cost } = await read({ url: 'https://www.tiktok.com/@illojuan/video/7571863205253778710' });
    expect(structured).toMatchObject({ route: 'transcript', result: { platform: 'tiktok', lang: 'es-ES' } });
    expect(structured.video).toMatchObject({ platform: 'tiktok', author: { name: 'IlloJuan' } });
    expect(text).toContain('IlloJuan');
    expect(text).toContain('esto es un menú nuevo');
    expect(cost).toBe(1);
  });

  it('a web page: its main content as markdown (1 credit)', async () => {
    const { text, structured, cost } = await read({ url: `${siteOrigin}/wiki/Mozilla` });
    expect(structured.route).toBe('web_scrape');
    expect(structured.title).toBe(structured.result.title);
    expect(text).toContain('(read as web_scrape)');
    expect(text).toContain('Mozilla');
    expect(cost).toBe(1);
  });

  it('a PDF: its text (1 credit)', async () => {
    const { text, structured, cost } = await read({ url: `${documents.origin}/papers/tika.pdf` });
    expect(structured.route).toBe('web_scrape');
    expect(structured.result.content.length).toBeGreaterThan(20);
    expect(text).toContain(structured.result.content.slice(0, 40));
    expect(cost).toBe(1);
  });

  it('a YouTube playlist: its title and its videos as links (1 credit)', async () => {
    const { text, structured, cost } = await read({ url: PLAYLIST });
    expect(structured.route).toBe('youtube_playlist_videos');
    expect(structured.result.videoIds.length).toBeGreaterThan(0);
    expect(text).toContain(`https://www.youtube.com/watch?v=${structured.result.videoIds[0]}`);
    expect(structured.title).toBeTruthy();
    expect(text.startsWith(`# ${structured.title}\n`)).toBe(true);
    expect(cost).toBe(1);
  });

  it('pages a long read through nextCursor, the later pages free', async () => {
    const first = await read({ url: `${siteOrigin}/wiki/Mozilla`, maxChars: 2_000 });
    expect(first.structured.nextCursor).toBeDefined();
    const second = await read({ cursor: first.structured.nextCursor, maxChars: 2_000 });
    expect(second.cost).toBe(0);
    expect(second.text).not.toBe(first.text);
  });

  it('a bad link is a clear 400, charged nothing', async () => {
    const before = await credits();
    const result = await client.callTool({ name: 'read', arguments: { url: 'ftp://example.org/file' } });
    expect(result.isError).toBe(true);
    expect(errorEnvelope(result).error.code).toBe('INVALID_REQUEST');
    expect(await credits()).toBe(before);
  });

  it('comes first in the default tool list, described as the place to start', async () => {
    const { tools } = await client.listTools();
    expect(tools[0].name).toBe('read');
    expect(tools[0].description).toMatch(/^Start here for any URL/);
  });
});

describe('chapters', () => {
  // ud9d5cMDP_0 (maiLab, recorded 2022): seven chapters in the watch reply's player bar and in its description.
  const video = 'https://www.youtube.com/watch?v=ud9d5cMDP_0';
  // A json3 caption body of this test's own over the video's 16:50: a line every 30 s (the recorded one lasts 5 s).
  const events = Array.from({ length: 34 }, (_, i) => ({ tStartMs: i * 30_000, dDurationMs: 30_000, segs: [{ utf8: `line ${i}` }] }));
  beforeAll(() => void replay.captionBodies.set('ud9d5cMDP_0', JSON.stringify({ events })));
  const titles = ['Ein erstaunlich kontroverses Thema', 'Was ist Vitamin D?', 'Die Saisonalitätshypothese', 'Klinische Studien zu Vitamin D', 'Ab wann hat man Vitamin-D-Mangel?', 'Vorsicht vor pauschalen Empfehlungen', 'Keksempfehlungen'];

  it('are on the metadata (from the player bar) and the transcript (from the description), in seconds', async () => {
    const metadata = await server.request('GET', `/v1/metadata?url=${encodeURIComponent(video)}`, { apiKey: key });
    expect(metadata.status, JSON.stringify(metadata.body)).toBe(200);
    expect(metadata.body.chapters.map((c: { title: string }) => c.title)).toEqual(titles);
    expect(metadata.body.chapters[1]).toEqual({ title: 'Was ist Vitamin D?', start: 164 });
    const transcript = await server.request('GET', `/v1/youtube/transcript?url=${encodeURIComponent(video)}`, { apiKey: key });
    expect(transcript.status, JSON.stringify(transcript.body)).toBe(200);
    expect(transcript.body.chapters).toEqual(metadata.body.chapters);
  });

  it('are headings between the timed lines of the text block, the segments unchanged', async () => {
    const { text, structured } = await read({ url: 'https://youtu.be/ud9d5cMDP_0' });
    expect(structured.result.chapters).toHaveLength(7);
    // Each heading comes right before the first line at or after its start: 2:44 before the line at 3:00.
    expect(text).toContain('## Ein erstaunlich kontroverses Thema [00:00]\n[00:00] line 0\n');
    expect(text).toContain('[02:30] line 5\n\n## Was ist Vitamin D? [02:44]\n[03:00] line 6\n');
    expect(text).toContain('[16:00] line 32\n\n## Keksempfehlungen [16:21]\n[16:30] line 33\n');
    expect(structured.result.content.map((segment: { text: string }) => segment.text)).toEqual(events.map((e) => e.segs[0].utf8));
  });
});
