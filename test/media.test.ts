/**
 * Speech to text end to end through REST: recorded TikTok, Instagram, X and Facebook pages and
 * replies on loopback, generated media (ffmpeg + espeak-ng) where they point at media, and a
 * loopback OpenAI-compatible transcription server that checks it receives real audio.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { makeTestMedia, startSttServer, type SttServer, type TestMedia } from './support/media.js';
import { startSocialUpstream, type SocialUpstream } from './support/social-upstream.js';
import { youtubeSpeechFallback } from '../src/operations/media-transcripts.js';
import type { OperationContext } from '../src/operations/define.js';

let media: TestMedia;
let upstream: SocialUpstream;
let stt: SttServer;
/** 20-second pieces, so a 64-second video crosses three boundaries. */
let server: TestServer;
/** The default 10-minute pieces, for the 25-minute file. */
let longServer: TestServer;

beforeAll(async () => {
  media = await makeTestMedia();
  [upstream, stt] = await Promise.all([startSocialUpstream(media), startSttServer()]);
  const env = { GLEANER_UPSTREAM_OVERRIDES: upstream.overrides, GLEANER_STT_URL: stt.url, GLEANER_STT_API_KEY: 'stt-secret', GLEANER_STT_MODEL: 'whisper-test' };
  [server, longServer] = await Promise.all([
    startTestServer({ env: { ...env, GLEANER_STT_CHUNK_SECONDS: '20' } }),
    startTestServer({ env: { ...env, GLEANER_STT_CONCURRENCY: '3' } }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.close(), longServer?.close(), upstream?.close(), stt?.close()]);
  fs.rmSync(media.dir, { recursive: true, force: true });
});

async function credits(target: TestServer, key: string): Promise<number> {
  return (await target.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
}

const get = (target: TestServer, route: string, url: string, key: string, extra = '') =>
  target.request('GET', `${route}?url=${encodeURIComponent(url)}${extra}`, { apiKey: key });

/** Segments of an AI transcript: increasing offsets, crossing the piece boundaries, ending at the media's end. */
function expectStitched(content: Array<{ offset: number; duration: number; text: string }>, seconds: number, chunkSeconds: number) {
  const offsets = content.map((s) => s.offset);
  expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  expect(new Set(offsets).size).toBe(offsets.length);
  const last = content[content.length - 1];
  expect(last.offset + last.duration).toBeGreaterThan((seconds - 1) * 1000);
  expect(last.offset + last.duration).toBeLessThanOrEqual((seconds + 0.2) * 1000);
  // Each piece's first segment sits at that piece's start on the media's timeline.
  for (let k = 1; k * chunkSeconds < seconds; k++) {
    expect(content.some((s) => Math.abs(s.offset - k * chunkSeconds * 1000) <= 100)).toBe(true);
  }
}

function tmpEntries(target: TestServer): string[] {
  const dir = path.join(target.dataDir, 'tmp');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('unified metadata from recorded pages', () => {
  it('TikTok: author, counts, duration, date, language and media from __UNIVERSAL_DATA_FOR_REHYDRATION__', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/metadata', 'https://www.tiktok.com/@illojuan/video/7571863205253778710', key);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    const m = reply.body;
    expect(m).toMatchObject({
      platform: 'tiktok',
      id: '7571863205253778710',
      url: 'https://www.tiktok.com/@illojuan/video/7571863205253778710',
      author: { name: 'IlloJuan', handle: '@illojuan', id: '6781206617314018309' },
      counts: { views: 192100, likes: 25500, comments: 146, shares: 2156, saves: 1311 },
      durationSeconds: 64,
      publishedAt: new Date(1762961788 * 1000).toISOString(),
      media: { type: 'video', durationSeconds: 64, width: 576, height: 1024 },
    });
    expect(m.description).toMatch(/^La nueva locurilla de fin de año/);
    expect(m.media.url).toMatch(/^https:\/\/v16-webapp-prime\.tiktok\.com\/video\/tos\//);
    expect(m.thumbnails[0].url).toMatch(/tiktokcdn-eu\.com/);
  });

  it('Instagram: likes, comments, handle, date and the og:video of a video post', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/metadata', 'https://www.instagram.com/p/CPQjO5RIIO9/', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'instagram',
      id: 'CPQjO5RIIO9',
      url: 'https://www.instagram.com/p/CPQjO5RIIO9/',
      author: { name: 'Jaime Lorente', handle: '@jaimelorentelo', id: '287586402' },
      counts: { likes: 990_000, comments: 8873 },
      publishedAt: '2021-05-24T00:00:00.000Z',
      media: { type: 'video', width: 640, height: 355 },
    });
    expect(reply.body.description).toMatch(/^Llega el final/);
    expect(reply.body.media.url).toMatch(/cdninstagram\.com\/.*\.mp4/);
  });

  it('X: text, author, counts, hashtags and the video of a post from TweetResultByRestId', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/metadata', 'https://x.com/DivineDropbear/status/1841206275088290279', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'x',
      id: '1841206275088290279',
      counts: { views: 4186, likes: 296, comments: 2, shares: 69, saves: 7 },
      durationSeconds: 29.626,
      publishedAt: '2024-10-01T19:59:18.000Z',
      language: 'en',
      media: { type: 'video', durationSeconds: 29.626, width: 1920, height: 1080 },
    });
    expect(reply.body.author.handle).toBe('@DivineDropbear');
    expect(reply.body.tags).toEqual(expect.arrayContaining(['birds', 'birdwatching', 'cockatoo']));
    expect(reply.body.description).toMatch(/^Sulphur-crested Cockatoo/);
    // The leanest mp4 variant: same audio, smallest download.
    expect(reply.body.media.url).toContain('/480x270/');
    const guest = upstream.hits.find((h) => h.host === 'api.x.com');
    expect(guest?.method).toBe('POST');
  });

  it('Facebook: title, author, counts, duration and date from the mobile page JSON-LD', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/metadata', 'https://www.facebook.com/Nintendo/videos/286348296528911/', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'facebook',
      id: '286348296528911',
      title: 'Nintendo Monthly Rewind – May 2021',
      author: { name: 'Nintendo', id: '119240841493711', url: 'https://www.facebook.com/Nintendo/' },
      counts: { views: 18900, likes: 342, comments: 44, shares: 25 },
      durationSeconds: 238,
      publishedAt: '2021-06-04T15:00:35.000Z',
      language: 'en',
    });
    expect(reply.body.media.url).toMatch(/fbcdn\.net\/.*\.mp4/);
  });
});

