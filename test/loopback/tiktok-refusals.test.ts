/**
 * TikTok turning a browser identity away (issue 28): a 200 "Site Under Maintenance" page (yt-dlp#17403,
 * #17604) or the app's shell without video data (#17393) in place of the video. One more request as
 * the profile's other browser identity; refused again, UPSTREAM_BLOCKED naming the proxy and
 * user-agent settings, charged nothing. The refusal pages are fixtures modelled on those reports
 * (test/fixtures/tiktok/SOURCE.md); the page served to the second identity is the recorded real one.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type http from 'node:http';
import { usePlatformHarness } from '../support/platform-harness.js';
import { tiktokMaintenancePage, tiktokPage, tiktokShell, tiktokWithoutVideoScope } from '../support/tiktok-refusals.js';
import { BUILTIN_PROFILE } from '../../src/profile/load.js';

const q = encodeURIComponent;
const harness = usePlatformHarness({ chunkSeconds: 60, hosts: ['tiktok.com', 'tiktokcdn.com', 'tiktokcdn-eu.com'] });
const { desktop, mobile } = BUILTIN_PROFILE.browsers;

/** The paths of the recorded page's caption tracks. */
const captionPaths = new Set<string>();

/** The page requests each test's video saw, by the identity that asked. */
let asked: Array<{ path: string; userAgent: string; mobileHint: string; cookie: string }> = [];

type Page = () => string;

/** A video page that answers the desktop identity with one page and the mobile one with another. */
function servePerIdentity(id: string, forDesktop: Page, forMobile: Page, headers: Record<string, string> = {}): void {
  const path = `/@illojuan/video/${id}`;
  harness.upstream.route(path, (_url, req: http.IncomingMessage) => {
    const userAgent = String(req.headers['user-agent'] ?? '');
    asked.push({ path, userAgent, mobileHint: String(req.headers['sec-ch-ua-mobile'] ?? ''), cookie: String(req.headers.cookie ?? '') });
    return { type: 'text/html; charset=utf-8', body: userAgent === mobile.userAgent ? forMobile() : forDesktop(), headers };
  });
}

const video = (id: string) => `https://www.tiktok.com/@illojuan/video/${id}`;

beforeAll(() => {
  const real = (id: string) => () => tiktokPage(id);
  servePerIdentity('7571863205253778730', tiktokMaintenancePage, real('7571863205253778730'), { 'set-cookie': 'tt_chain_token=refused-session; Path=/; Domain=.tiktok.com' });
  servePerIdentity('7571863205253778731', tiktokMaintenancePage, tiktokMaintenancePage);
  servePerIdentity('7571863205253778732', tiktokShell, real('7571863205253778732'));
  servePerIdentity('7571863205253778733', tiktokShell, tiktokMaintenancePage);
  servePerIdentity('7571863205253778734', tiktokWithoutVideoScope, tiktokWithoutVideoScope);
  servePerIdentity('7571863205253778735', real('7571863205253778735'), tiktokMaintenancePage);
  // The caption tracks of the recorded page, for the transcript served to the second identity.
  const item = JSON.parse(/<script[^>]+id="__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>([\s\S]*?)<\/script>/.exec(tiktokPage('7571863205253778730'))![1]).__DEFAULT_SCOPE__['webapp.video-detail'].itemInfo.itemStruct;
  for (const track of item.video.subtitleInfos as Array<{ Url: string }>) {
    // Built by this test (no TikTok WebVTT body is recorded anywhere).
    captionPaths.add(new URL(track.Url).pathname);
    harness.upstream.serveBody(new URL(track.Url).pathname, 'WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHola a todos\n', 'text/vtt');
  }
});

beforeEach(() => {
  asked = [];
});

describe('TikTok refusing a browser identity', () => {
  it('a "Site Under Maintenance" page falls through to the mobile identity, which gets the video', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await harness.get(`/v1/metadata?url=${q(video('7571863205253778730'))}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ platform: 'tiktok', id: '7571863205253778730', author: { handle: 'illojuan' }, counts: { views: 192100 } });
    expect(asked.map((a) => a.userAgent)).toEqual([desktop.userAgent, mobile.userAgent]);
    expect(asked.map((a) => a.mobileHint)).toEqual(['?0', '?1']);
    // A fresh session: the refused exchange's cookies are not sent as the other identity.
    expect(asked[1].cookie).not.toContain('refused-session');
  });

  it('the transcript of a video served to the mobile identity fetches its captions as that identity', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await harness.get(`/v1/tiktok/transcript?url=${q(video('7571863205253778730'))}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.content[0]).toMatchObject({ text: 'Hola a todos' });
    expect(reply.headers.get('x-credits-used')).toBe('1');
    const captions = harness.upstream.log.filter((r) => captionPaths.has(r.path));
    expect(captions.length).toBeGreaterThan(0);
    for (const caption of captions) expect(caption.headers['user-agent']).toBe(mobile.userAgent);
  });

  it('the app shell without video data (no challenge in it) falls through to the mobile identity too', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await harness.get(`/v1/metadata?url=${q(video('7571863205253778732'))}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.id).toBe('7571863205253778732');
    expect(asked).toHaveLength(2);
  });

  it('a video served to the first identity is asked for once', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await harness.get(`/v1/metadata?url=${q(video('7571863205253778735'))}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(asked.map((a) => a.userAgent)).toEqual([desktop.userAgent]);
  });

  it.each([
    ['both identities get the maintenance page', '7571863205253778731', /Site Under Maintenance/],
    ['the shell, then the maintenance page', '7571863205253778733', /app shell without video data[\s\S]*Site Under Maintenance/],
  ])('%s: UPSTREAM_BLOCKED (503) naming the proxy and user-agent settings, charged nothing', async (_name, id, what) => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    for (const path of [`/v1/metadata?url=${q(video(id))}`, `/v1/tiktok/transcript?url=${q(video(id))}`]) {
      const reply = await harness.get(path, key);
      expect(reply.status, JSON.stringify(reply.body)).toBe(503);
      expect(reply.body.error.code).toBe('UPSTREAM_BLOCKED');
      expect(reply.body.error.message).toMatch(what);
      expect(reply.body.error.message).toContain('GLEANER_PROXY_URL_TIKTOK');
      expect(reply.body.error.message).toContain('GLEANER_PLATFORM_PROFILE');
      expect(reply.body.error.message).not.toMatch(/changed its pages|Update Gleaner/);
    }
    // One retry per call, no more: two calls, two identities each.
    expect(asked.map((a) => a.userAgent)).toEqual([desktop.userAgent, mobile.userAgent, desktop.userAgent, mobile.userAgent]);
    expect(await harness.credits(key)).toBe(10);
  });

  it('the app data without the video in it, for both identities, is still a changed page (UPSTREAM_CHANGED), free', async () => {
    const key = await harness.server.createKey('Free', { credits: 10 });
    const reply = await harness.get(`/v1/metadata?url=${q(video('7571863205253778734'))}`, key);
    expect(reply.status, JSON.stringify(reply.body)).toBe(502);
    expect(reply.body.error.code).toBe('UPSTREAM_CHANGED');
    expect(asked).toHaveLength(2);
    expect(await harness.credits(key)).toBe(10);
  });
});
