/**
 * TikTok, Instagram, X and Facebook through the REST API: recorded real pages and API replies on
 * loopback (GLEANER_UPSTREAM_OVERRIDES sends the platform and CDN hosts there), generated media of
 * each post's recorded length behind the recorded CDN paths, and a loopback transcription server.
 * Chunks are 10 seconds here, so every AI transcript crosses chunk boundaries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { startChatServer, textOf } from '../support/chat-server.js';
import { usePlatformHarness } from '../support/platform-harness.js';
import { BUILTIN_PROFILE } from '../../src/profile/load.js';
import { fixture } from '../support/paths.js';


const harness = usePlatformHarness({ chunkSeconds: 10, hosts: ['tiktok.com', 'tiktokcdn-eu.com', 'instagram.com', 'cdninstagram.com', 'x.com', 'twimg.com', 'facebook.com', 'fbcdn.net'] });
const { credits, get } = harness;

const q = encodeURIComponent;

/** Offsets strictly increase and a segment starts at each chunk boundary. */
function expectStitched(content: Array<{ offset: number; duration: number }>, seconds: number) {
  const offsets = content.map((s) => s.offset);
  for (let i = 1; i < offsets.length; i++) expect(offsets[i]).toBeGreaterThan(offsets[i - 1]);
  for (let boundary = 10_000; boundary < seconds * 1000 - 1000; boundary += 10_000) {
    expect(offsets.some((o) => Math.abs(o - boundary) < 150), `a segment at ${boundary} ms`).toBe(true);
  }
  const last = content.at(-1)!;
  expect(last.offset + last.duration).toBeLessThanOrEqual(seconds * 1000 + 200);
}