describe('platform transcripts', () => {
  it('TikTok: the ASR captions in the spoken language, 1 credit, not AI', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/tiktok/transcript', 'https://www.tiktok.com/@illojuan/video/7571863205253778710', key);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ lang: 'es-ES', aiGenerated: false, durationMinutes: 1.07, cached: false, availableLangs: ['en-US', 'es-ES'] });
    expect(reply.body.content).toEqual([
      { text: 'La nueva locurilla de fin de año', offset: 120, duration: 3280, lang: 'es-ES' },
      { text: 'me he puesto un uniforme de trabajo', offset: 3400, duration: 3650, lang: 'es-ES' },
    ]);
  });

  it('TikTok: a language without captions goes through speech to text with the page cookies; 4 credits for 64 s', async () => {
    const key = await server.createKey('Free');
    const before = stt.requests.length;
    const reply = await get(server, '/v1/shortclip/transcript', 'https://www.tiktok.com/@illojuan/video/7571863205253778710', key, '&lang=fr');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ lang: 'fr', aiGenerated: true, durationMinutes: 1.07, platform: 'tiktok' });
    expect(reply.headers.get('x-credits-used')).toBe('4');
    expect(await credits(server, key)).toBe(96);
    expectStitched(reply.body.content, 64, 20);
    const received = stt.requests.slice(before);
    expect(received).toHaveLength(4);
    expect(received.reduce((sum, r) => sum + r.seconds, 0)).toBeCloseTo(64, 0);
    for (const r of received) {
      expect(r.fields).toMatchObject({ model: ['whisper-test'], response_format: ['verbose_json'], 'timestamp_granularities[]': ['segment'], language: ['fr'] });
      expect(r.authorization).toBe('Bearer stt-secret');
      expect(r.seconds).toBeLessThanOrEqual(20.1);
    }
    const mediaHit = upstream.hits.find((h) => h.path.startsWith('/video/tos/'));
    expect(mediaHit?.headers.cookie).toContain('tt_chain_token=chain123');
    expect(mediaHit?.headers.referer).toBe('https://www.tiktok.com/@illojuan/video/7571863205253778710');

    // The same request again is served from the store.
    const again = await get(server, '/v1/tiktok/transcript', 'https://www.tiktok.com/@illojuan/video/7571863205253778710', key, '&lang=fr');
    expect(again.body.cached).toBe(true);
    expect(again.body.content).toEqual(reply.body.content);
    expect(stt.requests.length).toBe(before + 4);
  });

  it('Instagram: the og:video through speech to text; the provider detects the language', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/photogram/transcript', 'https://www.instagram.com/p/CPQjO5RIIO9/', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ lang: 'en', aiGenerated: true, durationMinutes: 1.07, platform: 'instagram', videoId: 'CPQjO5RIIO9' });
    expect(reply.headers.get('x-credits-used')).toBe('4');
    expectStitched(reply.body.content, 64, 20);
    expect(reply.body.content[0]).toMatchObject({ offset: 0, lang: 'en' });
  });

  it('X: the video of a post through speech to text', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/microblog/transcript', 'https://twitter.com/DivineDropbear/status/1841206275088290279?s=20', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, durationMinutes: 1.07, platform: 'x' });
    expectStitched(reply.body.content, 64, 20);
    expect(upstream.hits.some((h) => h.host === 'video.twimg.com' && h.path.includes('/480x270/'))).toBe(true);
  });

  it('Facebook: SRT captions where the page lists them (1 credit), speech to text where it does not', async () => {
    const key = await server.createKey('Free');
    const captions = await get(server, '/v1/facebook/transcript', 'https://www.facebook.com/Nintendo/videos/286348296528911/', key);
    expect(captions.status).toBe(200);
    expect(captions.headers.get('x-credits-used')).toBe('1');
    expect(captions.body).toMatchObject({ aiGenerated: false, lang: 'en', durationMinutes: 3.97 });
    expect(captions.body.content[1]).toEqual({ text: 'Our official recap of the news', offset: 4000, duration: 5250, lang: 'en' });

    const ai = await get(server, '/v1/social/transcript', 'https://m.facebook.com/watch/?v=387081299304444', key, '&timestamps=false');
    expect(ai.status).toBe(200);
    expect(ai.body).toMatchObject({ aiGenerated: true, durationMinutes: 1.07, platform: 'facebook' });
    expect(ai.body.content[0]).toEqual({ text: expect.stringContaining('words at 0s'), lang: 'en' });
    expect(ai.headers.get('x-credits-used')).toBe('4');
  });

  it('private, missing and media-less posts are clear 4xx errors and cost nothing', async () => {
    const key = await server.createKey('Free');
    const cases: Array<[string, string, number, string]> = [
      ['/v1/tiktok/transcript', 'https://www.tiktok.com/@someone/video/7000000000000000001', 403, 'CONTENT_UNAVAILABLE'],
      ['/v1/instagram/transcript', 'https://www.instagram.com/p/PRIVATEpost1/', 403, 'CONTENT_UNAVAILABLE'],
      ['/v1/instagram/transcript', 'https://www.instagram.com/p/CPeC-Eenc8l/', 404, 'TRANSCRIPT_UNAVAILABLE'],
      ['/v1/x/transcript', 'https://x.com/someone/status/1111111111111111111', 403, 'CONTENT_UNAVAILABLE'],
      ['/v1/x/transcript', 'https://x.com/someone/status/2222222222222222222', 404, 'CONTENT_NOT_FOUND'],
      ['/v1/x/transcript', 'https://x.com/jack/status/20', 404, 'TRANSCRIPT_UNAVAILABLE'],
      ['/v1/facebook/transcript', 'https://www.facebook.com/watch/?v=999999999999999', 404, 'CONTENT_NOT_FOUND'],
      ['/v1/tiktok/transcript', 'https://www.instagram.com/p/CPQjO5RIIO9/', 400, 'UNSUPPORTED_URL'],
    ];
    for (const [route, url, status, code] of cases) {
      const reply = await get(server, route, url, key);
      expect({ url, status: reply.status, code: reply.body.error?.code }).toEqual({ url, status, code });
      expect(reply.body.error.message.length).toBeGreaterThan(20);
    }
    expect(await credits(server, key)).toBe(100);
  });

  it('an AI transcript the balance cannot cover is refused and nothing is charged', async () => {
    const key = await server.createKey('Free', { credits: 3 });
    const reply = await get(server, '/v1/x/transcript', 'https://x.com/DivineDropbear/status/1841206275088290279', key, '&lang=de');
    expect(reply.status).toBe(402);
    expect(reply.body.error.code).toBe('CREDITS_EXHAUSTED');
    expect(await credits(server, key)).toBe(3);
  });

  it('the universal transcript and metadata routes reach every platform handler', async () => {
    const key = await server.createKey('Free');
    const tiktok = await get(server, '/v1/transcript', 'https://www.tiktok.com/@illojuan/video/7571863205253778710', key);
    expect(tiktok.body).toMatchObject({ platform: 'tiktok', aiGenerated: false });
    const file = await get(server, '/v1/metadata', 'https://cdn.example.com/talk.mp4', key);
    expect(file.body).toMatchObject({ platform: 'video', title: 'talk.mp4', media: { type: 'video' } });
  });
});

