/**
 * YouTube operations through a real server on loopback, against the recorded YouTube replies in
 * test/fixtures/youtube served by a replay server (see test/support/youtube-replay.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { FIXTURES, startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';

let server: TestServer;
let replay: YoutubeReplay;
let pro: string;

const RECORDED_SEGMENTS = ['Hey, this is just a test', 'this is not the original transcript', 'just something shorter, I made up for testing'];

beforeAll(async () => {
  replay = await startYoutubeReplay();
  server = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}` } });
  pro = await server.createKey('Pro', { credits: 100_000 });
});

afterAll(async () => {
  await server.close();
  await replay.close();
});

const get = (pathAndQuery: string, apiKey = pro) => server.request('GET', pathAndQuery, { apiKey });
const post = (pathAndQuery: string, body: unknown, apiKey = pro) => server.request('POST', pathAndQuery, { apiKey, body });
const q = (value: string) => encodeURIComponent(value);
const credits = async (key: string) => (await get('/v1/me', key)).body.credits as number;
const upstreamSince = (mark: number) => replay.requests.slice(mark);
/** A video batch is a job: waits for it and gives the finished job record. */
async function batchJob(reply: { status: number; body: { jobId: string } }, apiKey = pro) {
  expect(reply.status).toBe(202);
  const me = (await get('/v1/me', apiKey)).body as { id: string };
  await server.app.services.jobs.waitFor(reply.body.jobId, me.id, 60_000);
  return (await get(`/v1/jobs/${reply.body.jobId}`, apiKey)).body;
}

