/**
 * The operator's credentials and endpoints stay the operator's (issue 20, findings 3 and 4).
 *
 * Finding 3: the cookies of GLEANER_COOKIES_FILE were matched by host alone, so any request to a
 * platform host carried them: a Free key scraping Instagram's account page had it fetched with the
 * operator's sessionid, a crawl webhook to youtube.com went out with SAPISID, and X's x-csrf-token
 * followed a redirect from api.x.com to another site. They now go only with the platform adapters'
 * own requests, and nothing but generic headers follows a redirect to another site.
 *
 * Finding 4: the origins of the operator's endpoints (language model, speech to text, PO-token
 * provider) were exempt from the SSRF guard for every request, a caller's included. The exemption
 * is now Gleaner's own calls to them only.
 *
 * Every platform host is served from loopback through GLEANER_UPSTREAM_OVERRIDES; the cookie values
 * are this test's own.
 */
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { generateMedia, startMediaServer, startSttServer, type GeneratedMedia, type MediaServer, type SttServer } from '../support/media.js';
import { HttpClient } from '../../src/net/http.js';
import { BUILTIN_PROFILE } from '../../src/profile/load.js';
import { writeCookiesFile } from '../support/cookies-file.js';

const q = encodeURIComponent;
const SESSIONID = 'ig-sessionid-operator-secret';
const SAPISID = 'yt-sapisid-operator-secret';
const SID = 'google-sid-operator-secret';
const AUTH_TOKEN = 'x-auth-token-operator-secret';
const CT0 = 'x-ct0-operator-secret';
const SECRETS = [SESSIONID, SAPISID, SID, AUTH_TOKEN, CT0];

const PAGE = '<!doctype html><html><head><title>Account</title></head><body><main><h1>Settings</h1><p>Edit your profile.</p></main></body></html>';

function writeCookies(dir: string): string {
  return writeCookiesFile(dir, [
    { domain: 'instagram.com', name: 'sessionid', value: SESSIONID, httpOnly: true },
    { domain: 'youtube.com', name: 'SAPISID', value: SAPISID },
    { domain: 'google.com', name: 'SID', value: SID },
    { domain: 'x.com', name: 'auth_token', value: AUTH_TOKEN, httpOnly: true },
    { domain: 'x.com', name: 'ct0', value: CT0 },
  ]);
}

/** Everything a logged request carried that is the operator's. */
function secretsIn(entry: { headers: http.IncomingHttpHeaders }): string[] {
  const carried = JSON.stringify(entry.headers);
  return SECRETS.filter((secret) => carried.includes(secret));
}