describe('video_transcript: direct media files', () => {
  it('a 25-minute file is cut into 10-minute pieces, transcribed concurrently and stitched; 50 credits', async () => {
    const key = await longServer.createKey('Pro');
    const before = stt.requests.length;
    stt.peakConcurrency = 0;
    const reply = await get(longServer, '/v1/video/transcript', 'https://cdn.example.com/long-a.mp3', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, durationMinutes: 25, lang: 'en', platform: 'video' });
    expect(reply.headers.get('x-credits-used')).toBe('50');
    expect(await credits(longServer, key)).toBe(3000 - 50);
    const received = stt.requests.slice(before);
    expect(received.map((r) => Math.round(r.seconds))).toEqual(expect.arrayContaining([600, 600, 300]));
    expect(received).toHaveLength(3);
    expect(stt.peakConcurrency).toBeGreaterThanOrEqual(2);
    expectStitched(reply.body.content, 1500.19, 600);
    expect(tmpEntries(longServer)).toEqual([]);
  }, 60_000);

  it('a failure of one piece fails the call, charges nothing and leaves no temporary files', async () => {
    const key = await longServer.createKey('Pro');
    stt.failRequest = stt.requests.length + 1;
    try {
      const reply = await get(longServer, '/v1/video/transcript', 'https://cdn.example.com/long-b.mp3', key);
      expect(reply.status).toBe(502);
      expect(reply.body.error.code).toBe('UPSTREAM_ERROR');
      expect(reply.body.error.message).toMatch(/Speech to text failed on part \d of 3: .*answered 500: model crashed/);
    } finally {
      stt.failRequest = undefined;
    }
    expect(await credits(longServer, key)).toBe(3000);
    expect(tmpEntries(longServer)).toEqual([]);
  }, 60_000);

  it('HLS: the master playlist leads to the audio rendition, whose segments are joined and transcribed', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/video/transcript', 'https://cdn.example.com/hls/master.m3u8', key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'video' });
    expect(reply.body.durationMinutes).toBeCloseTo(1.07, 1);
    expect(upstream.hits.some((h) => h.path === '/hls/video-missing.m3u8')).toBe(false);
  });

  it('content is judged by type and ffprobe, not the name: octet-stream media is read', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/video/transcript', 'https://cdn.example.com/stream.bin', key);
    expect(reply.status).toBe(200);
    expect(reply.body.durationMinutes).toBe(1.07);
  });

  it('a 2 GB file is refused from its Content-Length before its body is read', async () => {
    const key = await server.createKey('Free');
    const started = Date.now();
    const reply = await get(server, '/v1/video/transcript', 'https://cdn.example.com/huge.mp4', key);
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(reply.body.error.message).toMatch(/2048 MB.*1024 MB \(GLEANER_MEDIA_MAX_BYTES\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await credits(server, key)).toBe(100);
  });

  it('non-media URLs are refused early with a clear error, whatever their name says', async () => {
    const key = await server.createKey('Free');
    for (const [file, pattern] of [
      ['page.html', /not an audio or video file: the server answered with text\/html/],
      ['disguised.mp4', /not an audio or video file: the server answered with text\/html/],
      ['noise.mp4', /ffprobe found no audio or video/],
      ['silent.mp4', /no audio track/],
    ] as const) {
      const reply = await get(server, '/v1/video/transcript', `https://cdn.example.com/${file}`, key);
      expect({ file, status: reply.status, code: reply.body.error?.code }).toEqual({ file, status: 415, code: 'UNSUPPORTED_CONTENT' });
      expect(reply.body.error.message).toMatch(pattern);
    }
    expect(await credits(server, key)).toBe(100);
    expect(tmpEntries(server)).toEqual([]);
  });

  it('video_transcript hands platform URLs to their platform', async () => {
    const key = await server.createKey('Free');
    const reply = await get(server, '/v1/video/transcript', 'https://www.facebook.com/Nintendo/videos/286348296528911/', key);
    expect(reply.body).toMatchObject({ platform: 'facebook', aiGenerated: false });
  });
});

