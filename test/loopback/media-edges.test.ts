/**
 * Edges of the media operations not covered elsewhere: a video without an audio track, an
 * Instagram login wall, and a text file served under a media name. The Instagram login page and
 * the redirect to it are written by this test (no recording holds them).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let dir: string;
let upstream: http.Server;
let stt: http.Server;
let sttCalls = 0;
let server: TestServer;

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string }> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-edges-'));
  const silent = path.join(dir, 'silent.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=black:s=32x32:r=5:d=5', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', silent]);
  const site = await listen((req, res) => {
    const host = String(req.headers['x-forwarded-host'] ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (host === 'media.example' && url.pathname === '/silent.mp4') {
      const body = fs.readFileSync(silent);
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(body.length) }).end(body);
    } else if (host === 'media.example' && url.pathname === '/notes.mp4') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('These are meeting notes, not a video.\n'.repeat(50));
    } else if (host === 'www.instagram.com' && url.pathname === '/p/PRIVATEpost1/') {
      res.writeHead(302, { location: '/accounts/login/?next=%2Fp%2FPRIVATEpost1%2F' }).end();
    } else if (host === 'www.instagram.com' && url.pathname.startsWith('/accounts/login')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Login • Instagram</title></head><body></body></html>');
    } else {
      res.writeHead(404).end();
    }
  });
  upstream = site.server;
  const recognizer = await listen((req, res) => {
    sttCalls++;
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"","segments":[]}'));
  });
  stt = recognizer.server;
  server = await startTestServer({
    env: { GLEANER_STT_URL: `${recognizer.origin}/v1`, GLEANER_UPSTREAM_OVERRIDES: `media.example=${site.origin},instagram.com=${site.origin}` },
  });
});

afterAll(async () => {
  await server?.close();
  upstream?.close();
  stt?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const credits = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

describe('media edges', () => {
  it('a video without an audio track is UNSUPPORTED_CONTENT, before any speech to text or charge', async () => {
    const key = await server.createKey('Free');
    const reply = await server.request('GET', `/v1/video/transcript?url=${encodeURIComponent('https://media.example/silent.mp4')}`, { apiKey: key });
    expect(reply.status).toBe(415);
    expect(reply.body.error).toMatchObject({ code: 'UNSUPPORTED_CONTENT', message: expect.stringContaining('no audio track') });
    expect(sttCalls).toBe(0);
    expect(await credits(key)).toBe(100);
    expect(fs.readdirSync(path.join(server.dataDir, 'tmp'))).toEqual([]);
  });

  it('a text file named .mp4 is refused by its content, not taken for media by its name', async () => {
    const key = await server.createKey('Free');
    const reply = await server.request('GET', `/v1/video/transcript?url=${encodeURIComponent('https://media.example/notes.mp4')}`, { apiKey: key });
    expect(reply.status).toBe(415);
    expect(reply.body.error.code).toBe('UNSUPPORTED_CONTENT');
    expect(sttCalls).toBe(0);
    expect(await credits(key)).toBe(100);
  });

  // A wall no logged-out source gets past is a refusal of this server (cookies or another exit help), not of the post.
  it('an Instagram post behind the login wall is UPSTREAM_BLOCKED (503) naming the cookies file, free', async () => {
    const key = await server.createKey('Free');
    for (const route of ['/v1/instagram/transcript', '/v1/metadata']) {
      const reply = await server.request('GET', `${route}?url=${encodeURIComponent('https://www.instagram.com/p/PRIVATEpost1/')}`, { apiKey: key });
      expect({ route, status: reply.status, code: reply.body.error?.code }).toEqual({ route, status: 503, code: 'UPSTREAM_BLOCKED' });
      expect(reply.body.error.message).toContain('GLEANER_COOKIES_FILE');
    }
    expect(await credits(key)).toBe(100);
  });
});
