/**
 * YouTube as it answers in 2026, served from loopback: WEB caption URLs marked exp=xpe that come
 * back empty without a PO token, WEB formats without URLs, other InnerTube clients clean.
 *
 * Recorded: the VISIONOS player reply of kX3nB4PpJko (NewPipe, 2026: 19 caption tracks, direct
 * audio URLs), the ANDROID reply of GJLlxj_dtq8 with exp=xpe on its English track (edited by
 * youtube-transcript-api's authors), the bot-check player reply, the consent page, real json3
 * caption bodies. Built by this file from recordings (no public recording exists, see the fixtures
 * README): WEB player replies in the 2026 shape (the recorded reply with exp=xpe and c=WEB added to
 * every caption URL, and every format's URL removed), and the empty caption bodies.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { FIXTURES, startYoutubeReplay, type ReplayAnswer, type ReplayRequest, type YoutubeReplay } from '../support/youtube-replay.js';
import { generateMedia, startMediaServer, startSttServer, type GeneratedMedia, type MediaServer, type SttServer } from '../support/media.js';
import { startTestProxy, type TestProxy } from '../support/proxy.js';

const read = (file: string) => fs.readFileSync(path.join(FIXTURES, file), 'utf8');
const recordedBody = (file: string) => (JSON.parse(read(file)) as { response: { responseBody: string } }).response.responseBody;

const VISIONOS_KX3 = recordedBody('newpipe/stream/youtubestreamextractordefault/audiotracklanguage/generated_mock_3.json');
const ANDROID_XPE = read('transcript-api/yta_android_player_GJLlxj_dtq8_EDITED_exp_xpe_2025-06-11.json');
const WEB_GJL = read('transcript-api/youtube.innertube.json.static');
const NO_CAPTIONS = read('transcript-api/youtube_transcripts_disabled.innertube.json.static');
const BOT_CHECK = read('transcript-api/youtube_request_blocked.innertube.json.static');
const CONSENT_PAGE = read('transcript-api/youtube_consent_page.html.static');
/** The recorded page YouTube serves with HTTP 429 to a rate-limited address. */
const TOO_MANY_REQUESTS = read('transcript-api/youtube_too_many_requests.html.static');
/** Real json3 bodies of other videos, served for kX3nB4PpJko's English and Chinese tracks. */
const JSON3_EN = read('timedtext-json3/bilingualtube_timedtext_json3_CVMO61kLAM8_2026-01.json');
const JSON3_ZH = read('timedtext-json3/bilingualtube_timedtext_json3_-mC5FcbVzro_zh_manual_2026-01.json');
const FIRST_EN = { text: 'The Apple Design Resources are really a collection of different materials', offset: 4234, duration: 4004 };
const FIRST_ZH = '为什么流氓软件普遍只有Windows版本？';

interface PlayerJson {
  captions?: { playerCaptionsTracklistRenderer: { captionTracks: Array<{ baseUrl: string }> } };
  streamingData?: { formats?: Array<{ url?: string }>; adaptiveFormats?: Array<{ url?: string }> };
}

/** A recorded reply turned into the 2026 WEB shape: caption URLs want a PO token (exp=xpe unless `xpe` is false), formats have no URL. */
function asWeb2026(body: string, options: { xpe?: boolean } = {}): string {
  const player = JSON.parse(body) as PlayerJson;
  for (const track of player.captions?.playerCaptionsTracklistRenderer.captionTracks ?? []) {
    track.baseUrl += `${options.xpe === false ? '' : '&exp=xpe'}&c=WEB`;
  }
  for (const format of [...(player.streamingData?.formats ?? []), ...(player.streamingData?.adaptiveFormats ?? [])]) delete format.url;
  return JSON.stringify(player);
}

type Scenario = 'normal' | 'empty-web' | 'garbled-web' | 'bot-check' | 'consent' | 'garbled';
let scenario: Scenario = 'normal';

