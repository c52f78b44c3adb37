/**
 * The unmodified Supadata JavaScript SDK (@supadata/js 1.4.0) pointed at a real Gleaner server on
 * loopback: YouTube from the recorded replies (test/fixtures/youtube), web pages from a local
 * fixture site, video analysis from a local OpenAI-compatible chat server. Every reply the SDK
 * receives is checked against the served OpenAPI document, as the harness's own requests are.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Supadata } from '@supadata/js';
import { startTestServer, type TestServer } from '../support/server.js';
import { replyChecker, type ReplyChecker } from '../support/contract.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { startChatServer, type ChatServer } from '../support/chat-server.js';
import { pagePath, startFixtureSite, type FixtureSite } from '../support/fixture-site.js';

let replay: YoutubeReplay;
let chat: ChatServer;
let site: FixtureSite;
let server: TestServer;
let key: string;
let sdk: Supadata;

let checker: ReplyChecker | undefined;
/** SDK requests whose replies were checked, as METHOD path. */
const checked: string[] = [];

beforeAll(async () => {
  // The SDK keeps the fetch it finds when loaded: it gets one that checks each reply from Gleaner.
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    const response = await realFetch(input, init);
    const url = new URL(input instanceof Request ? input.url : input);
    if (checker && server && url.origin === new URL(server.baseUrl).origin) {
      checker.check(init?.method ?? 'GET', url.pathname + url.search, response.status, await response.clone().json());
      checked.push(`${init?.method ?? 'GET'} ${url.pathname.replace(/job_\w+/, '{jobId}')}`);
    }
    return response;
  });
  const { Supadata: SupadataClient } = await import('@supadata/js');
  vi.unstubAllGlobals();
  [replay, chat, site] = await Promise.all([startYoutubeReplay(), startChatServer(), startFixtureSite({ pages: 30, sitemap: 'plain' })]);
  server = await startTestServer({
    env: {
      GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}`,
      GLEANER_ALLOW_PRIVATE_URLS: 'true',
      GLEANER_LLM_URL: chat.url,
      GLEANER_LLM_API_KEY: 'sk-local',
      GLEANER_LLM_MODEL: 'local-model',
    },
  });
  checker = replyChecker(server.app.operations);
  key = await server.createKey('Pro', { credits: 10_000 });
  sdk = new SupadataClient({ apiKey: key, baseUrl: `${server.baseUrl}/v1` });
});

afterAll(async () => {
  await server.close();
  await Promise.all([replay.close(), chat.close(), site.close()]);
});

const credits = async () => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
const ownerId = async () => (await server.request('GET', '/v1/me', { apiKey: key })).body.id as string;
const finished = async (jobId: string) => server.app.services.jobs.waitFor(jobId, await ownerId(), 60_000);

describe('@supadata/js 1.4.0 against Gleaner', () => {
  it('transcript, metadata, youtube.transcript, youtube.translate', async () => {
    const general = await sdk.transcript({ url: 'https://youtu.be/GJLlxj_dtq8', text: true });
    expect('content' in general && general.content).toContain('Hey, this is just a test');
    // chunkSize joins the recorded segments (24, 35 and 45 characters) into chunks of up to 70.
    const chunks = await sdk.transcript({ url: 'https://youtu.be/GJLlxj_dtq8', chunkSize: 70, mode: 'native' });
    expect('content' in chunks && chunks.content).toEqual([
      { text: 'Hey, this is just a test this is not the original transcript', offset: 0, duration: 5700, lang: 'en' },
      { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239, lang: 'en' },
    ]);
    // mode=native never sends media to speech to text: a file without captions is refused, free.
    const before = await credits();
    const native = await server.request('GET', `/v1/transcript?url=${encodeURIComponent(`${site.origin}/clip.mp4`)}&mode=native`, { apiKey: key });
    expect(native.status).toBe(404);
    expect(native.body.error).toMatchObject({ code: 'TRANSCRIPT_UNAVAILABLE', message: expect.stringContaining('mode=native') });
    expect(await credits()).toBe(before);
    const meta = await sdk.metadata({ url: 'https://www.youtube.com/watch?v=kX3nB4PpJko' });
    expect(meta).toMatchObject({ platform: 'youtube', id: 'kX3nB4PpJko' });
    const yt = await sdk.youtube.transcript({ videoId: 'GJLlxj_dtq8', lang: 'de' });
    expect(yt.lang).toBe('de');
    expect(yt.availableLangs).toContain('en');
    const translated = await sdk.youtube.translate({ videoId: 'GJLlxj_dtq8', lang: 'ja' });
    expect(translated.lang).toBe('ja');
    expect(Array.isArray(translated.content) && translated.content.length).toBeGreaterThan(0);
  });

  it('youtube.video, channel, channel.videos, playlist, playlist.videos, search', async () => {
    expect(await sdk.youtube.video({ id: 'kX3nB4PpJko' })).toMatchObject({ id: 'kX3nB4PpJko', duration: 937, channel: { name: 'MrBeast' } });
    expect((await sdk.youtube.channel({ id: 'UCTwECeGqMZee77BjdoYtI2Q' })).id).toBe('UCTwECeGqMZee77BjdoYtI2Q');
    expect((await sdk.youtube.channel.videos({ id: 'UCTwECeGqMZee77BjdoYtI2Q', limit: 5, type: 'video' })).videoIds.length).toBeGreaterThan(0);
    expect((await sdk.youtube.playlist({ id: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr' })).id).toBe('PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr');
    expect((await sdk.youtube.playlist.videos({ id: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', limit: 3 })).videoIds).toEqual(['kPa7bsKwL-c', 'Oa_RSwwpPaA', 'ekr2nIex040']);
    const search = await sdk.youtube.search({ query: 'test', limit: 10, type: 'video', sortBy: 'relevance' });
    expect(search.results).toHaveLength(10);
    expect(search.results.every((r) => r.type === 'video' && r.id)).toBe(true);
    // The SDK's own filter names are taken (here at values that leave the recorded request as it is).
    const more = await sdk.youtube.search({ query: 'test', limit: 5, type: 'video', uploadDate: 'all', duration: 'all', features: [], nextPageToken: search.nextPageToken });
    expect(more.results).toHaveLength(5);
    expect(more.results.map((r) => r.id)).not.toContain(search.results[0].id);
  });

  it('youtube.transcript.batch and video.batch start jobs; youtube.batch.getBatchResults gives their results', async () => {
    const transcripts = await sdk.youtube.transcript.batch({ videoIds: ['GJLlxj_dtq8', 'nope'], lang: 'en' });
    expect(transcripts.jobId).toMatch(/^job_/);
    await finished(transcripts.jobId);
    const tResults = await sdk.youtube.batch.getBatchResults(transcripts.jobId);
    expect(tResults.status).toBe('completed');
    expect(tResults.stats).toEqual({ total: 2, succeeded: 1, failed: 1 });
    expect(tResults.results?.[0]).toMatchObject({ videoId: 'GJLlxj_dtq8', transcript: { lang: 'en' } });
    expect(tResults.results?.[1]).toMatchObject({ videoId: 'nope', errorCode: 'INVALID_REQUEST' });
    // Charged when it ended: the one caption transcript returned, nothing for the failed item.
    expect((await server.request('GET', `/v1/jobs/${transcripts.jobId}`, { apiKey: key })).body.creditsUsed).toBe(1);

    const fromPlaylist = await sdk.youtube.video.batch({ playlistId: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', limit: 3 });
    await finished(fromPlaylist.jobId);
    const vResults = await sdk.youtube.batch.getBatchResults(fromPlaylist.jobId);
    expect(vResults.status).toBe('completed');
    expect(vResults.results?.map((r) => r.videoId)).toEqual(['kPa7bsKwL-c', 'Oa_RSwwpPaA', 'ekr2nIex040']);

    const videos = await sdk.youtube.video.batch({ videoIds: ['kX3nB4PpJko'] });
    await finished(videos.jobId);
    const one = await sdk.youtube.batch.getBatchResults(videos.jobId);
    expect(one.results?.[0].video).toMatchObject({ id: 'kX3nB4PpJko', likeCount: 4961170 });
    // A job of another kind is no batch.
    await expect(sdk.youtube.batch.getBatchResults('job_unknown')).rejects.toMatchObject({ name: 'SupadataError' });
  });

  it('web.scrape, web.map; web.crawl({ limit: 5 }) scrapes at most 5 pages, charges at most 5, and getCrawlResults reads them', async () => {
    const page = await sdk.web.scrape(`${site.origin}/`);
    expect(page.content.length).toBeGreaterThan(0);
    expect((await sdk.web.map(`${site.origin}/`)).urls.length).toBeGreaterThanOrEqual(30);

    const before = await credits();
    const mark = site.requests.length;
    const { jobId } = await sdk.web.crawl({ url: `${site.origin}/`, limit: 5 });
    const job = await finished(jobId);
    expect(job.status).toBe('completed');
    const crawl = await sdk.web.getCrawlResults(jobId);
    expect(crawl.status).toBe('completed');
    expect(crawl.pages!.length).toBeGreaterThan(0);
    expect(crawl.pages!.length).toBeLessThanOrEqual(5);
    expect(crawl.pages!.every((p) => p.url.startsWith(site.origin) && p.content.length > 0)).toBe(true);
    expect(before - (await credits())).toBe(crawl.pages!.length);
    // What the site saw: at most 5 of its pages were fetched.
    const pagePaths = new Set(Array.from({ length: 30 }, (_, i) => pagePath(i + 1)));
    const fetched = site.requests.slice(mark).filter((path) => pagePaths.has(path));
    expect(fetched.length).toBeLessThanOrEqual(5);

    // The pages in parts: each next is a URL the SDK follows as given.
    let part = (await server.request('GET', `/v1/web/crawl/${jobId}?limit=2`, { apiKey: key })).body;
    const urls: string[] = part.pages.map((p: { url: string }) => p.url);
    while (part.next) {
      part = await (await fetch(part.next, { headers: { 'x-api-key': key } })).json();
      urls.push(...part.pages.map((p: { url: string }) => p.url));
    }
    expect(urls).toEqual(crawl.pages!.map((p) => p.url));
  });

  it('extract starts a video analysis; extract.getResults gives its data and schema', async () => {
    const schema = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'], additionalProperties: false };
    chat.script(JSON.stringify({ summary: 'A short test video.' }));
    const { jobId } = await sdk.extract({ url: 'https://www.youtube.com/watch?v=kX3nB4PpJko', prompt: 'Summarise it.', schema });
    await finished(jobId);
    const result = await sdk.extract.getResults(jobId);
    expect(result).toMatchObject({ status: 'completed', data: { summary: 'A short test video.' }, schema });
  });

  it('went through every route the SDK calls, each reply matching the OpenAPI document', () => {
    expect(new Set(checked)).toEqual(
      new Set([
        'GET /v1/transcript', 'GET /v1/metadata', 'GET /v1/youtube/transcript', 'GET /v1/youtube/transcript/translate',
        'GET /v1/youtube/video', 'GET /v1/youtube/channel', 'GET /v1/youtube/channel/videos', 'GET /v1/youtube/playlist',
        'GET /v1/youtube/playlist/videos', 'GET /v1/youtube/search', 'POST /v1/youtube/transcript/batch', 'POST /v1/youtube/video/batch',
        'GET /v1/youtube/batch/{jobId}', 'GET /v1/web/scrape', 'GET /v1/web/map', 'POST /v1/web/crawl', 'GET /v1/web/crawl/{jobId}',
        'POST /v1/extract', 'GET /v1/extract/{jobId}',
      ]),
    );
  });
});
