/**
 * The platform profile (issue 22): what the platforms change month to month is data, validated at
 * start, overridable with GLEANER_PLATFORM_PROFILE, and what Gleaner really sends. The YouTube
 * checks run on the loopback replay of recorded replies and read the requests as they arrive.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.js';
import { FIXTURES, startYoutubeReplay, type YoutubeReplay } from './support/youtube-replay.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { BUILTIN_PROFILE, deepMerge, type PlatformProfile } from '../src/profile/load.js';
import { profileCheck } from '../src/cli/doctor.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-profile-test-'));
const writeJson = (name: string, value: unknown) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
};
const config = (env: Record<string, string>) => loadConfig({ GLEANER_DATA_DIR: tmp, ...env });

/** Runs the CLI; resolves with its exit code and output. */
function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const full: Record<string, string | undefined> = { ...process.env, GLEANER_DATA_DIR: fs.mkdtempSync(path.join(tmp, 'data-')), GLEANER_PORT: '0', ...env };
  for (const name of ['GLEANER_STT_URL', 'GLEANER_LLM_URL', 'GLEANER_STORE_URL', 'GLEANER_PROXY_URL', 'GLEANER_PLATFORM_PROFILE', 'GLEANER_YOUTUBE_CLIENTS']) {
    if (!(name in env)) delete full[name];
  }
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: full, timeout: 110_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the profile as configuration', () => {
  it('a file is deep-merged over the built-in profile: objects key by key, lists replaced', () => {
    const file = writeJson('android.json', { youtube: { clients: { ANDROID: { clientVersion: '21.40.100' } }, order: { captions: ['ANDROID', 'IOS'] } } });
    const profile = config({ GLEANER_PLATFORM_PROFILE: file }).platformProfile;
    expect(profile.youtube.clients.ANDROID).toEqual({ ...BUILTIN_PROFILE.youtube.clients.ANDROID, clientVersion: '21.40.100' });
    expect(profile.youtube.order.captions).toEqual(['ANDROID', 'IOS']);
    expect(profile.youtube.order.audio).toEqual(BUILTIN_PROFILE.youtube.order.audio);
    expect(profile.x).toEqual(BUILTIN_PROFILE.x);
    expect(deepMerge({ a: { b: 1, c: [1, 2] } }, { a: { c: [3] } })).toEqual({ a: { b: 1, c: [3] } });
  });

  it('the older variables are shorthands for their entries, and win over the file', () => {
    const file = writeJson('x.json', { x: { tweetQueryId: 'FromTheFile' } });
    const profile = config({
      GLEANER_PLATFORM_PROFILE: file,
      GLEANER_YOUTUBE_CLIENTS: 'ios, visionos',
      GLEANER_X_TWEET_QUERY_ID: 'FromTheVariable',
      GLEANER_INSTAGRAM_DOC_ID: '123456789',
    }).platformProfile;
    expect(profile.youtube.order).toMatchObject({ captions: ['IOS', 'VISIONOS'], audio: ['IOS', 'VISIONOS'] });
    expect(profile.x.tweetQueryId).toBe('FromTheVariable');
    expect(profile.instagram.docId).toBe('123456789');
  });

  it('a bad file stops the configuration naming the variable and the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ youtube: { clients: { ANDROID: { clientVersion: 21 } } } }, /youtube\.clients\.ANDROID\.clientVersion/],
      [{ browsers: { desktop: { userAgnet: 'typo' } } }, /browsers\.desktop.*userAgnet/],
      [{ youtube: { order: { captions: ['VISIONOS', 'PALM_PILOT'] } } }, /youtube\.order\.captions\.1.*PALM_PILOT/],
      [{ instagram: { docId: 'not-digits' } }, /instagram\.docId/],
      [{ x: { checked: { date: 'last week', source: 'x' } } }, /x\.checked\.date/],
      ['{ not json', /is not JSON/],
      [[1, 2], /one JSON object/],
    ];
    for (const [content, field] of cases) {
      const file = writeJson('bad.json', content);
      let error: unknown;
      try {
        config({ GLEANER_PLATFORM_PROFILE: file });
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(content)).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain('GLEANER_PLATFORM_PROFILE');
      expect((error as Error).message).toMatch(field);
    }
    expect(() => config({ GLEANER_PLATFORM_PROFILE: path.join(tmp, 'missing.json') })).toThrow(/GLEANER_PLATFORM_PROFILE: cannot read/);
  });

  it('GLEANER_YOUTUBE_CLIENTS may name any client the profile describes; another is an error naming the variable', () => {
    expect(config({ GLEANER_YOUTUBE_CLIENTS: 'TV,WEB_EMBEDDED,MWEB' }).platformProfile.youtube.order.captions).toEqual(['TV', 'WEB_EMBEDDED', 'MWEB']);
    expect(() => config({ GLEANER_YOUTUBE_CLIENTS: 'VISIONOS,PALM_PILOT' })).toThrow(/GLEANER_YOUTUBE_CLIENTS: youtube\.order\.captions\.1: names "PALM_PILOT"/);
  });

  it('a malformed profile stops `gleaner serve` with the field named, before it listens', async () => {
    const file = writeJson('serve-bad.json', { youtube: { clients: { ANDROID: { clientVersion: 21 } } } });
    const run = await cli(['serve'], { GLEANER_PLATFORM_PROFILE: file });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('GLEANER_PLATFORM_PROFILE');
    expect(run.stderr).toContain('youtube.clients.ANDROID.clientVersion');
    expect(run.stdout).not.toMatch(/listening/i);
  }, 120_000);

  it('`gleaner profile --json` prints the merged profile, and that output saved and edited is a valid profile file', async () => {
    const first = await cli(['profile', '--json'], { GLEANER_X_TWEET_QUERY_ID: 'ShorthandId' });
    expect(first.code, first.stderr).toBe(0);
    const printed = JSON.parse(first.stdout) as PlatformProfile;
    expect(printed.x.tweetQueryId).toBe('ShorthandId');
    expect(printed.youtube.clients.ANDROID.clientVersion).toBe(BUILTIN_PROFILE.youtube.clients.ANDROID.clientVersion);
    printed.youtube.clients.ANDROID.clientVersion = '21.45.1';
    const file = writeJson('edited.json', printed);
    const second = await cli(['profile', '--json'], { GLEANER_PLATFORM_PROFILE: file });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual(printed);
    const human = await cli(['profile'], {});
    expect(human.stdout).toContain(`Platform profile of ${BUILTIN_PROFILE.date}`);
    expect(human.stdout).toContain(BUILTIN_PROFILE.browsers.desktop.userAgent);
  }, 120_000);

  it('`gleaner profile --json` leaves out a bearer token and login headers the operator set, and its output still round-trips (issue 20)', async () => {
    const token = 'OperatorBearer-PlantedSecret-5c1e9a7d';
    const fileToken = 'FileBearer-PlantedSecret-2b8f4e6a';
    const cookie = 'sessionid=ProfileCookie-PlantedSecret-9d3a';
    // The built-in token is the public web client's: printed as it is when nobody set another.
    const plain = await cli(['profile', '--json'], {});
    expect((JSON.parse(plain.stdout) as PlatformProfile).x.bearerToken).toBe(BUILTIN_PROFILE.x.bearerToken);
    expect(plain.stderr).not.toContain('Left out');

    const withVariable = await cli(['profile', '--json'], { GLEANER_X_BEARER_TOKEN: token });
    expect(withVariable.code, withVariable.stderr).toBe(0);
    expect(withVariable.stdout + withVariable.stderr).not.toContain(token);
    expect(withVariable.stderr).toContain('x.bearerToken');
    const printed = JSON.parse(withVariable.stdout) as PlatformProfile;
    expect(printed.x).not.toHaveProperty('bearerToken');
    expect(printed.x.tweetQueryId).toBe(BUILTIN_PROFILE.x.tweetQueryId);
    // Saved, it is a valid profile file: the built-in token without the variable, the variable's with it.
    const saved = writeJson('without-token.json', printed);
    expect(config({ GLEANER_PLATFORM_PROFILE: saved }).platformProfile.x.bearerToken).toBe(BUILTIN_PROFILE.x.bearerToken);
    expect(config({ GLEANER_PLATFORM_PROFILE: saved, GLEANER_X_BEARER_TOKEN: token }).platformProfile.x.bearerToken).toBe(token);
    const again = await cli(['profile', '--json'], { GLEANER_PLATFORM_PROFILE: saved, GLEANER_X_BEARER_TOKEN: token });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(printed);

    // A token and a Cookie header in the operator's profile file: left out too, and never in the summary.
    const file = writeJson('with-secrets.json', { x: { bearerToken: fileToken }, tiktok: { pageHeaders: { Cookie: cookie, 'X-Kept': 'kept' } } });
    const fromFile = await cli(['profile', '--json'], { GLEANER_PLATFORM_PROFILE: file });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout + fromFile.stderr).not.toContain(fileToken);
    expect(fromFile.stdout + fromFile.stderr).not.toContain(cookie);
    expect(fromFile.stderr).toContain('tiktok.pageHeaders.Cookie');
    const fromFilePrinted = JSON.parse(fromFile.stdout) as PlatformProfile;
    expect(fromFilePrinted.tiktok.pageHeaders).toEqual({ ...BUILTIN_PROFILE.tiktok.pageHeaders, 'X-Kept': 'kept' });
    expect(config({ GLEANER_PLATFORM_PROFILE: writeJson('from-file-saved.json', fromFilePrinted) }).platformProfile.x.bearerToken).toBe(BUILTIN_PROFILE.x.bearerToken);
    const human = await cli(['profile'], { GLEANER_PLATFORM_PROFILE: file, GLEANER_X_BEARER_TOKEN: token });
    expect(human.code, human.stderr).toBe(0);
    for (const secret of [token, fileToken, cookie]) expect(human.stdout + human.stderr).not.toContain(secret);
  }, 120_000);
});