/** How the loopback YouTube answers in each scenario (the recordings answer the rest). */
function youtube2026(request: ReplayRequest): ReplayAnswer | undefined {
  const json = (body: string) => ({ body });
  if (request.path === '/youtubei/v1/player') {
    const id = /videoId=(\S+)/.exec(request.key)?.[1];
    if (scenario === 'bot-check') return json(BOT_CHECK);
    if (scenario === 'consent') return { type: 'text/html; charset=utf-8', body: CONSENT_PAGE };
    if (scenario === 'garbled' || (scenario === 'garbled-web' && request.client === 'WEB')) return json('{"responseContext": {}, "playabilityStatus": ');
    if (request.client === 'WEB') {
      if (id === 'kX3nB4PpJko') return json(asWeb2026(VISIONOS_KX3, { xpe: scenario !== 'empty-web' }));
      if (id === 'GJLlxj_dtq8') return json(asWeb2026(WEB_GJL));
      if (id === 'dsMFmonKDD4') return json(asWeb2026(NO_CAPTIONS));
    }
    if (id === 'kX3nB4PpJko') return json(VISIONOS_KX3);
    if (id === 'GJLlxj_dtq8' && request.client === 'ANDROID') return json(ANDROID_XPE);
    return undefined;
  }
  if (request.path === '/api/timedtext') {
    const url = new URL(request.url, 'http://replay.local');
    const v = url.searchParams.get('v') ?? '';
    const wantsToken = (url.searchParams.get('exp') ?? '').includes('xpe');
    // Without the token bound to the video, YouTube answers 200 with nothing.
    if (wantsToken && url.searchParams.get('pot') !== `pot-for-${v}`) return { type: 'text/xml', body: '' };
    if (scenario === 'empty-web' && url.searchParams.get('c') === 'WEB') return { type: 'text/xml', body: '' };
    if (v === 'kX3nB4PpJko') return json(url.searchParams.get('lang')?.startsWith('zh') ? JSON3_ZH : JSON3_EN);
  }
  return undefined;
}

/** A PO-token provider speaking bgutil-ytdlp-pot-provider's HTTP API: POST /get_pot { content_binding }. */
async function startPotProvider(): Promise<{ url: string; asked: unknown[]; close(): Promise<void> }> {
  const asked: unknown[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/get_pot') return void res.writeHead(404).end();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { content_binding: string };
    asked.push(body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ poToken: `pot-for-${body.content_binding}`, contentBinding: body.content_binding, expiresAt: new Date(Date.now() + 3_600_000).toISOString() }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let replay: YoutubeReplay;
/** Where a blocked exit leads: YouTube answering every player request with the bot check. */
let blockedYoutube: YoutubeReplay;
let media: GeneratedMedia;
let audio: MediaServer;
let stt: SttServer;
let provider: Awaited<ReturnType<typeof startPotProvider>>;
let proxyBlocked: TestProxy;
let proxyClean: TestProxy;
const servers: TestServer[] = [];

async function server(env: Record<string, string>): Promise<TestServer> {
  const overrides = `youtube.com=${replay.origin},googleapis.com=${replay.origin},googlevideo.com=${audio.origin}`;
  const started = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: overrides, ...env } });
  servers.push(started);
  return started;
}