describe("the operator's platform cookies go only with the adapters' own requests (finding 3)", () => {
  let upstream: MediaServer;
  let server: TestServer;
  let dir: string;
  const hook = { arrived: [] as Array<() => void> };

  beforeAll(async () => {
    upstream = await startMediaServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-credentials-'));
    const hosts = ['instagram.com', 'google.com', 'youtube.com', 'x.com', 'twimg.com', 'site.test', 'collector.example'];
    server = await startTestServer({
      env: { GLEANER_COOKIES_FILE: writeCookies(dir), GLEANER_UPSTREAM_OVERRIDES: hosts.map((h) => `${h}=${upstream.origin}`).join(',') },
    });
    upstream.serveBody('/accounts/edit/', PAGE, 'text/html; charset=utf-8');
    upstream.serveBody('/', PAGE, 'text/html; charset=utf-8');
    upstream.route('/youtubei/v1/like/like', () => {
      for (const wake of hook.arrived.splice(0)) wake();
      return { body: '{}' };
    });
    // X's API sends the logged-in GraphQL request elsewhere (built by this test: a 302 to another site).
    upstream.route(`/graphql/${BUILTIN_PROFILE.x.tweetQueryId}/TweetResultByRestId`, () => ({ status: 302, body: '', headers: { location: 'https://collector.example/collect' } }));
    upstream.serveBody('/collect', '{}', 'application/json');
    upstream.serveBody('/tweet-result', '', 'application/json', {}, 404);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const logged = (p: string) => upstream.log.filter((r) => r.path === p);

  it("a Free key scraping https://www.instagram.com/accounts/edit/ has it fetched without the operator's sessionid; a Google page, map and metadata likewise", async () => {
    const key = await server.createKey('Free');
    const scrape = await server.request('GET', `/v1/web/scrape?url=${q('https://www.instagram.com/accounts/edit/')}`, { apiKey: key });
    expect(scrape.status, JSON.stringify(scrape.body)).toBe(200);
    expect(scrape.body.content).toContain('Edit your profile');
    const google = await server.request('GET', `/v1/web/scrape?url=${q('https://myaccount.google.com/')}`, { apiKey: key });
    expect(google.status).toBe(200);
    expect((await server.request('GET', `/v1/web/map?url=${q('https://www.youtube.com/')}`, { apiKey: key })).status).toBeLessThan(500);
    expect((await server.request('GET', `/v1/metadata?url=${q('https://myaccount.google.com/')}`, { apiKey: key })).status).toBe(200);
    const pages = upstream.log.filter((r) => ['www.instagram.com', 'myaccount.google.com', 'www.youtube.com'].includes(String(r.headers['x-forwarded-host'])));
    expect(pages.length).toBeGreaterThanOrEqual(4);
    expect(pages.flatMap(secretsIn)).toEqual([]);
    expect(pages.filter((r) => r.headers.cookie !== undefined)).toEqual([]);
  });

  it('a crawl webhook to a youtube.com URL is POSTed without SAPISID', async () => {
    const key = await server.createKey('Pro');
    const delivered = new Promise<void>((resolve) => hook.arrived.push(resolve));
    const start = await server.request('POST', '/v1/web/crawl', {
      apiKey: key,
      body: { url: 'https://site.test/', maxPages: 1, webhook: 'https://www.youtube.com/youtubei/v1/like/like' },
    });
    expect(start.status, JSON.stringify(start.body)).toBe(202);
    await delivered;
    const [post] = logged('/youtubei/v1/like/like');
    expect(post.method).toBe('POST');
    expect(post.headers.cookie).toBeUndefined();
    expect(secretsIn(post)).toEqual([]);
  });

  it("X's login headers go to api.x.com with its cookies, and none of them follows a redirect to another site", async () => {
    const key = await server.createKey('Free');
    await server.request('GET', `/v1/metadata?url=${q('https://x.com/someone/status/20')}`, { apiKey: key });
    // The adapter's own request: the logged-in session (cookies and ct0 as x-csrf-token).
    const [asked] = logged(`/graphql/${BUILTIN_PROFILE.x.tweetQueryId}/TweetResultByRestId`);
    expect(asked.headers['x-csrf-token']).toBe(CT0);
    expect(asked.headers.cookie).toContain(`auth_token=${AUTH_TOKEN}`);
    // The redirect to collector.example carries nothing of it.
    const [collected] = logged('/collect');
    expect(collected, 'the redirect was followed').toBeDefined();
    expect(collected.headers['x-forwarded-host']).toBe('collector.example');
    expect(collected.headers['x-csrf-token']).toBeUndefined();
    expect(collected.headers.authorization).toBeUndefined();
    expect(collected.headers.cookie).toBeUndefined();
    expect(secretsIn(collected)).toEqual([]);
  });

  it('within one platform (api.x.com to x.com) a redirect keeps the session; to another site it keeps only generic headers', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const origin = http.createServer((req, res) => {
      seen.push(req.headers);
      const host = String(req.headers['x-forwarded-host']);
      if (host === 'api.x.com') res.writeHead(302, { location: 'https://x.com/next' }).end();
      else if (host === 'x.com') res.writeHead(302, { location: 'https://elsewhere.example/last' }).end();
      else res.end('ok');
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    const target = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const { CookieJar } = await import('../../src/net/cookies.js');
    const client = new HttpClient({
      overrides: ['x.com', 'elsewhere.example'].map((host) => ({ host, origin: target })),
      cookies: CookieJar.fromFile(path.join(dir, 'cookies.txt')),
    });
    try {
      await client.fetch('https://api.x.com/graphql/q', { headers: { 'x-csrf-token': CT0, 'x-twitter-auth-type': 'OAuth2Session', accept: 'application/json' }, credentials: true });
      expect(seen.map((h) => h['x-forwarded-host'])).toEqual(['api.x.com', 'x.com', 'elsewhere.example']);
      expect(seen[1]['x-csrf-token']).toBe(CT0);
      expect(seen[1].cookie).toContain(`ct0=${CT0}`);
      expect(seen[2]['x-csrf-token']).toBeUndefined();
      expect(seen[2]['x-twitter-auth-type']).toBeUndefined();
      expect(seen[2].cookie).toBeUndefined();
      expect(seen[2].accept).toBe('application/json');
    } finally {
      await client.close();
      origin.close();
    }
  });
});

describe("the SSRF guard's exemption is Gleaner's own calls to the operator's endpoints (finding 4)", () => {
  let upstream: MediaServer;
  let stt: SttServer;
  let media: GeneratedMedia;
  let server: TestServer;
  /** Stands for the operator's language model and PO-token provider: every request to it is recorded. */
  let endpoint: http.Server;
  let endpointOrigin: string;
  const endpointHits: string[] = [];

  beforeAll(async () => {
    media = generateMedia();
    [upstream, stt] = await Promise.all([startMediaServer(), startSttServer()]);
    endpoint = http.createServer((req, res) => {
      endpointHits.push(`${req.method} ${req.url}`);
      res.end('{"secret":"operator-only"}');
    });
    endpoint.listen(0, '127.0.0.1');
    await once(endpoint, 'listening');
    endpointOrigin = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
    upstream.serveBody('/', PAGE, 'text/html; charset=utf-8');
    upstream.serveBody('/to-llm', '', 'text/html', { location: `${endpointOrigin}/admin/secret` }, 302);
    upstream.serve('/clip.mp4', media.make('clip.mp4', 8), 'video/mp4');
    // GLEANER_ALLOW_PRIVATE_URLS is not set: the guard is on, as by default.
    server = await startTestServer({
      env: {
        GLEANER_UPSTREAM_OVERRIDES: `site.test=${upstream.origin},media.example=${upstream.origin}`,
        GLEANER_LLM_URL: `${endpointOrigin}/v1`,
        GLEANER_YOUTUBE_POT_PROVIDER_URL: endpointOrigin,
        GLEANER_STT_URL: stt.url,
        GLEANER_STT_MODEL: 'whisper-test',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await Promise.all([upstream?.close(), stt?.close(), new Promise<void>((resolve) => (endpoint ? endpoint.close(() => resolve()) : resolve()))]);
    if (media) fs.rmSync(media.dir, { recursive: true, force: true });
  });

  it("scraping the language model's loopback origin is refused URL_NOT_ALLOWED, and so is a redirect to it; nothing reaches it", async () => {
    const key = await server.createKey('Free');
    for (const url of [`${endpointOrigin}/admin/secret`, `${new URL(stt.url).origin}/v1/models`, 'http://site.test/to-llm']) {
      const reply = await server.request('GET', `/v1/web/scrape?url=${q(url)}`, { apiKey: key });
      expect(reply.status, url).toBe(400);
      expect(reply.body.error.code, url).toBe('URL_NOT_ALLOWED');
    }
    expect(endpointHits).toEqual([]);
  });

  it("a crawl webhook to the PO-token provider's origin is refused at submission; so is an override's own origin named directly", async () => {
    const key = await server.createKey('Pro');
    const hook = await server.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: 'http://site.test/', maxPages: 1, webhook: `${endpointOrigin}/get_pot` } });
    expect(hook.status).toBe(400);
    expect(hook.body.error.code).toBe('URL_NOT_ALLOWED');
    // site.test is rewritten to the loopback origin; naming that origin is a caller's loopback URL.
    const direct = await server.request('GET', `/v1/web/scrape?url=${q(`${upstream.origin}/`)}`, { apiKey: key });
    expect(direct.body.error?.code).toBe('URL_NOT_ALLOWED');
    expect((await server.request('GET', `/v1/web/scrape?url=${q('http://site.test/')}`, { apiKey: key })).status).toBe(200);
    expect(endpointHits).toEqual([]);
  });

  it("Gleaner's own call to the speech-to-text endpoint on loopback still goes through with the guard on", async () => {
    const key = await server.createKey('Pro');
    stt.reset();
    const reply = await server.request('GET', `/v1/video/transcript?url=${q('https://media.example/clip.mp4')}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(stt.calls).toHaveLength(1);
  });
});

describe('a direct media file on a platform cookie domain carries no cookie of the operator (finding 3)', () => {
  let upstream: MediaServer;
  let stt: SttServer;
  let media: GeneratedMedia;
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    media = generateMedia();
    [upstream, stt] = await Promise.all([startMediaServer(), startSttServer()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-credentials-media-'));
    const clip = media.make('clip.mp4', 6);
    for (const file of ['/some.mp4', '/media/clip.mp4', '/v/clip.mp4']) upstream.serve(file, clip, 'video/mp4');
    // A caller's file host that sends the download on to a platform host.
    upstream.serveBody('/moved.mp4', '', 'video/mp4', { location: 'https://www.instagram.com/some.mp4' }, 302);
    const hosts = ['instagram.com', 'youtube.com', 'google.com', 'x.com', 'files.example'];
    server = await startTestServer({
      env: {
        GLEANER_COOKIES_FILE: writeCookies(dir),
        GLEANER_UPSTREAM_OVERRIDES: hosts.map((h) => `${h}=${upstream.origin}`).join(','),
        GLEANER_STT_URL: stt.url,
        GLEANER_STT_MODEL: 'whisper-test',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await Promise.all([upstream?.close(), stt?.close()]);
    if (media) fs.rmSync(media.dir, { recursive: true, force: true });
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('/v1/video/transcript and /v1/metadata of https://www.instagram.com/some.mp4 (and on youtube.com, x.com, after a redirect) send no cookie', async () => {
    const key = await server.createKey('Pro');
    const urls = ['https://www.instagram.com/some.mp4', 'https://www.youtube.com/media/clip.mp4', 'https://x.com/v/clip.mp4', 'https://files.example/moved.mp4'];
    for (const url of urls) {
      const transcript = await server.request('GET', `/v1/video/transcript?url=${q(url)}`, { apiKey: key });
      expect(transcript.status, `${url}: ${JSON.stringify(transcript.body)}`).toBe(200);
      const metadata = await server.request('GET', `/v1/metadata?url=${q(url)}`, { apiKey: key });
      expect(metadata.status, `${url}: ${JSON.stringify(metadata.body)}`).toBe(200);
    }
    const files = upstream.log.filter((r) => r.path.endsWith('.mp4'));
    // The media file of each URL was fetched (the Instagram one directly and through the redirect).
    expect(new Set(files.map((r) => r.path))).toEqual(new Set(['/some.mp4', '/media/clip.mp4', '/v/clip.mp4', '/moved.mp4']));
    expect(files.flatMap(secretsIn)).toEqual([]);
    expect(files.filter((r) => r.headers.cookie !== undefined || r.headers['x-csrf-token'] !== undefined)).toEqual([]);
  }, 120_000);
});