describe('TikTok', () => {
  const pageUrl = 'https://www.tiktok.com/@illojuan/video/7571863205253778710';
  const page = fixture('tiktok/video_7571863205253778710.html');
  const item = JSON.parse(/<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>([\s\S]*?)<\/script>/.exec(page)![1]).__DEFAULT_SCOPE__['webapp.video-detail'].itemInfo.itemStruct;
  const subtitles = item.video.subtitleInfos as Array<{ Url: string; LanguageCodeName: string }>;
  // Built by this test (no TikTok WebVTT body is recorded anywhere): one body per recorded track.
  const vtt = (words: string[]) => `WEBVTT\n\n${words.map((w, i) => `00:00:${String(i * 2).padStart(2, '0')}.000 --> 00:00:${String(i * 2 + 2).padStart(2, '0')}.000\n${w}`).join('\n\n')}\n`;

  beforeAll(() => {
    harness.upstream.serveBody('/@illojuan/video/7571863205253778710', page, 'text/html; charset=utf-8', { 'set-cookie': ['tt_chain_token=chain123; Path=/; Domain=.tiktok.com; Expires=Wed, 01 Jan 2031 00:00:00 GMT', 'ttwid=1%7Cabc; Path=/'] });
    // The same page with its caption tracks removed (captionless videos have empty subtitleInfos and captionInfos).
    const bare = page.replace(/(<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>)([\s\S]*?)(<\/script>)/, (_m, open: string, json: string, close: string) => {
      const data = JSON.parse(json);
      const video = data.__DEFAULT_SCOPE__['webapp.video-detail'].itemInfo.itemStruct.video;
      video.subtitleInfos = [];
      video.claInfo.captionInfos = [];
      return `${open}${JSON.stringify(data)}${close}`;
    });
    harness.upstream.serveBody('/@illojuan/video/7571863205253778711', bare.replaceAll('7571863205253778710', '7571863205253778711'), 'text/html; charset=utf-8');
    harness.upstream.serveBody(new URL(subtitles.find((s) => s.LanguageCodeName === 'spa-ES')!.Url).pathname, vtt(['Hola a todos', 'esto es un menú nuevo', 'hasta luego']), 'text/vtt');
    harness.upstream.serveBody(new URL(subtitles.find((s) => s.LanguageCodeName === 'eng-US')!.Url).pathname, vtt(['Hello everyone', 'this is a new menu', 'see you']), 'text/vtt');
    const clip = harness.media.make('tiktok.mp4', item.video.duration);
    for (const rendition of item.video.bitrateInfo) for (const u of rendition.PlayAddr.UrlList) harness.upstream.serve(new URL(u).pathname, clip, 'video/mp4');
    harness.upstream.serveBody('/@someone/video/7000000000000000001', page.replace(/"webapp.video-detail":\{"itemInfo":\{[\s\S]*?"statusCode":0/, '"webapp.video-detail":{"statusCode":10222'), 'text/html');
  });

  it('gives unified metadata from the recorded page', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q(pageUrl)}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'tiktok',
      id: '7571863205253778710',
      url: pageUrl,
      author: { name: 'IlloJuan', handle: 'illojuan', id: '6781206617314018309', url: 'https://www.tiktok.com/@illojuan' },
      counts: { views: 192100, likes: 25500, comments: 146, shares: 2156, saves: 1311 },
      durationSeconds: 64,
      publishedAt: new Date(1762961788 * 1000).toISOString(),
    });
    expect(reply.body.description).toContain('Mystery King');
    expect(reply.body.title).toMatch(/^La nueva locurilla/);
    expect(reply.body.thumbnails[0]).toMatchObject({ width: 576, height: 1024 });
  });

  it('uses the published captions in the spoken language for 1 credit, and another track on request', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/tiktok/transcript?url=${q(pageUrl)}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ lang: 'es-ES', aiGenerated: false, availableLangs: ['en-US', 'es-ES'], platform: 'tiktok', videoId: '7571863205253778710' });
    expect(reply.body.durationMinutes).toBeCloseTo(64 / 60, 2);
    expect(reply.body.content[1]).toEqual({ text: 'esto es un menú nuevo', offset: 2000, duration: 2000, lang: 'es-ES' });
    const english = await get(`/v1/shortclip/transcript?url=${q(pageUrl)}&lang=en&timestamps=false`, key);
    expect(english.body.lang).toBe('en-US');
    expect(english.body.content[0]).toEqual({ text: 'Hello everyone', lang: 'en-US' });
    expect(harness.stt.calls).toHaveLength(0);
    const captionRequest = harness.upstream.log.find((r) => r.path === new URL(subtitles[0].Url).pathname)!;
    expect(captionRequest.headers.cookie).toContain('tt_chain_token=chain123');
  });

  it('transcribes a video without captions through the pipeline, with the page\'s cookies and Referer', async () => {
    const key = await harness.server.createKey('Free', { credits: 100 });
    const reply = await get(`/v1/tiktok/transcript?url=${q('https://www.tiktok.com/@illojuan/video/7571863205253778711')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, lang: 'en', platform: 'tiktok' });
    expect(reply.body.durationMinutes).toBeCloseTo(64 / 60, 1);
    expect(reply.headers.get('x-credits-used')).toBe('4');
    expect(harness.stt.calls).toHaveLength(7);
    expectStitched(reply.body.content, 64);
    const mediaRequest = harness.upstream.log.find((r) => r.path.startsWith('/video/tos/'))!;
    expect(mediaRequest.headers.referer).toBe('https://www.tiktok.com/');
  });

  it('says a private video is unavailable (4xx), charging nothing', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/tiktok/transcript?url=${q('https://www.tiktok.com/@someone/video/7000000000000000001')}`, key);
    expect(reply.status).toBe(403);
    expect(reply.body.error.code).toBe('CONTENT_UNAVAILABLE');
    expect(reply.body.error.message).toContain('private');
    const missing = await get(`/v1/tiktok/transcript?url=${q('https://www.tiktok.com/@nobody/video/7000000000000000002')}`, key);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CONTENT_NOT_FOUND');
    expect(await credits(key)).toBe(10);
  });

  it('translate through the universal transcript picks the platform\'s translated track, and refuses a language it lacks for free', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const english = await get(`/v1/transcript?url=${q(pageUrl)}&translate=en`, key);
    expect(english.status, JSON.stringify(english.body)).toBe(200);
    expect(english.body).toMatchObject({ lang: 'en-US', translatedTo: 'en-US', aiGenerated: false });
    const french = await get(`/v1/transcript?url=${q(pageUrl)}&translate=fr`, key);
    expect(french.status).toBe(404);
    expect(french.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    expect(await credits(key)).toBe(9);
  });

  it('translate into a language TikTok lacks uses a language model where one is configured, keeping timing', async () => {
    const chat = await startChatServer();
    chat.script((call) => {
      const list = JSON.parse(/(\[\{"i":0,.*\}\])/.exec(textOf(call.messages[1]))![1]) as Array<{ i: number; text: string }>;
      return JSON.stringify({ segments: list.map(({ i, text }) => ({ i, text: `[fr] ${text}` })) });
    });
    const hosts = ['tiktok.com', 'tiktokcdn-eu.com'];
    const withModel = await startTestServer({
      env: { GLEANER_STT_URL: harness.stt.url, GLEANER_LLM_URL: chat.url, GLEANER_UPSTREAM_OVERRIDES: hosts.map((h) => `${h}=${harness.upstream.origin}`).join(',') },
    });
    try {
      const key = await withModel.createKey('Free', { credits: 100 });
      const reply = await withModel.request('GET', `/v1/transcript?url=${q(pageUrl)}&translate=fr`, { apiKey: key });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toMatchObject({ lang: 'fr', translatedTo: 'fr', translatedBy: 'ai', aiGenerated: false });
      expect(reply.body.content).toEqual([
        { text: '[fr] Hola a todos', offset: 0, duration: 2000, lang: 'fr' },
        { text: '[fr] esto es un menú nuevo', offset: 2000, duration: 2000, lang: 'fr' },
        { text: '[fr] hasta luego', offset: 4000, duration: 2000, lang: 'fr' },
      ]);
      // 1 for the captions, 30 per started minute of the 64-second video for the translation.
      expect(reply.headers.get('x-credits-used')).toBe(String(1 + 30 * 2));
    } finally {
      await withModel.close();
      await chat.close();
    }
  });

  it('is reached by video_transcript too, which hands platform URLs to their adapter', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/video/transcript?url=${q(pageUrl)}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: false, lang: 'es-ES', platform: 'tiktok' });
    expect(reply.headers.get('x-credits-used')).toBe('1');
  });

  it('refuses a URL of another platform on the TikTok route', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/tiktok/transcript?url=${q('https://example.com/video.mp4')}`, key);
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('UNSUPPORTED_URL');
  });
});

describe('Instagram', () => {
  const videoPage = fixture('instagram/p_CPQjO5RIIO9.html');
  const videoUrl = /property="og:video"\s+content="([^"]+)"/.exec(videoPage)![1].replaceAll('&amp;', '&');

  beforeAll(() => {
    harness.upstream.serveBody('/p/CPQjO5RIIO9/', videoPage, 'text/html; charset=utf-8');
    harness.upstream.serveBody('/reel/CN2VQ1yI_MA/', fixture('instagram/reel_CN2VQ1yI_MA.html'), 'text/html; charset=utf-8');
    harness.upstream.serveBody('/p/CPeC-Eenc8l/', fixture('instagram/p_CPeC-Eenc8l.html'), 'text/html; charset=utf-8');
    harness.upstream.serve(new URL(videoUrl).pathname, harness.media.make('instagram.mp4', 45), 'video/mp4');
  });

  it('gives unified metadata from the recorded post page', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.instagram.com/p/CPQjO5RIIO9/?igsh=abc')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'instagram',
      id: 'CPQjO5RIIO9',
      url: 'https://www.instagram.com/p/CPQjO5RIIO9/',
      author: { name: 'Jaime Lorente', handle: 'jaimelorentelo', id: '287586402' },
      counts: { likes: 990_000, comments: 8873 },
      publishedAt: '2021-05-24',
      title: 'Llega el final....🔥🔥🔥🔥',
    });
    expect(reply.body.description).toContain('@netflixes');
    expect(reply.body.thumbnails[0]).toMatchObject({ width: 640, height: 355 });
    const reel = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/CN2VQ1yI_MA/')}`, key);
    expect(reel.body).toMatchObject({ platform: 'instagram', id: 'CN2VQ1yI_MA', counts: { likes: 152_000, comments: 784 }, publishedAt: '2021-04-19', description: null });
  });

  it('transcribes the post\'s video through the pipeline, chunk offsets stitched', async () => {
    const key = await harness.server.createKey('Free', { credits: 100 });
    const reply = await get(`/v1/photogram/transcript?url=${q('https://www.instagram.com/jaimelorentelo/p/CPQjO5RIIO9/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'instagram', videoId: 'CPQjO5RIIO9', lang: 'en' });
    expect(reply.body.durationMinutes).toBeCloseTo(0.75, 1);
    expect(reply.headers.get('x-credits-used')).toBe('2');
    expect(harness.stt.calls).toHaveLength(5);
    expectStitched(reply.body.content, 45);
  });

  it('says why a photo post or a reel without a video URL cannot be transcribed, charging nothing', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const photo = await get(`/v1/instagram/transcript?url=${q('https://www.instagram.com/p/CPeC-Eenc8l/')}`, key);
    expect(photo.status).toBe(404);
    expect(photo.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    expect(photo.body.error.message).toContain('photo');
    const reel = await get(`/v1/instagram/transcript?url=${q('https://www.instagram.com/reel/CN2VQ1yI_MA/')}`, key);
    expect(reel.status).toBe(403);
    expect(reel.body.error.code).toBe('CONTENT_UNAVAILABLE');
    const gone = await get(`/v1/instagram/transcript?url=${q('https://www.instagram.com/p/Nonexistent1/')}`, key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('CONTENT_NOT_FOUND');
    expect(await credits(key)).toBe(10);
    expect(harness.stt.calls).toHaveLength(0);
  });
});

describe('X', () => {
  // The query id the built-in platform profile sends (X changes it; the profile follows).
  const QUERY = `/graphql/${BUILTIN_PROFILE.x.tweetQueryId}/TweetResultByRestId`;
  const recorded = new Set(['1841206275088290279', '1848831595014459513', '1899954694652309701', '20']);
  const video = JSON.parse(fixture('x/TweetResultByRestId__1841206275088290279.json')).data.tweetResult.result.legacy.extended_entities.media[0].video_info;
  let activations = 0;

  beforeAll(() => {
    // Built by this test: no guest/activate.json reply is recorded; this is its documented shape.
    harness.upstream.route('/1.1/guest/activate.json', (_url, req) => {
      activations++;
      return req.method === 'POST' && req.headers.authorization?.startsWith('Bearer ') ? { body: JSON.stringify({ guest_token: '1900000000000000001' }) } : { status: 403, body: '{}' };
    });
    harness.upstream.route(QUERY, (url, req) => {
      if (req.headers['x-guest-token'] !== '1900000000000000001') return { status: 403, body: JSON.stringify({ errors: [{ message: 'Bad guest token' }] }) };
      const id = JSON.parse(url.searchParams.get('variables')!).tweetId as string;
      if (recorded.has(id)) return { body: fixture(`x/TweetResultByRestId__${id}.json`) };
      // Built by this test, in the recorded reply's format: a protected post, and a missing one.
      if (id === '1111111111111111111') return { body: JSON.stringify({ data: { tweetResult: { result: { __typename: 'TweetUnavailable', reason: 'Protected' } } } }) };
      return { body: JSON.stringify({ data: { tweetResult: {} } }) };
    });
    const lightest = [...video.variants].filter((v: { bitrate?: number }) => v.bitrate).sort((a: { bitrate: number }, b: { bitrate: number }) => a.bitrate - b.bitrate)[0];
    harness.upstream.serve(new URL(lightest.url).pathname, harness.media.make('x.mp4', video.duration_millis / 1000), 'video/mp4');
  });

  it('gives unified metadata from the recorded GraphQL reply, after getting a guest token', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://twitter.com/DivineDropbear/status/1841206275088290279?s=20')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'twitter',
      type: 'video',
      id: '1841206275088290279',
      url: 'https://x.com/DivineDropbear/status/1841206275088290279',
      author: { name: 'Tranquility Found', handle: 'DivineDropbear', id: '974067190386147329', url: 'https://x.com/DivineDropbear' },
      counts: { views: 4186, likes: 296, comments: 2, shares: 69, saves: 7 },
      durationSeconds: 29.626,
      publishedAt: '2024-10-01T19:59:18.000Z',
      language: 'en',
      title: 'Sulphur-crested Cockatoo enjoying the warm Brisbane breeze...',
    });
    expect(reply.body.tags).toEqual(['birds', 'birdwatching', 'birding', 'WildOz', 'birdphotography', 'birdsofaustralia', 'cockatoo']);
    expect(reply.body.description).not.toContain('https://t.co/');
    expect(reply.body.thumbnails[0]).toMatchObject({ width: 1920, height: 1080 });
    expect(activations).toBeGreaterThanOrEqual(1);
  });

  it('transcribes the post\'s lightest MP4 through the pipeline', async () => {
    const key = await harness.server.createKey('Free', { credits: 100 });
    const reply = await get(`/v1/microblog/transcript?url=${q('https://x.com/DivineDropbear/status/1841206275088290279/video/1')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'x', videoId: '1841206275088290279' });
    expect(reply.body.durationMinutes).toBeCloseTo(29.626 / 60, 2);
    expect(reply.headers.get('x-credits-used')).toBe('2');
    expect(harness.stt.calls).toHaveLength(3);
    expectStitched(reply.body.content, 29.626);

    // The speech-to-text result is kept: asking again transcribes nothing and costs 1 credit.
    const again = await get(`/v1/x/transcript?url=${q('https://twitter.com/DivineDropbear/status/1841206275088290279')}&timestamps=false`, key);
    expect(again.body).toMatchObject({ aiGenerated: true, cached: true, platform: 'x' });
    expect(again.body.content[0]).toEqual({ text: reply.body.content[0].text, lang: reply.body.content[0].lang });
    expect(again.headers.get('x-credits-used')).toBe('1');
    expect(harness.stt.calls).toHaveLength(3);
  });

  it('says a post without video, a protected post and a deleted one apart, charging nothing', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const photos = await get(`/v1/x/transcript?url=${q('https://x.com/a/status/1848831595014459513')}`, key);
    expect(photos.status).toBe(404);
    expect(photos.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    const text = await get(`/v1/metadata?url=${q('https://x.com/jack/status/20')}`, key);
    expect(text.body).toMatchObject({ platform: 'twitter', type: 'post', id: '20', description: 'just setting up my twttr', author: { handle: 'jack', username: 'jack' }, media: { type: 'post', text: 'just setting up my twttr' } });
    const locked = await get(`/v1/x/transcript?url=${q('https://x.com/someone/status/1111111111111111111')}`, key);
    expect(locked.status).toBe(403);
    expect(locked.body.error.code).toBe('CONTENT_UNAVAILABLE');
    expect(locked.body.error.message).toContain('protected');
    const gone = await get(`/v1/x/transcript?url=${q('https://x.com/someone/status/2222222222222222222')}`, key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('CONTENT_NOT_FOUND');
    expect(await credits(key)).toBe(9);
  });
});