beforeAll(async () => {
  media = generateMedia();
  [replay, blockedYoutube, audio, stt, provider] = await Promise.all([startYoutubeReplay(), startYoutubeReplay(), startMediaServer(), startSttServer(), startPotProvider()]);
  replay.intercept = youtube2026;
  // A blocked exit: the bot check on player requests, the 429 "unusual traffic" page on every other InnerTube request.
  blockedYoutube.intercept = (request) =>
    request.path === '/youtubei/v1/player'
      ? { body: BOT_CHECK }
      : request.path.startsWith('/youtubei/')
        ? { status: 429, type: 'text/html; charset=utf-8', body: TOO_MANY_REQUESTS }
        : undefined;
  audio.serve('/videoplayback', media.make('youtube.m4a', 288), 'audio/mp4');
  const blockedPort = Number(new URL(blockedYoutube.origin).port);
  [proxyBlocked, proxyClean] = await Promise.all([startTestProxy(() => ({ host: '127.0.0.1', port: blockedPort })), startTestProxy()]);
}, 300_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all([replay?.close(), blockedYoutube?.close(), audio?.close(), stt?.close(), provider?.close(), proxyBlocked?.close(), proxyClean?.close()]);
  if (media) fs.rmSync(media.dir, { recursive: true, force: true });
});

beforeEach(() => {
  scenario = 'normal';
});

const q = encodeURIComponent;
const credits = async (s: TestServer, key: string) => (await s.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
const since = (mark: number) => replay.requests.slice(mark);

describe('captions when WEB wants a PO token (clients WEB,VISIONOS)', () => {
  let s: TestServer;
  let key: string;
  beforeAll(async () => {
    s = await server({ GLEANER_YOUTUBE_CLIENTS: 'WEB,VISIONOS', GLEANER_STT_URL: stt.url, GLEANER_STT_CHUNK_SECONDS: '60' });
    key = await s.createKey('Pro', { credits: 1000 });
  });
  const get = (query: string) => s.request('GET', `/v1/youtube/transcript?${query}`, { apiKey: key });

  it('skips the exp=xpe tracks without fetching them and reads the VISIONOS track; 1 credit', async () => {
    const mark = replay.requests.length;
    const reply = await get('video_id=kX3nB4PpJko');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ lang: 'en', aiGenerated: false, videoId: 'kX3nB4PpJko' });
    expect(reply.body.content[0]).toEqual({ ...FIRST_EN, lang: 'en' });
    expect(reply.body.durationMinutes).toBeCloseTo(937 / 60);
    expect(reply.body.availableLangs).toHaveLength(18);
    const asked = since(mark);
    expect(asked.filter((r) => r.path === '/youtubei/v1/player').map((r) => r.client)).toEqual(['WEB', 'VISIONOS']);
    const captions = asked.filter((r) => r.path === '/api/timedtext');
    expect(captions).toHaveLength(1);
    expect(captions[0].url).not.toContain('exp=xpe');
  });

  it('every language choice, YouTube translation, text and timestamps work on the client that answered', async () => {
    const zh = await get('video_id=kX3nB4PpJko&lang=zh');
    expect(zh.body.lang).toBe('zh');
    expect(zh.body.content[0].text).toBe(FIRST_ZH);
    const fallback = await get('video_id=kX3nB4PpJko&lang=fi');
    expect(fallback.body.lang).toBe('en');

    const mark = replay.requests.length;
    const french = await get('video_id=kX3nB4PpJko&translate=fr');
    expect(french.status).toBe(200);
    expect(french.body).toMatchObject({ lang: 'fr', translatedTo: 'fr', translatedBy: 'youtube' });
    const caption = since(mark).find((r) => r.path === '/api/timedtext')!;
    expect(new URL(caption.url, 'http://x').searchParams.get('tlang')).toBe('fr');
    expect(caption.url).not.toContain('exp=xpe');

    const text = await get(`url=${q('https://youtu.be/kX3nB4PpJko')}&text=true&lang=en`);
    expect(typeof text.body.content).toBe('string');
    expect(text.body.content.startsWith(FIRST_EN.text)).toBe(true);
    const bare = await get('video_id=kX3nB4PpJko&timestamps=false&lang=en');
    expect(bare.body.content[0]).toEqual({ text: FIRST_EN.text, lang: 'en' });
    const cachedMark = replay.requests.length;
    const again = await get('video_id=kX3nB4PpJko&timestamps=false&lang=en');
    expect(again.body.cached).toBe(true);
    expect(replay.requests.length).toBe(cachedMark);
  });

  it('an empty caption body falls through to the next client', async () => {
    scenario = 'empty-web';
    const mark = replay.requests.length;
    const reply = await get('video_id=kX3nB4PpJko&lang=de');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const captions = since(mark).filter((r) => r.path === '/api/timedtext');
    expect(captions.map((r) => new URL(r.url, 'http://x').searchParams.get('c'))).toEqual(['WEB', null]);
  });

  it('a reply one client no longer understands falls through to the next client', async () => {
    scenario = 'garbled-web';
    const reply = await get('video_id=kX3nB4PpJko&lang=ko');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.lang).toBe('ko');
  });

  it('a video without captions is transcribed from the direct audio URL of a client that lists one: 2 credits a minute, aiGenerated', async () => {
    stt.reset();
    const before = audio.requests.length;
    const reply = await get('video_id=dsMFmonKDD4');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, videoId: 'dsMFmonKDD4', lang: 'en' });
    expect(reply.headers.get('x-credits-used')).toBe('10');
    expect(stt.calls.length).toBeGreaterThan(0);
    expect(audio.requests.slice(before).some((r) => r.endsWith('/videoplayback'))).toBe(true);
    // ffmpeg and the transcription server share the machine: a busy one needs more than the default 30 s.
  }, 120_000);

  it('metadata still works', async () => {
    const reply = await s.request('GET', `/v1/metadata?url=${q('https://www.youtube.com/watch?v=kX3nB4PpJko')}`, { apiKey: key });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ platform: 'youtube', id: 'kX3nB4PpJko', durationSeconds: 937 });
  });
});

