/**
 * One loopback server standing in for TikTok, Instagram, X, Facebook and their CDNs (reached through
 * GLEANER_UPSTREAM_OVERRIDES, told apart by X-Forwarded-Host), serving the recorded pages and API
 * replies in test/fixtures unchanged, and generated media wherever the recordings point at media.
 *
 * Built by this test, not recorded (no public recording holds them): the WebVTT and SRT caption
 * bodies, the X guest-token reply, and the "private" / "unavailable" variants of the pages and
 * replies (a recorded TikTok page with its status code set to 10222; X's TweetUnavailable shape).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TestMedia } from './media.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');
const read = (file: string) => fs.readFileSync(path.join(FIXTURES, file), 'utf8');

export const SPANISH_VTT = 'WEBVTT\n\n00:00:00.120 --> 00:00:03.400\nLa nueva locurilla de fin de año\n\n00:00:03.400 --> 00:00:07.050\nme he puesto un <b>uniforme</b> de trabajo\n';
export const ENGLISH_VTT = 'WEBVTT\n\n00:00.120 --> 00:03.400\nThe new end-of-year madness\n\n00:03.400 --> 00:07.050\nI put on a work uniform\n';
export const NINTENDO_SRT = '1\n00:00:00,500 --> 00:00:04,000\nWelcome to Nintendo Monthly Rewind\n\n2\n00:00:04,000 --> 00:00:09,250\nOur official recap of the news\n';

export interface UpstreamHit {
  host: string;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

export interface SocialUpstream {
  origin: string;
  overrides: string;
  hits: UpstreamHit[];
  /** Bytes of media sent per path. */
  mediaBytes: Map<string, number>;
  close(): Promise<void>;
}

function privateTiktokPage(): string {
  const page = read('tiktok/video_7571863205253778710.html');
  return page.replace(/(<script[^>]*id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>)([\s\S]*?)(<\/script>)/, (_m, open: string, json: string, close: string) => {
    const data = JSON.parse(json);
    data.__DEFAULT_SCOPE__['webapp.video-detail'] = { statusCode: 10222, statusMsg: 'author_secret' };
    return open + JSON.stringify(data) + close;
  });
}