describe('Facebook', () => {
  const videosPage = fixture('facebook/m.facebook.com_videos_387081299304444.html');
  const captionedPage = fixture('facebook/m.facebook.com_videos_286348296528911.html');
  const src = (html: string) => new URL(/og:video" content="([^"]+)"/.exec(html)![1].replaceAll('&amp;', '&'));
  const srtUrl = new URL(/subtitlesSrc&quot;:&quot;(https:[^&]+?\.srt)/.exec(captionedPage)![1].replaceAll('\\/', '/'));

  beforeAll(() => {
    harness.upstream.serveBody('/Nintendo/videos/387081299304444/', videosPage, 'text/html; charset=utf-8');
    harness.upstream.serveBody('/Nintendo/videos/286348296528911/', captionedPage, 'text/html; charset=utf-8');
    const watch = fixture('facebook/m.facebook.com_watch_387081299304444.html');
    harness.upstream.route('/watch/', (url) => (url.searchParams.get('v') === '387081299304444' ? { type: 'text/html; charset=utf-8', body: watch } : { status: 404, type: 'text/html', body: '<html>not found</html>' }));
    harness.upstream.serve(src(videosPage).pathname, harness.media.make('facebook.mp4', 18), 'video/mp4');
    // Built by this test: no Facebook .srt body is recorded.
    harness.upstream.serveBody(srtUrl.pathname, '1\n00:00:01,000 --> 00:00:03,500\nWelcome to Nintendo Monthly Rewind\n\n2\n00:00:03,500 --> 00:00:06,000\nour official recap of the news\n', 'application/x-subrip');
  });

  it('gives unified metadata from the recorded /videos/ page (JSON-LD, player settings, OpenGraph)', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.facebook.com/Nintendo/videos/387081299304444/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'facebook',
      id: '387081299304444',
      url: 'https://www.facebook.com/Nintendo/videos/387081299304444/',
      title: 'Nintendo - Which enemy from a Nintendo game are you most...',
      author: { name: 'Nintendo', handle: 'Nintendo', url: 'https://www.facebook.com/Nintendo' },
      counts: { views: 29178, likes: 351, shares: 22, comments: 408 },
      durationSeconds: 18,
      publishedAt: '2021-06-03T18:00:04.000Z',
      language: 'en',
    });
    expect(reply.body.tags).toContain('Games, Puzzles, & Play');
    expect(reply.body.tags).toContain('Nintendo');
    expect(reply.body.thumbnails[0]).toMatchObject({ width: 1920, height: 1080 });
  });

  it('reads the /watch/?v= page too, where the player settings are escaped inside a script', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.facebook.com/watch/?v=387081299304444')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ platform: 'facebook', id: '387081299304444', author: { name: 'Nintendo', handle: 'Nintendo' } });
    expect(reply.body.description).toMatch(/^Which enemy from a Nintendo game/);
  });

  it('transcribes a video without captions through the pipeline', async () => {
    const key = await harness.server.createKey('Free', { credits: 100 });
    const reply = await get(`/v1/social/transcript?url=${q('https://www.facebook.com/watch/?v=387081299304444')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'facebook', videoId: '387081299304444' });
    expect(reply.body.durationMinutes).toBeCloseTo(0.3, 2);
    expect(reply.headers.get('x-credits-used')).toBe('2');
    expect(harness.stt.calls).toHaveLength(2);
    expectStitched(reply.body.content, 18);
  });

  it('uses the video\'s SubRip captions where it has them, for 1 credit', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/facebook/transcript?url=${q('https://m.facebook.com/Nintendo/videos/286348296528911/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ aiGenerated: false, lang: 'en', availableLangs: ['en'], platform: 'facebook', videoId: '286348296528911' });
    expect(reply.body.durationMinutes).toBeCloseTo(238 / 60, 2);
    expect(reply.body.content).toEqual([
      { text: 'Welcome to Nintendo Monthly Rewind', offset: 1000, duration: 2500, lang: 'en' },
      { text: 'our official recap of the news', offset: 3500, duration: 2500, lang: 'en' },
    ]);
    expect(harness.stt.calls).toHaveLength(0);
  });

  it('needs no speech-to-text provider for captions on any route; without captions it is NOT_CONFIGURED, free', async () => {
    const noStt = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: ['facebook.com', 'fbcdn.net'].map((h) => `${h}=${harness.upstream.origin}`).join(',') } });
    try {
      const key = await noStt.createKey('Free', { credits: 10 });
      const url = q('https://m.facebook.com/Nintendo/videos/286348296528911/');
      for (const route of ['/v1/social/transcript', '/v1/facebook/transcript', '/v1/transcript']) {
        const reply = await noStt.request('GET', `${route}?url=${url}`, { apiKey: key });
        expect(reply.status, `${route}: ${JSON.stringify(reply.body)}`).toBe(200);
        expect(reply.body).toMatchObject({ aiGenerated: false, platform: 'facebook' });
      }
      const uncaptioned = await noStt.request('GET', `/v1/social/transcript?url=${q('https://www.facebook.com/watch/?v=387081299304444')}`, { apiKey: key });
      expect(uncaptioned.body.error?.code).toBe('NOT_CONFIGURED');
      expect((await noStt.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(7);
    } finally {
      await noStt.close();
    }
  });

  it('says a missing video is not found, charging nothing', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/facebook/transcript?url=${q('https://www.facebook.com/watch/?v=123456789')}`, key);
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('CONTENT_NOT_FOUND');
    expect(await credits(key)).toBe(10);
  });
});

describe('the universal transcript', () => {
  it('routes each platform\'s URL to its adapter', async () => {
    const key = await harness.server.createKey('Free', { credits: 100 });
    const urls: Array<[string, string]> = [
      ['https://www.tiktok.com/@illojuan/video/7571863205253778710', 'tiktok'],
      ['https://www.instagram.com/p/CPQjO5RIIO9/', 'instagram'],
      ['https://twitter.com/DivineDropbear/status/1841206275088290279', 'x'],
      ['https://www.facebook.com/Nintendo/videos/387081299304444/', 'facebook'],
    ];
    for (const [url, platform] of urls) {
      const reply = await get(`/v1/transcript?url=${q(url)}`, key);
      expect(reply.status, `${url}: ${JSON.stringify(reply.body).slice(0, 200)}`).toBe(200);
      expect(reply.body.platform).toBe(platform);
      expect(reply.body.content.length).toBeGreaterThan(0);
    }
    const unsupported = await get(`/v1/transcript?url=${q('https://vimeo.com/76979871')}`, key);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error.code).toBe('UNSUPPORTED_URL');
    expect(unsupported.body.error.message).toMatch(/youtube.*tiktok.*instagram.*x.*facebook/);
  });
});