describe('PO tokens', () => {
  it('every client wants one and none is configured: UPSTREAM_BLOCKED naming the PO token and the variable, free', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'ANDROID,WEB' });
    const key = await s.createKey('Free', { credits: 10 });
    const mark = replay.requests.length;
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=GJLlxj_dtq8', { apiKey: key });
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(reply.body.error.message).toContain('PO token');
    expect(reply.body.error.message).toContain('GLEANER_YOUTUBE_POT_PROVIDER_URL');
    expect(reply.body.error.message).toContain('ANDROID, WEB');
    expect(since(mark).filter((r) => r.path === '/api/timedtext')).toEqual([]);
    expect(await credits(s, key)).toBe(10);
    // The recorded ANDROID reply marks only its English track: German is read from it.
    const german = await s.request('GET', '/v1/youtube/transcript?video_id=GJLlxj_dtq8&lang=de', { apiKey: key });
    expect(german.status).toBe(200);
    expect(german.body.lang).toBe('de');
  });

  it('a provider configured: the caption URL carries its token bound to the video (pot, potc, c) and the transcript works', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'WEB', GLEANER_YOUTUBE_POT_PROVIDER_URL: provider.url });
    const key = await s.createKey('Free', { credits: 10 });
    provider.asked.length = 0;
    const mark = replay.requests.length;
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.content[0]).toEqual({ ...FIRST_EN, lang: 'en' });
    expect(provider.asked).toEqual([{ content_binding: 'kX3nB4PpJko' }]);
    const caption = new URL(since(mark).find((r) => r.path === '/api/timedtext')!.url, 'http://x');
    expect(caption.searchParams.get('pot')).toBe('pot-for-kX3nB4PpJko');
    expect(caption.searchParams.get('potc')).toBe('1');
    expect(caption.searchParams.get('c')).toBe('WEB');
    expect(await credits(s, key)).toBe(9);
  });
});

