/**
 * Login cookies from GLEANER_COOKIES_FILE (issue 13): X's auth_token and ct0 make GraphQL calls as
 * the logged-in user (ct0 as x-csrf-token, no guest token); Instagram's sessionid opens the
 * media-info API when the page is a login wall. Recorded 2026 replies on loopback, reached through
 * GLEANER_UPSTREAM_OVERRIDES.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { startMediaServer, type MediaServer } from '../support/media.js';
import { BUILTIN_PROFILE } from '../../src/profile/load.js';
import { fixture } from '../support/paths.js';
import { writeCookiesFile } from '../support/cookies-file.js';

/** The query id the built-in platform profile sends (X changes it; the profile follows). */
const X_QUERY = `/graphql/${BUILTIN_PROFILE.x.tweetQueryId}/TweetResultByRestId`;

const q = encodeURIComponent;

const AUTH_TOKEN = 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9';
const CT0 = 'f00dfeedcafe0123456789abcdef0123456789abcdef0123456789abcdef0123';
const SESSION = '123456789%3AAbCdEfGhIjKlMn%3A12%3AAYfakeSessionValue';

let upstream: MediaServer;
let server: TestServer;
let dir: string;
let activations = 0;
const feedItem = JSON.parse(fixture('instagram/2026/mbedfx_instagram_api-v1-feed-user_loggedout_datsun_EDITED-usernames_2026-07.json')).items[0];

