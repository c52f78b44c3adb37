import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, parseNetscapeCookies } from '../../src/net/cookies.js';
import { HttpClient } from '../../src/net/http.js';
import { loadConfig } from '../../src/config.js';

/** A cookies.txt as browser extensions and yt-dlp write it (values are the test's own). */
const COOKIES_TXT = [
  '# Netscape HTTP Cookie File',
  '# This is a generated file! Do not edit.',
  '',
  '.youtube.com\tTRUE\t/\tTRUE\t0\tSID\tyt-session',
  '#HttpOnly_.youtube.com\tTRUE\t/\tTRUE\t4102444800\t__Secure-3PSID\tyt-secure',
  '.youtube.com\tTRUE\t/\tFALSE\t1000\tEXPIRED\told',
  'www.youtube.com\tFALSE\t/feed\tFALSE\t0\tFEED\tonly-feed',
  '.x.com\tTRUE\t/\tTRUE\t0\tct0\tcsrf-token-value',
  '.x.com\tTRUE\t/\tTRUE\t0\tauth_token\tx-auth',
  '.example.com\tTRUE\t/\tFALSE\t0\tTRACK\tnot-a-platform',
  'broken line without tabs',
  '.instagram.com\tTRUE\t/\tTRUE\t0\tsessionid\tig\twith-tab',
].join('\n');

describe('Netscape cookies.txt', () => {
  it('parses every well-formed line, #HttpOnly_ included, and skips comments and broken lines', () => {
    const cookies = parseNetscapeCookies(COOKIES_TXT);
    expect(cookies.map((c) => c.name)).toEqual(['SID', '__Secure-3PSID', 'EXPIRED', 'FEED', 'ct0', 'auth_token', 'TRACK', 'sessionid']);
    expect(cookies[1]).toEqual({ domain: 'youtube.com', includeSubdomains: true, path: '/', secure: true, expires: 4102444800, name: '__Secure-3PSID', value: 'yt-secure' });
    expect(cookies[7].value).toBe('ig\twith-tab');
  });

  it('matches domain, subdomains, path, secure and expiry, and keeps only platform domains', () => {
    const jar = new CookieJar(parseNetscapeCookies(COOKIES_TXT), () => 2_000_000_000);
    expect(jar.size).toBe(7);
    expect(jar.headerFor(new URL('https://www.youtube.com/youtubei/v1/player'))).toBe('SID=yt-session; __Secure-3PSID=yt-secure');
    expect(jar.headerFor(new URL('https://www.youtube.com/feed/history'))).toBe('FEED=only-feed; SID=yt-session; __Secure-3PSID=yt-secure');
    // Secure cookies never go over plain http; FEED is host-only.
    expect(jar.headerFor(new URL('http://m.youtube.com/feed/x'))).toBeUndefined();
    expect(jar.headerFor(new URL('https://www.example.com/'))).toBeUndefined();
    expect(jar.headerFor(new URL('https://notyoutube.com/'))).toBeUndefined();
    expect(jar.value('https://x.com/i/api/graphql', 'ct0')).toBe('csrf-token-value');
    expect(jar.value('https://x.com/', 'missing')).toBeUndefined();
  });
});

describe('GLEANER_COOKIES_FILE', () => {
  let origin: http.Server;
  let originUrl: string;
  const seen: Array<{ host: string; cookie?: string }> = [];
  let file: string;

  beforeAll(async () => {
    origin = http.createServer((req, res) => {
      seen.push({ host: String(req.headers['x-forwarded-host'] ?? req.headers.host), cookie: req.headers.cookie });
      res.end('ok');
    });
    origin.listen(0, '127.0.0.1');
    await once(origin, 'listening');
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-cookies-')), 'cookies.txt');
    fs.writeFileSync(file, COOKIES_TXT);
  });
  afterAll(() => {
    origin.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('sends the matching cookies to platform hosts only, never to another site or across a redirect', async () => {
    const overrides = ['youtube.com', 'x.com', 'example.com'].map((host) => ({ host, origin: originUrl }));
    const client = new HttpClient({ overrides, cookies: CookieJar.fromFile(file) });
    // The adapters' own requests ask for the operator's credentials.
    await client.fetch('https://www.youtube.com/watch?v=x', { credentials: true });
    await client.fetch('https://x.com/home', { credentials: true });
    await client.fetch('https://www.example.com/', { credentials: true });
    // A caller's own Cookie header wins.
    await client.fetch('https://www.youtube.com/', { headers: { Cookie: 'own=1' }, credentials: true });
    expect(client.cookie('https://x.com/i/api/graphql', 'ct0')).toBe('csrf-token-value');
    expect(client.cookie('https://www.example.com/', 'TRACK')).toBeUndefined();
    expect(seen).toEqual([
      { host: 'www.youtube.com', cookie: 'SID=yt-session; __Secure-3PSID=yt-secure' },
      { host: 'x.com', cookie: 'ct0=csrf-token-value; auth_token=x-auth' },
      { host: 'www.example.com', cookie: undefined },
      { host: 'www.youtube.com', cookie: 'own=1' },
    ]);
    await client.close();
  });

  it('a missing file stops the start with a message naming the variable', () => {
    expect(() => CookieJar.fromFile(path.join(os.tmpdir(), 'no-such-cookies.txt'))).toThrow(/GLEANER_COOKIES_FILE/);
  });

  it('proxy settings are validated at start-up: one URL or a comma list', () => {
    expect(loadConfig({ GLEANER_PROXY_URL_YOUTUBE: 'http://a:1, http://user:pw@b:2' }).GLEANER_PROXY_URL_YOUTUBE).toBeDefined();
    expect(() => loadConfig({ GLEANER_PROXY_URL_X: 'http://a:1,not a url' })).toThrow(/GLEANER_PROXY_URL_X/);
  });
});