describe('YouTube without captions', () => {
  it('the fallback entry point transcribes the audio stream URL and reserves the minutes beyond the 1 already held', async () => {
    const key = await server.createKey('Free');
    const account = await server.app.services.accounts.authenticate(key);
    const reserved: number[] = [];
    const ctx: OperationContext = {
      account,
      requestId: 'yt-fallback',
      signal: new AbortController().signal,
      progress: () => undefined,
      log: server.app.log,
      services: server.app.services,
      reserveCredits: async (amount) => void reserved.push(amount),
    };
    const fallback = youtubeSpeechFallback(ctx);
    const produced = await fallback!({ videoId: 'dsMFmonKDD4', durationSeconds: 64, lang: 'en', audioUrl: 'https://cdn.example.com/talk.mp4' });
    expect(produced).toMatchObject({ videoId: 'dsMFmonKDD4', lang: 'en', aiGenerated: true, durationSeconds: 64, availableLangs: [] });
    expect(produced!.segments.length).toBeGreaterThan(4);
    expect(reserved).toEqual([3]);
    expect(await fallback!({ videoId: 'dsMFmonKDD4', durationSeconds: 64 })).toBeUndefined();
  });
});

describe('missing pieces are named with their fix', () => {
  it('without ffmpeg: NOT_CONFIGURED naming the install step and GLEANER_FFMPEG_PATH, nothing charged', async () => {
    const bare = await startTestServer({
      env: { GLEANER_UPSTREAM_OVERRIDES: upstream.overrides, GLEANER_STT_URL: stt.url, GLEANER_FFMPEG_PATH: '/nonexistent/bin/ffmpeg' },
    });
    try {
      const key = await bare.createKey('Free');
      const reply = await get(bare, '/v1/video/transcript', 'https://cdn.example.com/talk.mp4', key);
      expect(reply.status).toBe(503);
      expect(reply.body.error.code).toBe('NOT_CONFIGURED');
      expect(reply.body.error.message).toContain('apt-get install -y ffmpeg');
      expect(reply.body.error.message).toContain('GLEANER_FFMPEG_PATH');
      expect(await credits(bare, key)).toBe(100);
    } finally {
      await bare.close();
    }
  });

  it('without a speech-to-text provider: NOT_CONFIGURED naming GLEANER_STT_URL; captions still work', async () => {
    const bare = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: upstream.overrides } });
    try {
      const key = await bare.createKey('Free');
      const reply = await get(bare, '/v1/instagram/transcript', 'https://www.instagram.com/p/CPQjO5RIIO9/', key);
      expect(reply.status).toBe(503);
      expect(reply.body.error.code).toBe('NOT_CONFIGURED');
      expect(reply.body.error.message).toMatch(/GLEANER_STT_URL.*GLEANER_STT_API_KEY.*GLEANER_STT_MODEL/);
      expect(await credits(bare, key)).toBe(100);
      const captions = await get(bare, '/v1/tiktok/transcript', 'https://www.tiktok.com/@illojuan/video/7571863205253778710', key);
      expect(captions.body).toMatchObject({ aiGenerated: false, lang: 'es-ES' });
    } finally {
      await bare.close();
    }
  });
});