beforeAll(async () => {
  upstream = await startMediaServer();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-cookies-'));
  // A browser export in the Netscape format, with this test's values.
  const cookies = writeCookiesFile(dir, [
    { domain: 'x.com', name: 'auth_token', value: AUTH_TOKEN, httpOnly: true },
    { domain: 'x.com', name: 'ct0', value: CT0 },
    { domain: 'instagram.com', name: 'sessionid', value: SESSION, httpOnly: true },
  ]);
  const hosts = ['x.com', 'twimg.com', 'instagram.com', 'cdninstagram.com'];
  server = await startTestServer({
    env: { GLEANER_COOKIES_FILE: cookies, GLEANER_UPSTREAM_OVERRIDES: hosts.map((h) => `${h}=${upstream.origin}`).join(',') },
  });

  // Built by this test: no guest/activate.json reply is recorded; its documented shape.
  upstream.route('/1.1/guest/activate.json', () => ({ body: JSON.stringify({ guest_token: `19000000000000000${++activations}` }) }));
  upstream.route(X_QUERY, (url) => {
    // Built by this test in X's error format: the logged-in session refused (no such body is recorded).
    if (JSON.parse(url.searchParams.get('variables')!).tweetId === '21') return { status: 401, body: JSON.stringify({ errors: [{ code: 32, message: 'Could not authenticate you.' }] }) };
    return { body: fixture('x/syndication/mbedfx_guest-graphql_TweetResultByRestId_20_2026-07.json') };
  });
  // Built by this test: the syndication API refusing as well.
  upstream.serveBody('/tweet-result', '', 'application/json', {}, 429);

  // Instagram: the post pages redirect to the login page (a login wall, as Instagram answers
  // addresses that made too many logged-out requests; built by this test).
  for (const code of ['DZghoo7PAzi', 'DbQa5yKO3ie', 'CDUMkliABpz']) {
    upstream.serveBody(`/reel/${code}/`, '', 'text/html', { location: `https://www.instagram.com/accounts/login/?next=%2Freel%2F${code}%2F` }, 302);
  }
  upstream.serveBody('/accounts/login/', '<!DOCTYPE html><html><head><title>Login • Instagram</title></head><body></body></html>', 'text/html');
  // Built by this test: no /api/v1/media/{pk}/info/ reply is recorded. Its documented shape
  // ({items: [item]}) around the recorded 2026 feed item, whose items have the same shape.
  upstream.serveBody(`/api/v1/media/${feedItem.pk}/info/`, JSON.stringify({ items: [feedItem], num_results: 1, more_available: false, status: 'ok' }), 'application/json');
  // DbQa5yKO3ie: the session is no longer accepted (Instagram sends the API to its login page).
  upstream.serveBody('/api/v1/media/3949775193282148510/info/', '', 'text/html', { location: 'https://www.instagram.com/accounts/login/' }, 302);
  // A post the logged-in account may not see: Instagram's 400 "Media not found or unavailable".
  upstream.serveBody('/api/v1/media/2365570995034528371/info/', JSON.stringify({ message: 'Media not found or unavailable', status: 'fail' }), 'application/json', {}, 400);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await upstream?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const get = (pathAndQuery: string, key: string) => server.request('GET', pathAndQuery, { apiKey: key });
const logged = (p: string) => upstream.log.filter((r) => r.path === p);

describe('X with login cookies', () => {
  it('sends ct0 as x-csrf-token with the cookies, and asks for no guest token', async () => {
    const key = await server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://x.com/jack/status/20')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ id: '20', author: { handle: 'jack' } });
    const calls = logged(X_QUERY);
    expect(calls).toHaveLength(1);
    const headers = calls[0].headers;
    expect(headers['x-csrf-token']).toBe(CT0);
    expect(headers['x-guest-token']).toBeUndefined();
    expect(headers['x-twitter-auth-type']).toBe('OAuth2Session');
    expect(String(headers.cookie)).toContain(`auth_token=${AUTH_TOKEN}`);
    expect(String(headers.cookie)).toContain(`ct0=${CT0}`);
    // Instagram's cookie never goes to X.
    expect(String(headers.cookie)).not.toContain('sessionid');
    expect(activations).toBe(0);
    expect(logged('/1.1/guest/activate.json')).toHaveLength(0);
  });

  it('refused cookies: one try, the syndication API, then UPSTREAM_BLOCKED saying the cookies may have expired', async () => {
    const key = await server.createKey('Free', { credits: 10 });
    const before = logged(X_QUERY).length;
    const reply = await get(`/v1/metadata?url=${q('https://x.com/biz/status/21')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(503);
    expect(reply.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(reply.body.error.message).toContain('may have expired');
    expect(reply.body.error.message).not.toContain(CT0);
    expect(logged(X_QUERY).length - before).toBe(1);
    expect(logged('/tweet-result').length).toBeGreaterThan(0);
    expect(activations).toBe(0);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(10);
  });
});

describe('Instagram with a session cookie', () => {
  it('reads a login-walled post through the media-info API, with the session cookie and the web app id', async () => {
    const key = await server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/DZghoo7PAzi/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'instagram',
      type: 'video',
      id: 'DZghoo7PAzi',
      author: { handle: 'fixture_user_4' },
      counts: { likes: 11647, comments: 215, views: 148889 },
      publishedAt: new Date(1781315520 * 1000).toISOString(),
    });
    const [call] = logged(`/api/v1/media/${feedItem.pk}/info/`);
    expect(String(call.headers.cookie)).toContain(`sessionid=${SESSION}`);
    expect(String(call.headers.cookie)).not.toContain('auth_token');
    expect(call.headers['x-ig-app-id']).toBe('936619743392459');
  });

  it('an expired session is UPSTREAM_BLOCKED naming the cookie; a post the account cannot see is a clear 403; both free', async () => {
    const key = await server.createKey('Free', { credits: 10 });
    const expired = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/DbQa5yKO3ie/')}`, key);
    expect(expired.status, JSON.stringify(expired.body)).toBe(503);
    expect(expired.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(expired.body.error.message).toContain('sessionid');
    expect(expired.body.error.message).toContain('GLEANER_COOKIES_FILE');
    expect(expired.body.error.message).not.toContain(SESSION);
    const hidden = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/CDUMkliABpz/')}`, key);
    expect(hidden.status, JSON.stringify(hidden.body)).toBe(403);
    expect(hidden.body.error.code).toBe('CONTENT_UNAVAILABLE');
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(10);
  });
});