describe('youtube_transcript', () => {
  it('reads the default track (manual English) with timing, lists the tracks and charges 1 credit', async () => {
    const reply = await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ lang: 'en', aiGenerated: false, cached: false, videoId: 'GJLlxj_dtq8' });
    expect(reply.body.durationMinutes).toBeCloseTo(316 / 60);
    expect(reply.body.availableLangs).toEqual(['zh', 'cs', 'en', 'de', 'hi', 'ja', 'ko', 'es']);
    expect(reply.body.content).toEqual([
      { text: RECORDED_SEGMENTS[0], offset: 0, duration: 1540, lang: 'en' },
      { text: RECORDED_SEGMENTS[1], offset: 1540, duration: 4160, lang: 'en' },
      { text: RECORDED_SEGMENTS[2], offset: 5700, duration: 3239, lang: 'en' },
    ]);
  });

  it('lang picks that track, or says it fell back to the default; manual tracks win over automatic ones', async () => {
    let mark = replay.requests.length;
    const german = await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8&lang=de');
    expect(german.body.lang).toBe('de');
    expect(german.body.content[0].lang).toBe('de');
    expect(upstreamSince(mark).map((r) => r.key)).toContain('timedtext v=GJLlxj_dtq8 lang=de kind= tlang=');

    const missing = await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8&lang=fi');
    expect(missing.body.lang).toBe('en');

    // F1xioXWb8CY has a manual and an automatic English track: the manual one is read.
    mark = replay.requests.length;
    const manual = await get('/v1/youtube/transcript?video_id=F1xioXWb8CY&lang=en');
    expect(manual.body.lang).toBe('en');
    // Its description has no chapters: one watch request looks for the player bar's markers, after the captions are read.
    expect(upstreamSince(mark).map((r) => r.key)).toEqual(['player videoId=F1xioXWb8CY', 'timedtext v=F1xioXWb8CY lang=en kind= tlang=', 'next videoId=F1xioXWb8CY']);
  });

  it("translate asks YouTube's translation of the track (tlang); a language YouTube does not offer is TRANSCRIPT_UNAVAILABLE, free", async () => {
    const mark = replay.requests.length;
    const french = await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8&translate=fr');
    expect(french.status).toBe(200);
    expect(french.body).toMatchObject({ lang: 'fr', translatedTo: 'fr' });
    expect(upstreamSince(mark).map((r) => r.key)).toContain('timedtext v=GJLlxj_dtq8 lang=en kind= tlang=fr');

    const key = await server.createKey('Free');
    const before = await credits(key);
    const klingon = await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8&translate=tlh', key);
    expect(klingon.status).toBe(404);
    expect(klingon.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    expect(klingon.body.error.message).toContain('tlh');
    expect(await credits(key)).toBe(before);
  });

  it('timestamps=false drops offset and duration; text=true gives one string', async () => {
    const bare = await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8&timestamps=false');
    expect(bare.body.content).toEqual(RECORDED_SEGMENTS.map((text) => ({ text, lang: 'en' })));
    const plain = await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8&text=true');
    expect(plain.body.content).toBe(RECORDED_SEGMENTS.join(' '));
  });

  it('video_id, videoId and every URL form of one video give the same transcript (the alias path too)', async () => {
    const forms = [
      'https://www.youtube.com/watch?v=GJLlxj_dtq8',
      'https://youtube.com/watch?feature=share&v=GJLlxj_dtq8&t=42s&list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr',
      'https://youtu.be/GJLlxj_dtq8?si=abc',
      'https://www.youtube.com/shorts/GJLlxj_dtq8',
      'https://www.youtube.com/embed/GJLlxj_dtq8?start=3',
      'https://www.youtube.com/live/GJLlxj_dtq8?feature=shared',
      'https://m.youtube.com/watch?v=GJLlxj_dtq8',
      'https://music.youtube.com/watch?v=GJLlxj_dtq8&list=RDAMVM',
      'https://www.youtube-nocookie.com/embed/GJLlxj_dtq8',
      'youtube.com/watch?v=GJLlxj_dtq8',
    ];
    const reference = (await get('/v1/youtube/transcript?video_id=GJLlxj_dtq8')).body;
    const replies = [
      await get('/v1/youtube/transcript?videoId=GJLlxj_dtq8'),
      await get('/v1/vidsite/transcript?video_id=GJLlxj_dtq8'),
      ...(await Promise.all(forms.map((form) => get(`/v1/youtube/transcript?url=${q(form)}`)))),
    ];
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body.content).toEqual(reference.content);
      expect(reply.body.lang).toBe('en');
    }
  });

  it('a second identical request is served from the store: cached true, no upstream request', async () => {
    const first = await get('/v1/youtube/transcript?video_id=F1xioXWb8CY&lang=en&timestamps=false');
    expect(first.status).toBe(200);
    const mark = replay.requests.length;
    const second = await get('/v1/youtube/transcript?video_id=F1xioXWb8CY&lang=en&timestamps=false');
    expect(second.body.cached).toBe(true);
    expect(second.body.content).toEqual(first.body.content);
    expect(second.headers.get('x-credits-used')).toBe('1');
    expect(replay.requests.length).toBe(mark);
  });

  it('a video without captions is TRANSCRIPT_UNAVAILABLE, private and missing videos are named, and none of it is charged', async () => {
    const key = await server.createKey('Free');
    const none = await get('/v1/youtube/transcript?video_id=dsMFmonKDD4', key);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    const privateVideo = await get('/v1/youtube/transcript?video_id=8VajtrESJzA', key);
    expect(privateVideo.status).toBe(403);
    expect(privateVideo.body.error).toMatchObject({ code: 'CONTENT_UNAVAILABLE' });
    expect(privateVideo.body.error.message).toContain('Private video');
    const missing = await get(`/v1/youtube/transcript?url=${q('https://youtu.be/don-t-exist')}`, key);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CONTENT_NOT_FOUND');
    expect(await credits(key)).toBe(100);
  });

  it('bad input is a 400 naming it and charges nothing', async () => {
    const key = await server.createKey('Free');
    const cases = [
      ['/v1/youtube/transcript', 'url'],
      ['/v1/youtube/transcript?video_id=GJLlxj_dtq8&url=https%3A%2F%2Fyoutu.be%2FGJLlxj_dtq8', 'url'],
      ['/v1/youtube/transcript?video_id=GJLlxj_dtq8&videoId=F1xioXWb8CY', 'videoId'],
      [`/v1/youtube/transcript?url=${q('https://vimeo.com/12345')}`, 'vimeo.com/12345'],
      [`/v1/youtube/transcript?url=${q('https://www.youtube.com/watch?v=short')}`, 'watch?v=short'],
      ['/v1/youtube/transcript?video_id=not%20an%20id', 'not an id'],
      ['/v1/youtube/transcript?video_id=GJLlxj_dtq8&lang=%3Cscript%3E', 'lang'],
    ];
    for (const [path_, named] of cases) {
      const reply = await get(path_, key);
      expect(reply.status, path_).toBe(400);
      expect(reply.body.error.code).toBe('INVALID_REQUEST');
      expect(reply.body.error.message).toContain(named);
    }
    expect(await credits(key)).toBe(100);
  });
});

