/**
 * TikTok, Instagram, X and Facebook as they answer in 2026 (issue 13), through the REST API:
 * recorded 2026 replies on loopback (GLEANER_UPSTREAM_OVERRIDES sends the platform and CDN hosts
 * there), generated media of each post's recorded length behind the recorded CDN paths, and a
 * loopback transcription server.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { usePlatformHarness } from '../support/platform-harness.js';
import { BUILTIN_PROFILE } from '../../src/profile/load.js';
import { fixture } from '../support/paths.js';

const q = encodeURIComponent;

const harness = usePlatformHarness({ chunkSeconds: 60, hosts: ['tiktok.com', 'tiktokcdn.com', 'tiktokcdn-us.com', 'tiktokcdn-eu.com', 'instagram.com', 'cdninstagram.com', 'x.com', 'twimg.com', 'facebook.com', 'fb.watch', 'fbcdn.net'] });
const { credits, get } = harness;

describe('X: guest tokens, the syndication fallback', () => {
  // The query id the built-in platform profile sends (X changes it; the profile follows).
  const QUERY = `/graphql/${BUILTIN_PROFILE.x.tweetQueryId}/TweetResultByRestId`;
  const VIDEO = '1491475671058681863';
  const syndicationVideo = JSON.parse(fixture('x/syndication/mbedfx_syndication_tweet-result_video_1491475671058681863_2026-07.json'));
  let issued = 0;
  let badNext = 0;
  const bad = new Set<string>();
  let rateLimited = false;
  const graphqlAnswers: number[] = [];
  const syndicationTokens: string[] = [];

  beforeAll(() => {
    // Built by this test: no guest/activate.json reply is recorded; this is its documented shape.
    harness.upstream.route('/1.1/guest/activate.json', () => {
      const token = `19000000000000000${String(++issued).padStart(2, '0')}`;
      if (badNext > 0) {
        badNext--;
        bad.add(token);
      }
      return { body: JSON.stringify({ guest_token: token }) };
    });
    harness.upstream.route(QUERY, (url, req) => {
      // Built by this test in X's error format: the refusals of 2026 (no body of them is recorded).
      if (rateLimited) {
        graphqlAnswers.push(429);
        return { status: 429, body: JSON.stringify({ errors: [{ code: 88, message: 'Rate limit exceeded' }] }) };
      }
      if (bad.has(String(req.headers['x-guest-token']))) {
        graphqlAnswers.push(403);
        return { status: 403, body: JSON.stringify({ errors: [{ code: 239, message: 'Bad guest token.' }] }) };
      }
      graphqlAnswers.push(200);
      const id = JSON.parse(url.searchParams.get('variables')!).tweetId as string;
      if (id === '20') return { body: fixture('x/syndication/mbedfx_guest-graphql_TweetResultByRestId_20_2026-07.json') };
      if (id === '1884695849596576004') return { body: fixture('x/syndication/mbedfx_guest-graphql_TweetWithVisibilityResults_2026-07.json') };
      return { body: JSON.stringify({ data: { tweetResult: {} } }) };
    });
    harness.upstream.route('/tweet-result', (url) => {
      syndicationTokens.push(url.searchParams.get('token') ?? '');
      const id = url.searchParams.get('id');
      if (id === VIDEO) return { body: JSON.stringify(syndicationVideo) };
      if (id === '1479837621337657345') return { body: fixture('x/syndication/mbedfx_syndication_tweet-result_animated_gif_2026-07.json') };
      if (id === '1234567890123456789') return { body: fixture('x/syndication/mbedfx_syndication_tweet-result_TweetTombstone_2026-07.json') };
      // Built by this test: the syndication API refusing too.
      if (id === '1999999999999999999') return { status: 429, body: '' };
      return { status: 404, body: '' };
    });
    const lightest = syndicationVideo.mediaDetails[0].video_info.variants.find((v: { bitrate?: number }) => v.bitrate === 288000);
    harness.upstream.serve(new URL(lightest.url).pathname, harness.media.make('nasa.mp4', 204.871), 'video/mp4');
  });

  beforeEach(() => {
    rateLimited = false;
    graphqlAnswers.length = 0;
    syndicationTokens.length = 0;
  });

  it('takes a fresh guest token when X answers "Bad guest token" (403, code 239)', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    badNext = 1;
    const before = issued;
    const reply = await get(`/v1/metadata?url=${q('https://x.com/jack/status/20')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ id: '20', description: 'just setting up my twttr', author: { handle: 'jack' } });
    expect(graphqlAnswers).toEqual([403, 200]);
    expect(issued - before).toBe(2);
    expect(syndicationTokens).toHaveLength(0);
  });

  it('reads a post behind a visibility wrapper from the 2026 guest reply', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://x.com/rileyreidx3/status/1884695849596576004')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ id: '1884695849596576004', author: { handle: 'rileyreidx3' } });
  });

  it('with every guest call answered 429 (code 88), gives metadata through the syndication API', async () => {
    rateLimited = true;
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q(`https://twitter.com/NASA/status/${VIDEO}`)}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      type: 'video',
      id: VIDEO,
      url: `https://x.com/NASA/status/${VIDEO}`,
      author: { name: 'NASA', handle: 'NASA', id: '11348282', url: 'https://x.com/NASA' },
      durationSeconds: 204.871,
      publishedAt: '2022-02-09T18:14:44.000Z',
      language: 'en',
    });
    expect(reply.body.stats ?? reply.body.counts).toMatchObject({ likes: 3376, comments: 77 });
    expect(reply.body.tags).toEqual(['VisionsOfVenus']);
    // X's &amp; is unescaped, and the trailing link to the video itself is dropped.
    expect(reply.body.description).toContain('plains & plateaus');
    expect(reply.body.description).not.toContain('https://t.co/NuEfFRtO9J');
    // A fresh token after the first 429, then the fallback; the token is the one derived from the id.
    expect(graphqlAnswers.length).toBeGreaterThanOrEqual(2);
    expect(graphqlAnswers.every((s) => s === 429)).toBe(true);
    expect(syndicationTokens).toEqual(['3m5lxayrch']);
  });

  it('with every guest call answered 429, transcribes the lightest MP4 the syndication API lists', async () => {
    rateLimited = true;
    const key = await harness.server.createKey('Free', { credits: 100 });
    const reply = await get(`/v1/x/transcript?url=${q(`https://x.com/NASA/status/${VIDEO}`)}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'x', videoId: VIDEO });
    expect(reply.body.durationMinutes).toBeCloseTo(204.871 / 60, 1);
    expect(reply.headers.get('x-credits-used')).toBe('8');
    expect(harness.stt.calls.length).toBeGreaterThanOrEqual(4);
    expect(harness.upstream.requests).toContain('GET /amplify_video/1491441845964001288/vid/480x270/33HTmZZcDoJuSqOu.mp4');
  });

  it('a tombstone, a GIF-only post, a deleted post and a syndication refusal are clear errors, charged nothing', async () => {
    rateLimited = true;
    const key = await harness.server.createKey('Free', { credits: 10 });
    const tomb = await get(`/v1/metadata?url=${q('https://x.com/a/status/1234567890123456789')}`, key);
    expect(tomb.status).toBe(403);
    expect(tomb.body.error.code).toBe('CONTENT_UNAVAILABLE');
    const gif = await get(`/v1/x/transcript?url=${q('https://x.com/Astropartigirl/status/1479837621337657345')}`, key);
    expect(gif.status).toBe(404);
    expect(gif.body.error).toMatchObject({ code: 'TRANSCRIPT_UNAVAILABLE' });
    expect(gif.body.error.message).toContain('GIF');
    const gone = await get(`/v1/x/transcript?url=${q('https://x.com/a/status/1555555555555555555')}`, key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('CONTENT_NOT_FOUND');
    const refused = await get(`/v1/metadata?url=${q('https://x.com/a/status/1999999999999999999')}`, key);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(refused.body.error.message).toContain('GLEANER_PROXY_URL_X');
    expect(await credits(key)).toBe(10);
  });
});

describe('Facebook: www pages and their Relay data', () => {
  const REEL = '4028623617267790';
  const page = fixture('facebook/2026/reelay_facebook_reel_page_4028623617267790_TRIMMED_2026.html');
  const payload = JSON.parse(/<script[^>]*data-sjs[^>]*>([\s\S]*?)<\/script>/.exec(page)![1]);
  const data = payload.require[0][3][0].__bbox.require[0][3][1].__bbox.result.data;
  const playback = data.video.creation_story.short_form_video_context.playback_video;
  const audioUrl = new URL(/<AdaptationSet[^>]*contentType="audio"[\s\S]*?<BaseURL>([^<]+)<\/BaseURL>/.exec(playback.videoDeliveryLegacyFields.dash_manifest_xml_string)![1].replaceAll('&amp;', '&'));
  const sdUrl = new URL(playback.videoDeliveryLegacyFields.browser_native_sd_url);

  beforeAll(() => {
    harness.upstream.serveBody(`/reel/${REEL}/`, page, 'text/html; charset=utf-8');
    harness.upstream.serveBody('/reel/1268443268066222/', page, 'text/html; charset=utf-8');
    harness.upstream.serve(audioUrl.pathname, harness.media.make('fb-audio.m4a', 7.4), 'audio/mp4');
    harness.upstream.serve(sdUrl.pathname, harness.media.make('fb-sd.mp4', 7.4), 'video/mp4');
    // Built by this test: a short link redirecting to the reel, as fb.watch does.
    harness.upstream.serveBody('/AbCdEf12/', '', 'text/html', { location: `https://www.facebook.com/reel/${REEL}/` }, 302);
    // Built by this test: the recorded page with a captions locale added to its playback video
    // (Facebook's field names, this test's values), and the SubRip file it names.
    const captioned = structuredClone(payload);
    const video = captioned.require[0][3][0].__bbox.require[0][3][1].__bbox.result.data.video.creation_story.short_form_video_context.playback_video;
    video.video_available_captions_locales = [{ locale: 'en_US', localized_language: 'English', captions_url: 'https://www.facebook.com/captions/reel-en.srt' }];
    const captionedPage = page.replace(/(<script[^>]*data-sjs[^>]*>)[\s\S]*?(<\/script>)/, (_m, open: string, close: string) => `${open}${JSON.stringify(captioned)}${close}`);
    harness.upstream.serveBody('/reel/4028623617267799/', captionedPage.replaceAll(REEL, '4028623617267799'), 'text/html; charset=utf-8');
    harness.upstream.serveBody('/captions/reel-en.srt', '1\n00:00:00,500 --> 00:00:03,000\nA reel with captions\n\n2\n00:00:03,000 --> 00:00:07,000\nread for one credit\n', 'application/x-subrip');
  });

  it('gives metadata from the 2026 reel page\'s ServerJS payload', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q(`https://www.facebook.com/reel/${REEL}`)}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ platform: 'facebook', type: 'video', id: REEL, url: `https://www.facebook.com/reel/${REEL}/` });
    expect(reply.body.durationSeconds).toBeCloseTo(7.4, 1);
    // The other reel on the same page is found by its own id.
    const other = await get(`/v1/metadata?url=${q('https://www.facebook.com/reel/1268443268066222')}`, key);
    expect(other.body).toMatchObject({ id: '1268443268066222', durationSeconds: 23.1 });
  });

  it('transcribes the reel from the DASH manifest\'s audio-only representation, not the video file', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/facebook/transcript?url=${q('https://fb.watch/AbCdEf12/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'facebook', videoId: REEL });
    expect(reply.headers.get('x-credits-used')).toBe('2');
    expect(harness.stt.calls.length).toBeGreaterThan(0);
    expect(harness.upstream.requests).toContain(`GET ${audioUrl.pathname}`);
    expect(harness.upstream.requests).not.toContain(`GET ${sdUrl.pathname}`);
  });

  it('uses the captions locales for 1 credit', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/facebook/transcript?url=${q('https://www.facebook.com/reel/4028623617267799')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ aiGenerated: false, lang: 'en-US', availableLangs: ['en-US'] });
    expect(reply.body.content[1]).toMatchObject({ text: 'read for one credit', offset: 3000 });
    expect(harness.stt.calls).toHaveLength(0);
  });
});

describe('Instagram: embedded Relay data, the logged-out GraphQL API, the embed page', () => {
  const reel = fixture('instagram/2026/reelay_instagram_reel_page_CDUMkliABpa_xig_polaris_media_TRIMMED_2026-08.html');
  const item = (() => {
    for (const m of reel.matchAll(/<script[^>]*data-sjs[^>]*>([\s\S]*?)<\/script>/g)) {
      const found = /"if_not_gated_logged_out":(\{[\s\S]*\})\}\},"extensions"/.exec(m[1]);
      if (found) return JSON.parse(found[1]);
    }
    throw new Error('no item in the fixture');
  })();
  // Built by this test: a logged-out page shell with no post data (what 2026 pages served to
  // data-centre addresses look like), so the embed page is the source.
  const shell = '<!DOCTYPE html><html><head><title>Instagram</title></head><body></body></html>';
  const fullPage = fixture('instagram/2026/mbedfx_instagram_fullpage_reel_DZghoo7PAzi_EDITED-username_2026-07-26.html');
  const feedItem = JSON.parse(fixture('instagram/2026/mbedfx_instagram_api-v1-feed-user_loggedout_datsun_EDITED-usernames_2026-07.json')).items[0];
  const feedAudio = new URL(/<AdaptationSet[^>]*contentType="audio"[\s\S]*?<BaseURL>([^<]+)<\/BaseURL>/.exec(feedItem.video_dash_manifest)![1].replaceAll('&amp;', '&'));
  const graphqlCalls: Array<{ form: URLSearchParams; lsd: string; appId: string }> = [];

  beforeAll(() => {
    harness.upstream.serveBody('/reel/CDUMkliABpa/', reel, 'text/html; charset=utf-8');
    const clip = harness.media.make('ig.mp4', 12);
    for (const v of item.video_versions) harness.upstream.serve(new URL(v.url).pathname, clip, 'video/mp4');
    // Variants of the recorded page, built by this test: the same reel without sound, and gated.
    harness.upstream.serveBody('/reel/CDUMkliABpb/', reel.replaceAll('CDUMkliABpa', 'CDUMkliABpb').replace('"has_audio":true', '"has_audio":false'), 'text/html; charset=utf-8');
    harness.upstream.serveBody('/reel/CDUMkliABpc/', reel.replace(/"if_not_gated_logged_out":\{[\s\S]*\}(\}\},"extensions")/, '"if_not_gated_logged_out":null$1'), 'text/html; charset=utf-8');
    harness.upstream.serveBody('/reel/Da5ynsiuAZ_/', shell, 'text/html; charset=utf-8');
    harness.upstream.serveBody('/p/Da5ynsiuAZ_/embed/captioned/', fixture('instagram/2026/mbedfx_instagram_embed-captioned_reel_Da5ynsiuAZ__2026-07-20.html'), 'text/html; charset=utf-8');
    harness.upstream.serveBody('/reel/DbN6SsKum-9/', shell, 'text/html; charset=utf-8');
    // Built by this test: Instagram rate limiting this harness.server.
    harness.upstream.serveBody('/reel/RateLimited1/', 'Please wait a few minutes before you try again.', 'text/plain', { 'retry-after': '0' }, 429);
    harness.upstream.serveBody('/p/DbN6SsKum-9/embed/captioned/', fixture('instagram/2026/mbedfx_instagram_embed_reel_DbN6SsKum-9_copyright-blocked_EDITED-username_2026-07-26.html'), 'text/html; charset=utf-8');
    // The recorded 2026 page served to a data-centre address: no post data, but the page's LSD token.
    harness.upstream.serveBody('/reel/DZghoo7PAzi/', fullPage, 'text/html; charset=utf-8');
    harness.upstream.route('/api/graphql', (_url, req, body) => {
      const form = new URLSearchParams(body);
      graphqlCalls.push({ form, lsd: String(req.headers['x-fb-lsd']), appId: String(req.headers['x-ig-app-id']) });
      // Built by this test: no /api/graphql reply is recorded. Its documented shape
      // (data.xig_polaris_media.if_not_gated_logged_out) around the recorded 2026 feed item of the
      // same reel, which Instagram's APIs give in one item shape.
      if (JSON.parse(form.get('variables') ?? '{}').media_id === String(feedItem.pk)) {
        return { body: JSON.stringify({ data: { xig_polaris_media: { if_not_gated_logged_out: feedItem } }, extensions: { is_final: true }, status: 'ok' }) };
      }
      return { body: JSON.stringify({ data: { xig_polaris_media: null }, status: 'ok' }) };
    });
    harness.upstream.serve(feedAudio.pathname, harness.media.make('ig-feed-audio.m4a', 38.96), 'audio/mp4');
  });

  it('asks the logged-out GraphQL API with the page\'s LSD token when the page carries no post', async () => {
    graphqlCalls.length = 0;
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/DZghoo7PAzi/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(graphqlCalls).toHaveLength(1);
    const call = graphqlCalls[0];
    // The token of the page's __eqmc script, the post's pk decoded from its shortcode, the configured doc_id.
    expect(call.lsd).toBe('AdRlbtmZsFfBKe5nujEz692xU1g');
    expect(call.form.get('lsd')).toBe('AdRlbtmZsFfBKe5nujEz692xU1g');
    expect(call.form.get('doc_id')).toBe('27130156389949648');
    expect(JSON.parse(call.form.get('variables')!)).toEqual({ media_id: '3918279604069731554' });
    expect(call.appId).toBe('936619743392459');
    expect(reply.body).toMatchObject({
      type: 'video',
      id: 'DZghoo7PAzi',
      author: { handle: 'fixture_user_4' },
      counts: { likes: 11647, comments: 215, views: 148889 },
      publishedAt: new Date(1781315520 * 1000).toISOString(),
    });
    expect(reply.body.durationSeconds).toBeCloseTo(38.96, 1);
    expect(harness.upstream.requests).not.toContain('GET /p/DZghoo7PAzi/embed/captioned/');
  });

  it('transcribes a GraphQL item from its DASH manifest\'s audio-only representation', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/instagram/transcript?url=${q('https://www.instagram.com/reel/DZghoo7PAzi/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'instagram', videoId: 'DZghoo7PAzi' });
    expect(harness.upstream.requests).toContain(`GET ${feedAudio.pathname}`);
    expect(harness.stt.calls.length).toBeGreaterThan(0);
  });

  it('gives metadata from the 2026 reel page\'s xig_polaris_media', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/CDUMkliABpa/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({
      platform: 'instagram',
      type: 'video',
      id: 'CDUMkliABpa',
      url: 'https://www.instagram.com/reel/CDUMkliABpa/',
      author: { handle: 'clippedinandfree', name: item.user.full_name, url: 'https://www.instagram.com/clippedinandfree/' },
      publishedAt: new Date(1596218083 * 1000).toISOString(),
    });
    expect(reply.body.createdAt).toMatch(/^2020-07-31T/);
    expect(reply.body.thumbnails[0]).toMatchObject({ width: 720, height: 1280 });
  });

  it('transcribes the reel from its lightest rendition through the provider', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/instagram/transcript?url=${q('https://www.instagram.com/reel/CDUMkliABpa/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ aiGenerated: true, platform: 'instagram', videoId: 'CDUMkliABpa' });
    expect(reply.headers.get('x-credits-used')).toBe('2');
    expect(harness.stt.calls.length).toBeGreaterThan(0);
  });

  it('reads the embed page when the post page carries no post: exact counts, duration, owner', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/Da5ynsiuAZ_/')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ type: 'video', id: 'Da5ynsiuAZ_', durationSeconds: 75.492, author: { handle: 'nasajpl', verified: true }, counts: { likes: 46280, comments: 495 } });
    expect(reply.body.description).toMatch(/^Mars in motion!/);
  });

  it('a reel without sound, a login-walled post, a copyright-blocked reel and a rate limit are clear errors, charged nothing', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const silent = await get(`/v1/instagram/transcript?url=${q('https://www.instagram.com/reel/CDUMkliABpb/')}`, key);
    expect(silent.status, JSON.stringify(silent.body)).toBe(404);
    expect(silent.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    expect(silent.body.error.message).toContain('no sound');
    // A login wall: this server logged out is refused; cookies or another address are the way out.
    const gated = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/CDUMkliABpc/')}`, key);
    expect(gated.status, JSON.stringify(gated.body)).toBe(503);
    expect(gated.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(gated.body.error.message).toContain('GLEANER_COOKIES_FILE');
    expect(gated.body.error.message).toContain('GLEANER_PROXY_URL_INSTAGRAM');
    const blocked = await get(`/v1/instagram/transcript?url=${q('https://www.instagram.com/reel/DbN6SsKum-9/')}`, key);
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(403);
    expect(blocked.body.error.message).toContain('copyright');
    const limited = await get(`/v1/metadata?url=${q('https://www.instagram.com/reel/RateLimited1/')}`, key);
    expect(limited.status, JSON.stringify(limited.body)).toBe(503);
    expect(limited.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(limited.body.error.message).toContain('GLEANER_PROXY_URL');
    expect(harness.stt.calls).toHaveLength(0);
    expect(await credits(key)).toBe(10);
  });
});

describe('TikTok: challenge pages, renditions with sound, caption lists, status codes, slideshows', () => {
  const page = fixture('tiktok/video_7571863205253778710.html');
  const REHYDRATION = /(<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>)([\s\S]*?)(<\/script>)/;
  type Item = { video: Record<string, any>; stats: Record<string, number> };
  /** The recorded page with its id changed and its item edited as the test says. */
  const variant = (id: string, edit: (item: Item) => void = () => undefined) =>
    page.replaceAll('7571863205253778710', id).replace(REHYDRATION, (_m, open: string, json: string, close: string) => {
      const data = JSON.parse(json);
      edit(data.__DEFAULT_SCOPE__['webapp.video-detail'].itemInfo.itemStruct);
      return `${open}${JSON.stringify(data)}${close}`;
    });
  const original = JSON.parse(REHYDRATION.exec(page)![2]).__DEFAULT_SCOPE__['webapp.video-detail'].itemInfo.itemStruct;
  const captionless = (item: Item) => {
    item.video.subtitleInfos = [];
    item.video.claInfo.captionInfos = [];
  };
  const setRenditions = (item: Item, h264: string, h265: string) => {
    for (const r of item.video.bitrateInfo) r.PlayAddr.UrlList = [r.CodecType === 'h264' ? h264 : h265];
    item.video.playAddr = h264;
  };

  // Built by this test in the format yt-dlp's tiktok.py reads (no challenge page is recorded):
  // SHA-256(a + n) = c for n = 123456.
  const prefix = Buffer.from('gleaner-test-challenge');
  const challengeData = { v: { a: prefix.toString('base64'), c: createHash('sha256').update(prefix).update('123456').digest('base64') }, s: 'test' };
  const challengePage = `<!DOCTYPE html><html><head><title>Please wait...</title></head><body><div id="cs" class="${Buffer.from(JSON.stringify(challengeData)).toString('base64')}"></div><div id="wci" class="_wafchallengeid"></div><p>Please wait...</p></body></html>`;
  let challengeAnswers: string[] = [];

  beforeAll(() => {
    const solvedPage = variant('7571863205253778712');
    harness.upstream.route('/@illojuan/video/7571863205253778712', (_url, req) => {
      const cookie = /_wafchallengeid=([^;]+)/.exec(String(req.headers.cookie ?? ''))?.[1];
      if (cookie) {
        const answered = JSON.parse(Buffer.from(cookie, 'base64').toString('utf8'));
        const n = Buffer.from(answered.d, 'base64').toString('utf8');
        challengeAnswers.push(n);
        if (createHash('sha256').update(prefix).update(n).digest('base64') === challengeData.v.c) return { type: 'text/html', body: solvedPage };
      }
      return { type: 'text/html', body: challengePage };
    });
    // Captions only in claInfo.captionInfos (subtitleInfos empty).
    harness.upstream.serveBody('/@illojuan/video/7571863205253778713', variant('7571863205253778713', (item) => (item.video.subtitleInfos = [])), 'text/html');
    const es = original.video.claInfo.captionInfos.find((c: { language: string }) => c.language === 'spa-ES');
    harness.upstream.serveBody(new URL(es.url).pathname, 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHola a todos\n\n00:00:02.000 --> 00:00:04.000\ndesde captionInfos\n', 'text/vtt');
    // No captions; the H.264 rendition holds no sound, the H.265 one does.
    harness.upstream.serveBody('/@illojuan/video/7571863205253778714', variant('7571863205253778714', (item) => {
      captionless(item);
      setRenditions(item, 'https://v16-webapp-prime.tiktok.com/r714/h264/', 'https://v16-webapp-prime.tiktok.com/r714/h265/');
    }), 'text/html');
    const picture = harness.media.make('tt-picture-only.mp4', 8, { video: true });
    const silent = harness.media.path('tt-silent.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', picture, '-an', '-c:v', 'copy', silent]);
    harness.upstream.serve('/r714/h264/', silent, 'video/mp4');
    harness.upstream.serve('/r714/h265/', harness.media.make('tt-sound.mp4', 8), 'video/mp4');
    // No captions; the H.264 rendition answers 403 and the other is a video-only /media-video-hvc1/ one.
    harness.upstream.serveBody('/@illojuan/video/7571863205253778715', variant('7571863205253778715', (item) => {
      captionless(item);
      setRenditions(item, 'https://v16-webapp-prime.tiktok.com/r715/h264/', 'https://v16-webapp-prime.tiktok.com/r715/media-video-hvc1/');
    }), 'text/html');
    harness.upstream.serveBody('/r715/h264/', 'Forbidden', 'text/plain', {}, 403);
    harness.upstream.serve('/r715/media-video-hvc1/', harness.media.make('tt-hvc1.mp4', 8), 'video/mp4');
    harness.upstream.serveBody('/@someone/video/7660566211100511517', fixture('tiktok/2026/mbedfx_tiktok-deleted_status10204_2026-07-18.html'), 'text/html');
    // Built by this test: status 10204 without TikTok's "doesn't exist" message (an address block).
    harness.upstream.serveBody('/@someone/video/7660566211100511518', fixture('tiktok/2026/mbedfx_tiktok-deleted_status10204_2026-07-18.html').replace('"statusMsg":"item doesn\'t exist"', '"statusMsg":""'), 'text/html');
    harness.upstream.serveBody('/@duolingo/video/7663591047909379341', fixture('tiktok/2026/mbedfx_tiktok-slideshow_7663591047909379341_2026-07.html'), 'text/html');
  });

  it('solves the WAF proof-of-work challenge and reads the page it then gets: exact counts', async () => {
    challengeAnswers = [];
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/metadata?url=${q('https://www.tiktok.com/@illojuan/video/7571863205253778712')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(challengeAnswers).toEqual(['123456']);
    expect(reply.body).toMatchObject({ id: '7571863205253778712', type: 'video', counts: { views: 192100, likes: 25500, comments: 146, shares: 2156, saves: 1311 }, durationSeconds: 64 });
  });

  it('reads captions from claInfo.captionInfos when subtitleInfos is empty, for 1 credit', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/tiktok/transcript?url=${q('https://www.tiktok.com/@illojuan/video/7571863205253778713')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.headers.get('x-credits-used')).toBe('1');
    expect(reply.body).toMatchObject({ lang: 'es-ES', aiGenerated: false });
    expect(reply.body.content[1]).toMatchObject({ text: 'desde captionInfos', offset: 2000 });
    expect(harness.stt.calls).toHaveLength(0);
  });

  it('passes over a rendition without sound: only audio reaches speech to text', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/tiktok/transcript?url=${q('https://www.tiktok.com/@illojuan/video/7571863205253778714')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.aiGenerated).toBe(true);
    expect(harness.upstream.requests).toContain('GET /r714/h264/');
    expect(harness.upstream.requests).toContain('GET /r714/h265/');
    expect(harness.stt.calls.length).toBeGreaterThan(0);
    expect(harness.stt.calls.reduce((sum, c) => sum + c.durationSeconds, 0)).toBeCloseTo(8, 0);
  });

  it('falls through a 403 rendition and never fetches a video-only /media-video-hvc1/ one', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await get(`/v1/tiktok/transcript?url=${q('https://www.tiktok.com/@illojuan/video/7571863205253778715')}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(harness.upstream.requests).toContain('GET /r715/h264/');
    expect(harness.upstream.requests).not.toContain('GET /r715/media-video-hvc1/');
    expect(harness.stt.calls).toHaveLength(0);
    expect(await credits(key)).toBe(10);
  });

  it('maps 10204 to not-found or blocked by its message; a slideshow is a carousel and a clear 4xx for transcripts', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const gone = await get(`/v1/metadata?url=${q('https://www.tiktok.com/@someone/video/7660566211100511517')}`, key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('CONTENT_NOT_FOUND');
    const blocked = await get(`/v1/metadata?url=${q('https://www.tiktok.com/@someone/video/7660566211100511518')}`, key);
    expect(blocked.status).toBe(503);
    expect(blocked.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(blocked.body.error.message).toContain('GLEANER_PROXY_URL_TIKTOK');
    const slides = await get(`/v1/metadata?url=${q('https://www.tiktok.com/@duolingo/photo/7663591047909379341')}`, key);
    expect(slides.status, JSON.stringify(slides.body)).toBe(200);
    expect(slides.body).toMatchObject({ type: 'carousel', id: '7663591047909379341', counts: { likes: 1053, comments: 195, shares: 56, views: 65300, saves: 119 } });
    expect(slides.body.media.items).toHaveLength(5);
    const transcript = await get(`/v1/tiktok/transcript?url=${q('https://www.tiktok.com/@duolingo/photo/7663591047909379341')}`, key);
    expect(transcript.status).toBe(404);
    expect(transcript.body.error.code).toBe('TRANSCRIPT_UNAVAILABLE');
    // Only the slideshow's metadata is charged (1 credit); the refusals are free.
    expect(await credits(key)).toBe(9);
  });
});