describe('identities', () => {
  /** The release this profile ships with; no identity may be older than six months at it. */
  const RELEASE = Date.parse('2026-11-25T00:00:00Z');
  const SIX_MONTHS_MS = 183 * 24 * 60 * 60 * 1000;

  it('every user agent of the built-in profile was checked against a public source less than six months before release', () => {
    const identities = [
      ...Object.entries(BUILTIN_PROFILE.browsers).map(([name, b]) => ({ name: `browsers.${name}`, userAgent: b.userAgent, checked: b.checked })),
      ...Object.entries(BUILTIN_PROFILE.youtube.clients).map(([name, c]) => ({ name: `youtube.clients.${name}`, userAgent: c.userAgent, checked: c.checked })),
      { name: 'tiktok', userAgent: undefined, checked: BUILTIN_PROFILE.tiktok.checked },
      { name: 'x', userAgent: undefined, checked: BUILTIN_PROFILE.x.checked },
      { name: 'instagram', userAgent: undefined, checked: BUILTIN_PROFILE.instagram.checked },
    ];
    expect(identities.length).toBeGreaterThanOrEqual(9);
    for (const identity of identities) {
      const checked = Date.parse(`${identity.checked.date}T00:00:00Z`);
      expect(RELEASE - checked, `${identity.name} checked ${identity.checked.date}`).toBeLessThan(SIX_MONTHS_MS);
      expect(checked, identity.name).toBeLessThanOrEqual(RELEASE);
      expect(identity.checked.source, identity.name).toMatch(/^https:\/\//);
    }
  });

  it('each browser identity is one Chrome of the last six months whose client hints name the same major, with navigation fetch metadata', () => {
    for (const [name, identity] of Object.entries(BUILTIN_PROFILE.browsers)) {
      const major = Number(/Chrome\/(\d+)\./.exec(identity.userAgent)?.[1]);
      // Chrome 145 shipped in February 2026: older majors were retired by the sources before this release.
      expect(major, name).toBeGreaterThanOrEqual(145);
      expect(identity.headers['sec-ch-ua'], name).toContain(`"Google Chrome";v="${major}"`);
      expect(identity.headers['sec-ch-ua-mobile'], name).toBe(name === 'mobile' ? '?1' : '?0');
      expect(identity.userAgent.includes('Mobile'), name).toBe(name === 'mobile');
      expect(identity.headers, name).toMatchObject({ 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'none' });
    }
  });
});

describe('what YouTube is sent', () => {
  let replay: YoutubeReplay;
  let provider: { url: string; close(): Promise<void> };
  const servers: TestServer[] = [];
  const KX3 = (JSON.parse(fs.readFileSync(path.join(FIXTURES, 'newpipe/stream/youtubestreamextractordefault/audiotracklanguage/generated_mock_3.json'), 'utf8')) as { response: { responseBody: string } }).response.responseBody;
  const JSON3_EN = fs.readFileSync(path.join(FIXTURES, 'timedtext-json3/bilingualtube_timedtext_json3_CVMO61kLAM8_2026-01.json'), 'utf8');

  async function server(env: Record<string, string>): Promise<TestServer> {
    const started = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}`, ...env } });
    servers.push(started);
    return started;
  }

  beforeAll(async () => {
    replay = await startYoutubeReplay();
    // Built by this test from the recorded reply: the IOS answer with its caption URLs marked exp=xpe
    // (they want a PO token) and naming no client, so Gleaner adds c= itself.
    replay.intercept = (request) => {
      if (request.path === '/youtubei/v1/player' && request.client === 'IOS') {
        const player = JSON.parse(KX3) as { captions: { playerCaptionsTracklistRenderer: { captionTracks: Array<{ baseUrl: string }> } } };
        for (const track of player.captions.playerCaptionsTracklistRenderer.captionTracks) track.baseUrl += '&exp=xpe';
        return { body: JSON.stringify(player) };
      }
      if (request.path === '/api/timedtext') return { body: JSON3_EN };
      return undefined;
    };
    // A PO-token provider speaking bgutil-ytdlp-pot-provider's HTTP API.
    const pot = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ poToken: 'test-pot', expiresAt: new Date(Date.now() + 3_600_000).toISOString() })));
    });
    pot.listen(0, '127.0.0.1');
    await once(pot, 'listening');
    provider = { url: `http://127.0.0.1:${(pot.address() as AddressInfo).port}`, close: () => new Promise((resolve) => pot.close(() => resolve())) };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all([replay?.close(), provider?.close()]);
  });

  const playerRequests = (mark: number) =>
    replay.requests.slice(mark).filter((r) => r.path === '/youtubei/v1/player').map((r) => ({ client: (JSON.parse(r.body) as { context: { client: Record<string, unknown> } }).context.client, headers: r.headers }));

  it('with GLEANER_PLATFORM_PROFILE changing the ANDROID version, the player request carries that version and user agent', async () => {
    const file = writeJson('android-version.json', {
      youtube: { clients: { ANDROID: { clientVersion: '21.47.200', userAgent: 'com.google.android.youtube/21.47.200 (Linux; U; Android 14) gzip' } }, order: { captions: ['ANDROID'] } },
    });
    const s = await server({ GLEANER_PLATFORM_PROFILE: file });
    const key = await s.createKey('Free', { credits: 10 });
    const mark = replay.requests.length;
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const [sent] = playerRequests(mark);
    expect(sent.client).toMatchObject({ clientName: 'ANDROID', clientVersion: '21.47.200', userAgent: 'com.google.android.youtube/21.47.200 (Linux; U; Android 14) gzip', androidSdkVersion: 30 });
    expect(sent.headers['x-youtube-client-version']).toBe('21.47.200');
    expect(sent.headers['x-youtube-client-name']).toBe('3');
    expect(sent.headers['user-agent']).toBe('com.google.android.youtube/21.47.200 (Linux; U; Android 14) gzip');
  });

  it('the built-in profile sends the current clients (ANDROID 21.26.364, IOS 21.26.4), not youtubei.js\'s own', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'ANDROID,IOS', GLEANER_YOUTUBE_POT_PROVIDER_URL: provider.url });
    const key = await s.createKey('Free', { credits: 10 });
    // An ERROR from ANDROID makes Gleaner ask IOS too (read through the next client).
    const previous = replay.intercept!;
    replay.intercept = (request) => (request.path === '/youtubei/v1/player' && request.client === 'ANDROID' ? { body: JSON.stringify({ playabilityStatus: { status: 'ERROR', reason: 'This video is unavailable' } }) } : previous(request));
    const mark = replay.requests.length;
    try {
      const reply = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    } finally {
      replay.intercept = previous;
    }
    const [android, ios] = playerRequests(mark);
    expect(android.client).toMatchObject({ clientName: 'ANDROID', clientVersion: '21.26.364' });
    expect(ios.client).toMatchObject({ clientName: 'IOS', clientVersion: '21.26.4', deviceModel: 'iPhone16,2' });
    expect(ios.headers['user-agent']).toBe(BUILTIN_PROFILE.youtube.clients.IOS.userAgent);
  });

  it('WEB requests (metadata) carry the profile\'s desktop browser, not youtubei.js\'s random older Chrome', async () => {
    const s = await server({});
    const key = await s.createKey('Free', { credits: 10 });
    const mark = replay.requests.length;
    const reply = await s.request('GET', `/v1/metadata?url=${encodeURIComponent('https://www.youtube.com/watch?v=kX3nB4PpJko')}`, { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const web = replay.requests.slice(mark).filter((r) => r.method === 'POST');
    expect(web.length).toBeGreaterThan(0);
    for (const request of web) {
      expect(request.headers['user-agent']).toBe(BUILTIN_PROFILE.browsers.desktop.userAgent);
      expect((JSON.parse(request.body) as { context: { client: { clientVersion: string } } }).context.client.clientVersion).toBe(BUILTIN_PROFILE.youtube.clients.WEB.clientVersion);
    }
  });

  it('a client whose captions the profile marks as wanting a PO token (WEB) gets one from the provider even when its URL is unmarked', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'WEB', GLEANER_YOUTUBE_POT_PROVIDER_URL: provider.url });
    const key = await s.createKey('Free', { credits: 10 });
    const mark = replay.requests.length;
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const caption = new URL(replay.requests.slice(mark).find((r) => r.path === '/api/timedtext')!.url, 'http://x');
    expect(caption.searchParams.get('exp')).toBeNull();
    expect(caption.searchParams.get('pot')).toBe('test-pot');
    expect(caption.searchParams.get('c')).toBe('WEB');
  });

  it('the PO-token path\'s c= is the clientName the client really sent (IOS)', async () => {
    const s = await server({ GLEANER_YOUTUBE_CLIENTS: 'IOS', GLEANER_YOUTUBE_POT_PROVIDER_URL: provider.url });
    const key = await s.createKey('Free', { credits: 10 });
    const mark = replay.requests.length;
    const reply = await s.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const [sent] = playerRequests(mark);
    const caption = new URL(replay.requests.slice(mark).find((r) => r.path === '/api/timedtext')!.url, 'http://x');
    expect(caption.searchParams.get('pot')).toBe('test-pot');
    expect(caption.searchParams.get('c')).toBe(sent.client.clientName);
    expect(sent.client.clientName).toBe('IOS');
  });
});

describe('the doctor', () => {
  it('`gleaner doctor --json` reports the profile\'s date', async () => {
    const run = await cli(['doctor', '--json', 'not-a-url'], {});
    const report = JSON.parse(run.stdout) as { profile: { date: string; builtinDate: string; file: string | null }; checks: Array<{ name: string; status: string; detail: string }> };
    expect(report.profile).toMatchObject({ date: BUILTIN_PROFILE.date, builtinDate: BUILTIN_PROFILE.date, file: null });
    expect(report.checks.find((c) => c.name === 'platform-profile')?.detail).toContain(BUILTIN_PROFILE.date);
  }, 120_000);

  it('warns when the built-in profile is older than 90 days, and names the way to refresh it', () => {
    const built = Date.parse(`${BUILTIN_PROFILE.date}T12:00:00Z`);
    const cfg = config({});
    expect(profileCheck(cfg, built + 30 * 86_400_000).check.status).toBe('ok');
    const old = profileCheck(cfg, built + 91 * 86_400_000);
    expect(old.check.status).toBe('warn');
    expect(old.check.detail).toContain('GLEANER_PLATFORM_PROFILE');
    expect(old.report.builtinAgeDays).toBe(91);
  });
});