describe('transcript (any platform) and metadata', () => {
  it('detects YouTube from the URL; an unsupported URL is UNSUPPORTED_URL listing what is supported', async () => {
    const reply = await get(`/v1/transcript?url=${q('https://youtu.be/GJLlxj_dtq8')}&lang=de&text=true`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ lang: 'de', content: RECORDED_SEGMENTS.join(' '), platform: 'youtube' });
    const other = await get(`/v1/transcript?url=${q('https://example.com/video.html')}`);
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('UNSUPPORTED_URL');
    expect(other.body.error.message).toContain('youtube');
  });

  it('gives the unified metadata of a video: counts, thumbnails, duration, tags, channel, date', async () => {
    const reply = await get(`/v1/metadata?url=${q('https://www.youtube.com/watch?v=kX3nB4PpJko')}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'youtube',
      id: 'kX3nB4PpJko',
      url: 'https://www.youtube.com/watch?v=kX3nB4PpJko',
      title: 'Last To Take Hand Off Jet, Keeps It!',
      author: { name: 'MrBeast', id: 'UCX6OQ3DkcsbYNE6H8uQQuVA', handle: '@MrBeast' },
      counts: { views: 248861230, likes: 4961170 },
      durationSeconds: 937,
      publishedAt: '2022-11-12',
    });
    expect(reply.body.thumbnails.length).toBeGreaterThan(0);
    expect(reply.body.thumbnails[0].url).toContain('kX3nB4PpJko');
    // The reply-shapes fields (those the Supadata SDK reads), beside Gleaner's own.
    expect(reply.body).toMatchObject({
      type: 'video',
      author: { username: 'MrBeast', displayName: 'MrBeast', avatarUrl: null, verified: null },
      stats: { views: 248861230, likes: 4961170, comments: null, shares: null },
      media: { type: 'video', duration: 937, thumbnailUrl: reply.body.thumbnails[0].url },
      createdAt: '2022-11-12',
      additionalData: {},
    });

    const older = await get(`/v1/metadata?url=${q('https://youtu.be/ud9d5cMDP_0')}`);
    expect(older.body).toMatchObject({ title: 'Vitamin D wissenschaftlich geprüft', publishedAt: '2020-11-18', author: { name: 'maiLab' } });
    expect(older.body.tags).toContain('Vitamin D');
  });
});

const SECOND_PAGE = 'newpipe/search/youtubesearchextractor/all/generated_mock_3.json';

function recordedBody(file: string): string {
  return (JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as { response: { responseBody: string } }).response.responseBody;
}

/**
 * The third page of the "test" search, built by this test because the recording holds two pages
 * only: the recorded second page (its header, context and format) with its results replaced by
 * `count` video results of the test's own (ids built-00000...) and no further continuation.
 */
function builtThirdPage(count: number): string {
  const page = JSON.parse(recordedBody(SECOND_PAGE)) as { onResponseReceivedCommands: Array<{ appendContinuationItemsAction?: { continuationItems: unknown[] } }> };
  const items = Array.from({ length: count }, (_, i) => ({
    videoRenderer: {
      videoId: `built-${String(i).padStart(5, '0')}`,
      title: { runs: [{ text: `Test-built result ${i}` }] },
      lengthText: { simpleText: '1:05' },
      viewCountText: { simpleText: `${i} views` },
      publishedTimeText: { simpleText: '2 days ago' },
      ownerText: { runs: [{ text: 'Built channel', navigationEndpoint: { browseEndpoint: { browseId: 'UCbuiltbuiltbuiltbuilt00' } } }] },
    },
  }));
  for (const command of page.onResponseReceivedCommands) {
    if (command.appendContinuationItemsAction) command.appendContinuationItemsAction.continuationItems = [{ itemSectionRenderer: { contents: items } }];
  }
  return JSON.stringify(page);
}

function lastContinuation(file: string): string {
  const tokens = [...recordedBody(file).matchAll(/"continuationCommand":\{"token":"([^"]+)"/g)].map((m) => m[1]);
  return tokens[tokens.length - 1];
}

describe('youtube_search', () => {
  beforeAll(() => {
    replay.add(`search continuation=${lastContinuation(SECOND_PAGE)}`, builtThirdPage(40));
  });

  it('a short balance gets the pages it pays for: limit=5000 on 50 credits, on 2, on none', async () => {
    const fifty = await server.createKey('Pro', { credits: 50 });
    const all = await get('/v1/youtube/search?query=test&limit=5000', fifty);
    expect(all.status).toBe(200);
    expect(all.body.results.length).toBeGreaterThan(100);
    const charged = Number(all.headers.get('x-credits-used'));
    expect(charged).toBeGreaterThan(0);
    expect(charged).toBeLessThanOrEqual(50);
    expect(await credits(fifty)).toBe(50 - charged);

    const two = await server.createKey('Pro', { credits: 2 });
    const cut = await get('/v1/youtube/search?query=test&limit=5000', two);
    expect(cut.status).toBe(200);
    expect(cut.body.results).toHaveLength(100);
    expect(cut.body.stoppedOn).toBe('credits');
    expect(typeof cut.body.nextPageToken).toBe('string');
    expect(cut.headers.get('x-credits-used')).toBe('2');

    const none = await get('/v1/youtube/search?query=test&limit=5000', two);
    expect(none.status).toBe(402);
    expect(none.body.error.code).toBe('CREDITS_EXHAUSTED');
  });

  it('pages through the recording to 120 results, charges 3 credits, and its token resumes where it stopped', async () => {
    const mark = replay.requests.length;
    const reply = await get('/v1/youtube/search?query=test&limit=120');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('3');
    expect(reply.body.query).toBe('test');
    expect(reply.body.results).toHaveLength(120);
    expect(reply.body.totalResults).toBe(430198371);
    expect(upstreamSince(mark).map((r) => r.key.slice(0, 20))).toEqual(['search query=test ty', 'search continuation=', 'search continuation=']);
    const first = reply.body.results[0];
    expect(first).toMatchObject({ type: 'video', id: '6GDBMbMU0ew', title: 'FIRST FOOTAGE of the 2026 F1 Cars at Barcelona Shakedown Test!', duration: 136, viewCount: 1862 });
    expect(first.channel).toEqual({ id: 'UC6agiNZlMdGE9yqtQT9n8aw', name: 'BackMarkers F1 Show' });
    expect(reply.body.results.some((r: { isShort: boolean }) => r.isShort)).toBe(true);
    expect(reply.body.results.some((r: { type: string }) => r.type === 'channel')).toBe(true);
    expect(new Set(reply.body.results.map((r: { id: string }) => r.id)).size).toBe(120);
    expect(typeof reply.body.nextPageToken).toBe('string');

    const longer = await get('/v1/vidsite/search?query=test&limit=125');
    expect(longer.body.results.slice(0, 120)).toEqual(reply.body.results);
    const resumed = await get(`/v1/youtube/search?query=test&limit=5&pageToken=${q(reply.body.nextPageToken)}`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.results).toEqual(longer.body.results.slice(120, 125));
    expect(resumed.headers.get('x-credits-used')).toBe('1');

    // The built page has no continuation: the search ends there.
    const all = await get('/v1/youtube/search?query=test&limit=500');
    expect(all.body.nextPageToken).toBeNull();
    expect(all.headers.get('x-credits-used')).toBe(String(Math.ceil(all.body.results.length / 50)));
  });

  it('type filters ask YouTube for channels or playlists and give their shapes', async () => {
    const channels = await get('/v1/youtube/search?query=test&type=channel&limit=3');
    expect(channels.body.results[0]).toEqual({
      type: 'channel',
      id: 'UCZRcA_nO3Kt-SOml2mY8D9g',
      name: 'test',
      handle: '@tutorialismic',
      description: expect.stringContaining('difficulty faces'),
      thumbnail: expect.stringMatching(/^https:\/\/yt3\.ggpht\.com\//),
      subscriberCount: 234000,
      videoCount: null,
    });
    const playlists = await get('/v1/youtube/search?query=test&type=playlist&limit=30');
    expect(playlists.body.results).toHaveLength(30);
    expect(playlists.body.results[0]).toMatchObject({ type: 'playlist', id: 'PLAD454F0807B6CB80', title: 'Tests du grenier', videoCount: 102, channel: { name: 'Joueur Du Grenier' } });
    expect(playlists.body.results.every((r: { type: string }) => r.type === 'playlist')).toBe(true);
    const videos = await get('/v1/youtube/search?query=test&type=video&limit=10');
    expect(videos.body.results.every((r: { type: string }) => r.type === 'video')).toBe(true);
  });

  it('bad limits, queries and tokens are 400s that charge nothing', async () => {
    const key = await server.createKey('Free');
    for (const query of ['query=test&limit=0', 'query=test&limit=5001', `query=${'x'.repeat(501)}`, 'query=test&type=song', 'query=test&publishedAfter=yesterday', 'query=test&pageToken=garbage', 'limit=3']) {
      const reply = await get(`/v1/youtube/search?${query}`, key);
      expect(reply.status, query).toBe(400);
    }
    expect(await credits(key)).toBe(100);
  });

  it('is 503 UPSTREAM_UNAVAILABLE when YouTube cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const offline = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `youtube.com=http://127.0.0.1:${port}` } });
    try {
      const key = await offline.createKey('Free');
      const reply = await offline.request('GET', '/v1/youtube/search?query=test', { apiKey: key });
      expect(reply.status).toBe(503);
      expect(reply.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect((await offline.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(100);
    } finally {
      await offline.close();
    }
  });
});

describe('channels and playlists', () => {
  it('reads a channel named by id, @handle, /channel/, /c/ and /user/ URL', async () => {
    const byUser = await get(`/v1/youtube/channel?id=${q('https://www.youtube.com/user/creativecommons')}`);
    expect(byUser.status).toBe(200);
    expect(byUser.headers.get('x-credits-used')).toBe('1');
    expect(byUser.body).toMatchObject({ id: 'UCTwECeGqMZee77BjdoYtI2Q', name: 'Creative Commons', handle: '@creativecommons', subscriberCount: 8840, videoCount: 258 });
    expect(byUser.body.thumbnail).toMatch(/^https:\/\//);
    expect(byUser.body.banner).toMatch(/^https:\/\//);
    for (const id of ['UCTwECeGqMZee77BjdoYtI2Q', 'https://www.youtube.com/channel/UCTwECeGqMZee77BjdoYtI2Q']) {
      expect((await get(`/v1/vidsite/channel?id=${q(id)}`)).body.id).toBe('UCTwECeGqMZee77BjdoYtI2Q');
    }
    expect((await get(`/v1/youtube/channel?id=${q('https://www.youtube.com/c/JeffGeerling')}`)).body).toMatchObject({ id: 'UCR-DXc1voovS8nhAvccRZhg', name: 'Jeff Geerling' });
    expect((await get('/v1/youtube/channel?id=%40Radiohead')).body).toMatchObject({ id: 'UCq19-LqvG35A-30oyAiPiqA', name: 'Radiohead' });
    const gone = await get('/v1/youtube/channel?id=UCoaO4U_p7G7AwalqSbGCZOA');
    expect(gone.status).toBe(403);
    expect(gone.body.error.code).toBe('CONTENT_UNAVAILABLE');
    const bad = await get('/v1/youtube/channel?id=not-a-channel');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('not-a-channel');
  });

  it('channel videos follow continuations as far as the recording goes (limit=300)', async () => {
    const mark = replay.requests.length;
    const reply = await get(`/v1/youtube/channel/videos?type=video&limit=300&id=${q('https://www.youtube.com/user/creativecommons')}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    // Two recorded pages of 30; the recording ends where YouTube still announced a third.
    expect(reply.body.videoIds).toHaveLength(60);
    expect(reply.body.videoIds[0]).toBe('BD-LB23rRBE');
    expect(reply.body).toMatchObject({ shortIds: [], liveIds: [], complete: false });
    expect(upstreamSince(mark).filter((r) => r.key.startsWith('browse continuation=')).length).toBe(2);

    const capped = await get(`/v1/youtube/channel/videos?type=video&limit=40&id=UCTwECeGqMZee77BjdoYtI2Q`);
    expect(capped.body.videoIds).toEqual(reply.body.videoIds.slice(0, 40));
    expect(capped.body.complete).toBe(true);

    const live = await get(`/v1/youtube/channel/videos?type=live&limit=300&id=${q('https://www.youtube.com/c/JeffGeerling')}`);
    expect(live.body.liveIds.length).toBeGreaterThan(30);
    expect(live.body).toMatchObject({ videoIds: [], shortIds: [], complete: true });
    const shorts = await get('/v1/youtube/channel/videos?type=short&limit=50&id=UCh8gHdtzO2tXd593_bjErWg');
    expect(shorts.body.shortIds).toHaveLength(50);
    expect(shorts.body.videoIds).toEqual([]);
  });

  it('reads a playlist and its videos across pages', async () => {
    const info = await get('/v1/youtube/playlist?id=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr');
    expect(info.body).toMatchObject({
      id: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr',
      title: "TOP 150 Songs 2024 - List of Best Music 2024 (Today's Hits Playlist)",
      videoCount: 150,
      viewCount: 140848,
      channel: { id: 'UC-7fxYMkY5sTDKmmsC3p5iA', name: 'Redlist - Chart Playlists' },
    });
    const all = await get(`/v1/vidsite/playlist/videos?limit=300&id=${q('https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr')}`);
    expect(all.body.videoIds).toHaveLength(150);
    expect(all.body.videoIds[0]).toBe('kPa7bsKwL-c');
    expect(all.body.complete).toBe(true);
    const byDefault = await get('/v1/youtube/playlist/videos?id=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr');
    expect(byDefault.body.videoIds).toEqual(all.body.videoIds.slice(0, 100));
    const missing = await get('/v1/youtube/playlist?id=PL11111111111111111111111111111111');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('CONTENT_NOT_FOUND');
  });

  it('out-of-range limits and bad ids are 400s that charge nothing', async () => {
    const key = await server.createKey('Free');
    for (const path_ of [
      '/v1/youtube/channel/videos?id=UCTwECeGqMZee77BjdoYtI2Q&limit=5001',
      '/v1/youtube/channel/videos?id=UCTwECeGqMZee77BjdoYtI2Q&limit=0',
      '/v1/youtube/channel/videos?id=UCTwECeGqMZee77BjdoYtI2Q&type=podcast',
      '/v1/youtube/playlist/videos?id=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr&limit=5001',
      '/v1/youtube/playlist?id=nope',
      `/v1/youtube/playlist?id=${q('https://www.youtube.com/watch?v=GJLlxj_dtq8')}`,
    ]) {
      const reply = await get(path_, key);
      expect(reply.status, path_).toBe(400);
      expect(reply.body.error.code).toBe('INVALID_REQUEST');
    }
    expect(await credits(key)).toBe(100);
  });
});

describe('Pro+ operations', () => {
  it('free keys get 402 UPGRADE_REQUIRED', async () => {
    const key = await server.createKey('Free');
    const calls = [
      await post('/v1/youtube/transcript/batch', { urls: ['https://youtu.be/GJLlxj_dtq8'] }, key),
      await post('/v1/vidsite/transcript/translate', { url: 'https://youtu.be/GJLlxj_dtq8', targetLang: 'fr' }, key),
      await post('/v1/vidsite/video/batch', { videoIds: ['kX3nB4PpJko'] }, key),
    ];
    for (const reply of calls) {
      expect(reply.status).toBe(402);
      expect(reply.body.error.code).toBe('UPGRADE_REQUIRED');
    }
    expect(await credits(key)).toBe(100);
  });

  it('translate: 30 credits per started minute, POST or GET; a language YouTube lacks, with no model, is an error, free', async () => {
    const key = await server.createKey('Pro');
    const reply = await post('/v1/vidsite/transcript/translate', { url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8', targetLang: 'ja' }, key);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ lang: 'ja', translatedTo: 'ja' });
    expect(reply.headers.get('x-credits-used')).toBe(String(30 * Math.ceil(316 / 60)));
    const viaGet = await get('/v1/youtube/transcript/translate?videoId=F1xioXWb8CY&lang=de', key);
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.lang).toBe('de');
    expect(viaGet.headers.get('x-credits-used')).toBe(String(30 * Math.ceil(1509 / 60)));
    const before = await credits(key);
    // YouTube offers no Klingon, and this server has no language model for AI translation.
    const none = await post('/v1/youtube/transcript/translate', { url: 'https://youtu.be/GJLlxj_dtq8', targetLang: 'tlh' }, key);
    expect(none.body.error.code).toBe('NOT_CONFIGURED');
    expect(none.body.error.message).toContain('GLEANER_LLM_URL');
    const bad = await post('/v1/youtube/transcript/translate', { url: 'https://youtu.be/GJLlxj_dtq8' }, key);
    expect(bad.status).toBe(400);
    expect(await credits(key)).toBe(before);
  });

  it('one video (the Supadata SDK\'s youtube.video): its metadata in the batch\'s shape, 1 credit', async () => {
    const reply = await get('/v1/youtube/video?id=kX3nB4PpJko');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ id: 'kX3nB4PpJko', duration: 937, channel: { id: 'UCX6OQ3DkcsbYNE6H8uQQuVA', name: 'MrBeast' }, likeCount: 4961170 });
    const bad = await get('/v1/youtube/video?id=nope');
    expect(bad.status).toBe(400);
  });

  it('video batch: a job with one result per video; none or several sources are a 400', async () => {
    const reply = await batchJob(await post('/v1/youtube/video/batch', { videoIds: ['kX3nB4PpJko', 'https://youtu.be/ud9d5cMDP_0', '8VajtrESJzA', 'nope'] }));
    expect(reply.status).toBe('completed');
    reply.body = reply.result;
    expect(reply.body.stats).toEqual({ total: 4, succeeded: 2, failed: 2 });
    expect(reply.body.results[0].video).toMatchObject({
      id: 'kX3nB4PpJko',
      duration: 937,
      channel: { id: 'UCX6OQ3DkcsbYNE6H8uQQuVA', name: 'MrBeast' },
      uploadDate: '2022-11-12',
      viewCount: 248861230,
      likeCount: 4961170,
    });
    expect(reply.body.results[0].video.transcriptLanguages).toContain('en');
    expect(reply.body.results[1].video).toMatchObject({ id: 'ud9d5cMDP_0', transcriptLanguages: ['de'] });
    expect(reply.body.results[2]).toMatchObject({ videoId: '8VajtrESJzA', errorCode: 'CONTENT_UNAVAILABLE' });
    expect(reply.body.results[3]).toMatchObject({ videoId: 'nope', errorCode: 'INVALID_REQUEST' });

    const fromPlaylist = await batchJob(await post('/v1/youtube/video/batch', { playlistId: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', limit: 3 }));
    expect(fromPlaylist.result.results.map((r: { videoId: string }) => r.videoId)).toEqual(['kPa7bsKwL-c', 'Oa_RSwwpPaA', 'ekr2nIex040']);

    const none = await post('/v1/youtube/video/batch', { limit: 3 });
    expect(none.status).toBe(400);
    const several = await post('/v1/youtube/video/batch', { playlistId: 'PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr', channelId: 'UCTwECeGqMZee77BjdoYtI2Q' });
    expect(several.status).toBe(400);
    expect(several.body.error.message).toContain('playlistId and channelId');
    expect((await post('/v1/youtube/video/batch', { videoIds: ['kX3nB4PpJko'], limit: 51 })).status).toBe(400);
  });

  it('video batch: 1 credit when any video was read, nothing when every item failed', async () => {
    const key = await server.createKey('Pro', { credits: 10 });
    const failed = await batchJob(await post('/v1/youtube/video/batch', { videoIds: ['8VajtrESJzA', 'nope', 'https://youtu.be/don-t-exist'] }, key), key);
    expect(failed.result.stats).toEqual({ total: 3, succeeded: 0, failed: 3 });
    expect(failed.creditsUsed).toBe(0);
    expect(await credits(key)).toBe(10);
    const one = await batchJob(await post('/v1/youtube/video/batch', { videoIds: ['nope', 'kX3nB4PpJko'] }, key), key);
    expect(one.result.stats).toMatchObject({ succeeded: 1, failed: 1 });
    expect(one.creditsUsed).toBe(1);
    expect(await credits(key)).toBe(9);
  });
});

describe('youtube_transcript_batch', () => {
  it('returns 50 items in order, charges only the successes, and runs concurrently', async () => {
    // Many distinct videos (no store hits): 40 ids are answered with GJLlxj_dtq8's recorded player reply.
    const ids = Array.from({ length: 40 }, (_, i) => `batch${String(i).padStart(6, '0')}`);
    for (const id of ids) replay.alias(id, 'GJLlxj_dtq8');
    const forms = [(id: string) => `https://www.youtube.com/watch?v=${id}`, (id: string) => `https://youtu.be/${id}`, (id: string) => `https://www.youtube.com/shorts/${id}`, (id: string) => id];
    const urls: string[] = ids.slice(0, 40).map((id, i) => forms[i % forms.length](id));
    const failing = ['https://vimeo.com/1', 'not a url', 'https://youtu.be/dsMFmonKDD4', 'https://youtu.be/8VajtrESJzA', 'https://www.youtube.com/watch?v=don-t-exist', 'https://www.youtube.com/channel/UCTwECeGqMZee77BjdoYtI2Q'];
    for (let i = 0; i < 10; i++) urls.splice(i * 5 + 2, 0, failing[i % failing.length]);
    expect(urls).toHaveLength(50);

    replay.latencyMs = 40;
    replay.maxInFlight = 0;
    try {
      const key = await server.createKey('Pro');
      const started = performance.now();
      const reply = await post('/v1/vidsite/transcript/batch', { urls }, key);
      const batchMs = performance.now() - started;
      expect(reply.status).toBe(200);
      expect(reply.body.results).toHaveLength(50);
      reply.body.results.forEach((item: { url: string }, i: number) => expect(item.url).toBe(urls[i]));
      const successes = reply.body.results.filter((r: { transcript?: unknown }) => r.transcript);
      expect(successes).toHaveLength(40);
      expect(reply.body.creditsUsed).toBe(40);
      expect(reply.headers.get('x-credits-used')).toBe('40');
      expect(await credits(key)).toBe(3000 - 40);
      expect(reply.body.results[2]).toMatchObject({ url: 'https://vimeo.com/1', videoId: null, errorCode: 'INVALID_REQUEST' });
      expect(reply.body.results[0]).toMatchObject({ videoId: ids[0], transcript: { lang: 'en', content: expect.any(Array) } });
      const codes = new Set(reply.body.results.filter((r: { errorCode?: string }) => r.errorCode).map((r: { errorCode: string }) => r.errorCode));
      expect(codes).toEqual(new Set(['INVALID_REQUEST', 'TRANSCRIPT_UNAVAILABLE', 'CONTENT_UNAVAILABLE', 'CONTENT_NOT_FOUND']));

      // Concurrency is shown by the upstream seeing several requests at once (timing is for bench/).
      console.log(`transcript batch of 50 (40 found, 10 failing; 40 ms upstream latency): ${batchMs.toFixed(0)} ms, ${replay.maxInFlight} upstream requests at once`);
      expect(replay.maxInFlight).toBeGreaterThan(1);
    } finally {
      replay.latencyMs = 0;
    }
  }, 60_000);

  it('rejects more than 50 URLs or none, free of charge', async () => {
    const key = await server.createKey('Pro');
    expect((await post('/v1/youtube/transcript/batch', { urls: [] }, key)).status).toBe(400);
    expect((await post('/v1/youtube/transcript/batch', { urls: Array.from({ length: 51 }, () => 'https://youtu.be/GJLlxj_dtq8') }, key)).status).toBe(400);
    expect(await credits(key)).toBe(3000);
  });
});