describe('refusals', () => {
  it('a bot check on every client: UPSTREAM_BLOCKED naming the proxy settings, each client asked once, free', async () => {
    const s = await server({});
    const key = await s.createKey('Pro', { credits: 10 });
    scenario = 'bot-check';
    const mark = replay.requests.length;
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(reply.body.error.message).toContain('GLEANER_PROXY_URL_YOUTUBE');
    expect(reply.body.error.message).toContain('VISIONOS, ANDROID, IOS, WEB');
    expect(since(mark).map((r) => r.client)).toEqual(['VISIONOS', 'ANDROID', 'IOS', 'WEB']);
    const metadata = await s.request('GET', `/v1/metadata?url=${q('https://youtu.be/kX3nB4PpJko')}`, { apiKey: key });
    expect(metadata.status).toBe(503);
    expect(metadata.body.error.code).toBe('UPSTREAM_BLOCKED');
    const batch = await s.request('POST', '/v1/youtube/transcript/batch', { apiKey: key, body: { urls: ['kX3nB4PpJko'] } });
    expect(batch.body.results[0].errorCode).toBe('UPSTREAM_BLOCKED');
    expect(await credits(s, key)).toBe(10);
  });

  it('a consent page is UPSTREAM_BLOCKED naming the cookies file; a reply no longer understood is UPSTREAM_CHANGED; both free', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'VISIONOS' });
    const key = await s.createKey('Free', { credits: 10 });
    scenario = 'consent';
    const consent = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(consent.status).toBe(503);
    expect(consent.body.error).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    expect(consent.body.error.message).toContain('GLEANER_COOKIES_FILE');
    scenario = 'garbled';
    const garbled = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(garbled.status).toBe(502);
    expect(garbled.body.error.code).toBe('UPSTREAM_CHANGED');
    expect(garbled.body.error.message).toContain('update Gleaner');
    expect(await credits(s, key)).toBe(10);
  });

  it('no client gives a direct audio URL for a video without captions: UPSTREAM_BLOCKED naming GLEANER_YOUTUBE_CLIENTS, free', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'WEB', GLEANER_STT_URL: stt.url });
    const key = await s.createKey('Free', { credits: 10 });
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=dsMFmonKDD4', { apiKey: key });
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(reply.body.error.message).toContain('GLEANER_YOUTUBE_CLIENTS');
    expect(await credits(s, key)).toBe(10);
  });
});