export async function startSocialUpstream(media: TestMedia): Promise<SocialUpstream> {
  const hits: UpstreamHit[] = [];
  const mediaBytes = new Map<string, number>();
  const tiktokPrivate = privateTiktokPage();

  const sendFile = (req: http.IncomingMessage, res: http.ServerResponse, file: string, type: string) => {
    const size = fs.statSync(file).size;
    res.writeHead(200, { 'content-type': type, 'content-length': String(size) });
    if (req.method === 'HEAD') return void res.end();
    const key = new URL(req.url ?? '/', 'http://x').pathname;
    const stream = fs.createReadStream(file);
    stream.on('data', (chunk) => mediaBytes.set(key, (mediaBytes.get(key) ?? 0) + chunk.length));
    stream.pipe(res);
  };
  const text = (res: http.ServerResponse, status: number, type: string, body: string, headers: Record<string, string | string[]> = {}) => {
    res.writeHead(status, { 'content-type': type, ...headers }).end(body);
  };

  const server = http.createServer((req, res) => {
    const host = String(req.headers['x-forwarded-host'] ?? req.headers.host ?? '').toLowerCase();
    const url = new URL(req.url ?? '/', 'http://upstream');
    hits.push({ host, method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers });
    const p = url.pathname;

    // TikTok
    if (host === 'www.tiktok.com' && p.includes('/video/7571863205253778710')) {
      return text(res, 200, 'text/html; charset=utf-8', read('tiktok/video_7571863205253778710.html'), {
        'set-cookie': ['tt_chain_token=chain123; Path=/; Domain=.tiktok.com; Expires=Wed, 01 Jan 2031 00:00:00 GMT; HttpOnly', 'ttwid=1%7Cabc; Path=/; Secure'],
      });
    }
    if (host === 'www.tiktok.com' && p.includes('/video/7000000000000000001')) return text(res, 200, 'text/html; charset=utf-8', tiktokPrivate);
    if (host.endsWith('tiktok.com') && p.startsWith('/video/tos/')) {
      if (!String(req.headers.cookie ?? '').includes('tt_chain_token=chain123')) return text(res, 403, 'text/plain', 'no chain token');
      return sendFile(req, res, media.shortMp4, 'video/mp4');
    }
    if (host.endsWith('tiktokcdn-eu.com')) {
      if (p.startsWith('/af734c8276991f7e2e0b868a')) return text(res, 200, 'text/vtt', SPANISH_VTT);
      if (p.startsWith('/45fd6d87c5fb9c4ec92a559a')) return text(res, 200, 'text/vtt', ENGLISH_VTT);
      return text(res, 404, 'text/plain', 'no such object');
    }

    // Instagram
    if (host === 'www.instagram.com') {
      if (p === '/p/CPQjO5RIIO9/') return text(res, 200, 'text/html; charset=utf-8', read('instagram/p_CPQjO5RIIO9.html'));
      if (p === '/p/CPeC-Eenc8l/') return text(res, 200, 'text/html; charset=utf-8', read('instagram/p_CPeC-Eenc8l.html'));
      if (p === '/p/PRIVATEpost1/') return text(res, 302, 'text/html', '', { location: '/accounts/login/?next=%2Fp%2FPRIVATEpost1%2F' });
      if (p.startsWith('/accounts/login')) return text(res, 200, 'text/html', '<html><head><title>Login • Instagram</title></head><body></body></html>');
      return text(res, 404, 'text/html', '<html><body>Sorry, this page isn\'t available.</body></html>');
    }
    if (host.endsWith('cdninstagram.com')) return sendFile(req, res, media.shortMp4, 'video/mp4');

    // X
    if (host === 'api.x.com' && p === '/1.1/guest/activate.json') {
      if (req.method !== 'POST' || !String(req.headers.authorization ?? '').startsWith('Bearer AAAA')) return text(res, 403, 'application/json', '{"errors":[{"code":200}]}');
      return text(res, 200, 'application/json', '{"guest_token":"1855555555555555555"}');
    }
    if (host === 'x.com' && p.endsWith('/TweetResultByRestId')) {
      if (req.headers['x-guest-token'] !== '1855555555555555555') return text(res, 403, 'application/json', '{"errors":[{"message":"Bad guest token"}]}');
      const id = JSON.parse(url.searchParams.get('variables') ?? '{}').tweetId as string;
      if (id === '1841206275088290279' || id === '20') return text(res, 200, 'application/json', read(`x/TweetResultByRestId__${id}.json`));
      if (id === '1111111111111111111') return text(res, 200, 'application/json', '{"data":{"tweetResult":{"result":{"__typename":"TweetUnavailable","reason":"Protected"}}}}');
      return text(res, 200, 'application/json', '{"data":{"tweetResult":{}}}');
    }
    if (host === 'video.twimg.com') return sendFile(req, res, media.shortMp4, 'video/mp4');

    // Facebook
    if (host === 'm.facebook.com') {
      const id = /\/videos\/(\d+)/.exec(p)?.[1] ?? url.searchParams.get('v');
      if (id === '286348296528911' || id === '387081299304444') return text(res, 200, 'text/html; charset=utf-8', read(`facebook/m.facebook.com_videos_${id}.html`));
      return text(res, 404, 'text/html', '<html><body>This content isn\'t available right now</body></html>');
    }
    if (host.endsWith('fbcdn.net')) {
      if (p.endsWith('.srt')) return text(res, 200, 'application/x-subrip', NINTENDO_SRT);
      return sendFile(req, res, media.shortMp4, 'video/mp4');
    }

    // Direct files
    if (host === 'cdn.example.com') {
      if (p === '/talk.mp4') return sendFile(req, res, media.shortMp4, 'video/mp4');
      if (p.startsWith('/long')) return sendFile(req, res, media.longMp3, 'audio/mpeg');
      if (p === '/silent.mp4') return sendFile(req, res, media.silentMp4, 'video/mp4');
      if (p === '/stream.bin') return sendFile(req, res, media.shortMp4, 'application/octet-stream');
      if (p === '/huge.mp4') {
        // Announces 2 GB, sends a little, and waits: the client must give up on the header alone.
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(2 * 1024 * 1024 * 1024) });
        res.write(Buffer.alloc(64 * 1024));
        mediaBytes.set(p, 64 * 1024);
        return;
      }
      if (p === '/page.html' || p === '/disguised.mp4') return text(res, 200, 'text/html; charset=utf-8', '<!doctype html><html><head><title>Not a video</title></head><body><p>Hello</p></body></html>');
      if (p === '/noise.mp4') return text(res, 200, 'video/mp4', 'x'.repeat(50_000));
      if (p.startsWith('/hls/')) {
        const file = path.join(media.hlsDir, path.basename(p));
        if (!fs.existsSync(file)) return text(res, 404, 'text/plain', 'missing');
        return sendFile(req, res, file, file.endsWith('.m3u8') ? 'application/vnd.apple.mpegurl' : 'video/mp2t');
      }
      return text(res, 404, 'text/plain', 'missing');
    }
    return text(res, 404, 'text/plain', `no route for ${host}${p}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hosts = ['tiktok.com', 'tiktokcdn-eu.com', 'instagram.com', 'cdninstagram.com', 'x.com', 'twitter.com', 'twimg.com', 'facebook.com', 'fbcdn.net', 'cdn.example.com'];
  return {
    origin,
    overrides: hosts.map((host) => `${host}=${origin}`).join(','),
    hits,
    mediaBytes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