describe('egress: a proxy pool for YouTube', () => {
  it('a blocked exit is not asked again: the next proxy of the pool is tried on a new connection, and later requests stay on it', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'VISIONOS', GLEANER_PROXY_URL_YOUTUBE: `${proxyBlocked.url},${proxyClean.url}` });
    const key = await s.createKey('Free', { credits: 10 });
    const blockedMark = blockedYoutube.requests.length;
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.content[0]).toEqual({ ...FIRST_EN, lang: 'en' });
    // One request reached the blocked exit; the same client was asked again through the next proxy.
    expect(blockedYoutube.requests.slice(blockedMark).map((r) => `${r.path} ${r.client}`)).toEqual(['/youtubei/v1/player VISIONOS']);
    expect(proxyBlocked.connects).toHaveLength(1);
    expect(proxyClean.connects.length).toBeGreaterThanOrEqual(1);
    const again = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko&lang=zh', { apiKey: key });
    expect(again.status).toBe(200);
    expect(blockedYoutube.requests.length - blockedMark).toBe(1);
    expect(proxyBlocked.connects).toHaveLength(1);
  });

  it('search, channels and playlists move to the next proxy too when their exit answers 429, charged as usual', async () => {
    const calls = [
      '/v1/youtube/search?query=test&limit=3',
      `/v1/youtube/channel?id=${q('https://www.youtube.com/user/creativecommons')}`,
      '/v1/youtube/playlist/videos?id=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr',
    ];
    for (const call of calls) {
      // A fresh server starts on the pool's first proxy, the blocked one.
      const s = await server({ GLEANER_PROXY_URL_YOUTUBE: `${proxyBlocked.url},${proxyClean.url}` });
      const key = await s.createKey('Free', { credits: 10 });
      const blockedMark = blockedYoutube.requests.length;
      const reply = await s.request('GET', call, { apiKey: key });
      expect(reply.status, `${call}: ${JSON.stringify(reply.body)}`).toBe(200);
      // Asked once from the blocked exit, then from the next proxy, which the later requests keep.
      expect(blockedYoutube.requests.length - blockedMark, call).toBe(1);
      expect(await credits(s, key)).toBe(9);
    }
  });

  it('search from a pool whose every exit answers 429: UPSTREAM_BLOCKED naming the proxy settings, free', async () => {
    const s = await server({ GLEANER_PROXY_URL_YOUTUBE: proxyBlocked.url });
    const key = await s.createKey('Free', { credits: 10 });
    const reply = await s.request('GET', '/v1/youtube/search?query=test&limit=3', { apiKey: key });
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(reply.body.error.message).toContain('GLEANER_PROXY_URL_YOUTUBE');
    expect(await credits(s, key)).toBe(10);
  });

  it('metadata (WEB) moves to the next proxy too when its exit is blocked', async () => {
    const s = await server({ GLEANER_PROXY_URL_YOUTUBE: `${proxyBlocked.url},${proxyClean.url}` });
    const key = await s.createKey('Free', { credits: 10 });
    const blockedMark = blockedYoutube.requests.length;
    const connectsBefore = proxyBlocked.connects.length;
    const reply = await s.request('GET', `/v1/metadata?url=${q('https://www.youtube.com/watch?v=kX3nB4PpJko')}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ id: 'kX3nB4PpJko', durationSeconds: 937 });
    expect(blockedYoutube.requests.slice(blockedMark).filter((r) => r.path === '/youtubei/v1/player')).toHaveLength(1);
    // The player and watch requests go out together: one tunnel each, then none more to the blocked exit.
    const connectsAfter = proxyBlocked.connects.length;
    expect(connectsAfter - connectsBefore).toBeGreaterThanOrEqual(1);
    const again = await s.request('GET', `/v1/metadata?url=${q('https://youtu.be/kX3nB4PpJko')}`, { apiKey: key });
    expect(again.status).toBe(200);
    expect(proxyBlocked.connects.length).toBe(connectsAfter);
  });

  it('a proxy of the pool that cannot be reached is skipped: 5 of 5 calls answered through the live one, no proxy address in any reply (issue 20 finding 7)', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'VISIONOS', GLEANER_PROXY_URL_YOUTUBE: `http://127.0.0.1:1,${proxyClean.url}` });
    const key = await s.createKey('Free', { credits: 10 });
    const calls = [
      '/v1/youtube/transcript?video_id=kX3nB4PpJko',
      '/v1/youtube/transcript?video_id=kX3nB4PpJko&lang=zh',
      `/v1/metadata?url=${q('https://www.youtube.com/watch?v=kX3nB4PpJko')}`,
      '/v1/youtube/search?query=test&limit=3',
      '/v1/youtube/playlist/videos?id=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr',
    ];
    for (const call of calls) {
      const reply = await s.request('GET', call, { apiKey: key });
      expect(reply.status, `${call}: ${JSON.stringify(reply.body)}`).toBe(200);
      expect(JSON.stringify(reply.body)).not.toContain('127.0.0.1:1');
    }
    expect(s.app.services.http.egress.currentProxy('youtube')).toBe(proxyClean.url);

    // A pool with no live exit: a clear error that names neither proxy.
    const dead = await server({ GLEANER_YOUTUBE_CLIENTS: 'VISIONOS', GLEANER_PROXY_URL_YOUTUBE: 'http://127.0.0.1:1,http://user:proxy-pw@127.0.0.1:2' });
    const deadKey = await dead.createKey('Free', { credits: 10 });
    const failed = await dead.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: deadKey });
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(failed.body.error.message).toMatch(/proxy/);
    expect(failed.body.error.message).not.toMatch(/127\.0\.0\.1|proxy-pw|user:/);
    expect(await credits(dead, deadKey)).toBe(10);
  });
});
