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
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { FIXTURES, startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { BUILTIN_PROFILE, deepMerge, type PlatformProfile } from '../../src/profile/load.js';
import { profileCheck } from '../../src/cli/doctor.js';
import { BROWSER_IDENTITY } from '../../src/net/identity.js';
import { youtubeProfileWarnings } from '../../src/platforms/youtube/clients.js';
import { REPO_ROOT } from '../support/paths.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

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
    execFile(process.execPath, [GLEANER_MAIN, ...args], { env: full, timeout: 110_000 }, (error, stdout, stderr) => {
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
      // A client youtubei.js cannot be asked for is refused with the profile, not later by serve alone.
      [{ youtube: { clients: { PALM_PILOT: { ...BUILTIN_PROFILE.youtube.clients.ANDROID, clientName: 'PALM_PILOT' } } } }, /youtube\.clients\.PALM_PILOT: is not an InnerTube client youtubei\.js knows/],
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

  it('GLEANER_YOUTUBE_CLIENTS may name any client youtubei.js knows, as before the profile; another is an error naming the variable', () => {
    expect(config({ GLEANER_YOUTUBE_CLIENTS: 'TV,WEB_EMBEDDED,MWEB' }).platformProfile.youtube.order.captions).toEqual(['TV', 'WEB_EMBEDDED', 'MWEB']);
    // Clients the code before the profile accepted: described ones (ANDROID_VR, YTMUSIC) and ones only youtubei.js knows (TV_EMBEDDED, YTKIDS).
    const extra = config({ GLEANER_YOUTUBE_CLIENTS: 'android_vr, YTMUSIC, TV_EMBEDDED, YTKIDS' }).platformProfile;
    expect(extra.youtube.order).toMatchObject({ captions: ['ANDROID_VR', 'YTMUSIC', 'TV_EMBEDDED', 'YTKIDS'], audio: ['ANDROID_VR', 'YTMUSIC', 'TV_EMBEDDED', 'YTKIDS'] });
    expect(extra.youtube.clients.ANDROID_VR).toMatchObject({ clientName: 'ANDROID_VR', clientNameId: 28, clientVersion: '1.65.10' });
    expect(extra.youtube.clients.YTMUSIC).toMatchObject({ clientName: 'WEB_REMIX', clientNameId: 67 });
    // The undescribed ones go with youtubei.js's own identity, and say so.
    const warnings = youtubeProfileWarnings(extra);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/TV_EMBEDDED.*youtubei\.js's own identity \(TVHTML5_SIMPLY_EMBEDDED_PLAYER .*youtube\.clients\.TV_EMBEDDED/);
    expect(warnings[1]).toMatch(/YTKIDS.*\(WEB_KIDS .*youtube\.clients\.YTKIDS/);
    expect(youtubeProfileWarnings(config({}).platformProfile)).toEqual([]);
    expect(() => config({ GLEANER_YOUTUBE_CLIENTS: 'VISIONOS,PALM_PILOT' })).toThrow(/GLEANER_YOUTUBE_CLIENTS: youtube\.order\.captions\.1: names "PALM_PILOT"/);
  });

  it('a client only youtubei.js knows starts the service with a warning naming it; ANDROID_VR, described, starts without one', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const s = await startTestServer({ env: { GLEANER_YOUTUBE_CLIENTS: 'ANDROID_VR,YTKIDS' }, logger: pino({ level: 'info' }, sink) });
    try {
      const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((l) => l.level === 40);
      expect(warnings.map((w) => w.msg)).toEqual([expect.stringMatching(/YTKIDS is asked .* does not describe it/)]);
    } finally {
      await s.close();
    }
  });

  it('`gleaner profile` refuses a client key youtubei.js does not know as serve does: exit 2, the field named', async () => {
    const file = writeJson('unknown-client.json', { youtube: { clients: { PALM_PILOT: { ...BUILTIN_PROFILE.youtube.clients.ANDROID, clientName: 'PALM_PILOT' } } } });
    const profile = await cli(['profile'], { GLEANER_PLATFORM_PROFILE: file });
    expect(profile.code).toBe(2);
    expect(profile.stderr).toContain('youtube.clients.PALM_PILOT');
    const serve = await cli(['serve'], { GLEANER_PLATFORM_PROFILE: file });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('youtube.clients.PALM_PILOT');
    expect(serve.stdout).not.toMatch(/listening/i);
  }, 120_000);

  it('the example file of docs/platform-profile.md is a valid GLEANER_PLATFORM_PROFILE', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'platform-profile.md'), 'utf8');
    const example = /## Example file[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example, 'a ```json block under "## Example file"').toBeTruthy();
    const file = writeJson('doc-example.json', example!);
    const profile = config({ GLEANER_PLATFORM_PROFILE: file }).platformProfile;
    const written = JSON.parse(example!) as { youtube: { clients: { ANDROID: { clientVersion: string } }; order: { captions: string[] } }; x: { tweetQueryId: string } };
    expect(profile.youtube.clients.ANDROID.clientVersion).toBe(written.youtube.clients.ANDROID.clientVersion);
    expect(profile.youtube.order.captions).toEqual(written.youtube.order.captions);
    expect(profile.x.tweetQueryId).toBe(written.x.tweetQueryId);
    expect(youtubeProfileWarnings(profile)).toEqual([]);
  });

  it("the README's example under \"When a platform blocks you\" is a valid GLEANER_PLATFORM_PROFILE", () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const example = /## When a platform blocks you[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'a ```json block under "## When a platform blocks you"').toBeTruthy();
    const written = JSON.parse(example!) as { youtube: { clients: { ANDROID: { clientVersion: string; userAgent: string } } } };
    const profile = config({ GLEANER_PLATFORM_PROFILE: writeJson('readme-example.json', example!) }).platformProfile;
    expect(profile.youtube.clients.ANDROID.clientVersion).toBe(written.youtube.clients.ANDROID.clientVersion);
    expect(profile.youtube.clients.ANDROID.userAgent).toBe(written.youtube.clients.ANDROID.userAgent);
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
  /** Today, the release this profile ships with: no user agent older than six months at it. */
  const TODAY = Date.parse('2026-11-26T00:00:00Z');
  const SIX_MONTHS_AGO = Date.parse('2026-05-26T00:00:00Z');

  /**
   * When each browser version a built-in identity may name was released (stable, to everyone).
   * A version missing here fails the test: add it with its source when the profile moves to it.
   * - Chrome <= 152: Chrome's four-week stable cadence (https://chromiumdash.appspot.com/schedule);
   *   144 on 2026-01-13, so 151 about 2026-07-28 (the table takes the earliest likely day).
   * - Chrome >= 153: two-week cadence from 153 on 2026-09-08, as Google announced it (reported at
   *   https://securityonline.info/the-race-to-m153-why-google-chrome-is-doubling-its-update-speed-to-a-14-day-cadence/
   *   and https://www.superchargebrowser.com/library/chrome-two-week-release-cycle-2026-explained/).
   *   Debian 12's chromium is 156.0.8078.108 in November 2026 (packages.debian.org/bookworm-security/chromium).
   * - Safari: with its macOS/iOS release each September (https://developer.apple.com/documentation/safari-release-notes);
   *   16.6 on 2023-07-24.
   * - Firefox: none named by any identity today (https://whattrainisitnow.com/calendar/ when one is).
   */
  const RELEASED: Record<string, string> = {
    'Chrome 131': '2024-11-12',
    'Chrome 138': '2025-06-24',
    'Chrome 144': '2026-01-13',
    'Chrome 145': '2026-02-10',
    'Chrome 146': '2026-03-10',
    'Chrome 147': '2026-04-07',
    'Chrome 148': '2026-05-05',
    'Chrome 149': '2026-06-02',
    'Chrome 150': '2026-06-30',
    'Chrome 151': '2026-07-28',
    'Chrome 152': '2026-08-25',
    'Chrome 153': '2026-09-08',
    'Chrome 154': '2026-09-22',
    'Chrome 155': '2026-10-06',
    'Chrome 156': '2026-10-20',
    'Chrome 157': '2026-11-03',
    'Chrome 158': '2026-11-17',
    'Safari 16': '2022-09-12',
    'Safari 17': '2023-09-18',
    'Safari 18': '2024-09-16',
    'Safari 26': '2025-09-15',
  };
  const released = (name: string) => (RELEASED[name] ? Date.parse(`${RELEASED[name]}T00:00:00Z`) : undefined);

  /** The browsers a user agent names (Chrome 156, Safari 26, Firefox 140), none for an app's own (com.google.ios.youtube/...). */
  function browsersOf(userAgent: string): string[] {
    const named: string[] = [];
    const chrome = /\bChrome\/(\d+)\./.exec(userAgent);
    if (chrome) named.push(`Chrome ${chrome[1]}`);
    const firefox = /\bFirefox\/(\d+)/.exec(userAgent);
    if (firefox) named.push(`Firefox ${firefox[1]}`);
    const safari = /\bVersion\/(\d+)[\d.]*(?: Mobile\/\S+)? Safari\//.exec(userAgent);
    if (safari) named.push(`Safari ${safari[1]}`);
    return named;
  }

  /**
   * Why a user agent is older than six months today, or nothing. Chrome and Firefox ship a major
   * every two to four weeks: its release must be within six months. Safari ships one major a year,
   * so even the newest is up to a year old: it counts until the next major is out, and that must be
   * less than six months ago (the newest major recorded counts as current).
   */
  function staleness(userAgent: string): string[] {
    return browsersOf(userAgent).flatMap((name) => {
      const date = released(name);
      if (date === undefined) return [`${name} has no release date in this test's table (add it, with its source)`];
      if (name.startsWith('Safari')) {
        const next = released(`Safari ${Object.keys(RELEASED).filter((k) => k.startsWith('Safari ')).map((k) => Number(k.slice(7))).filter((m) => m > Number(name.slice(7))).sort((a, b) => a - b)[0]}`);
        return next !== undefined && next < SIX_MONTHS_AGO ? [`${name} was replaced on ${new Date(next).toISOString().slice(0, 10)}, more than six months before ${new Date(TODAY).toISOString().slice(0, 10)}`] : [];
      }
      return date < SIX_MONTHS_AGO ? [`${name} was released on ${RELEASED[name]}, more than six months before ${new Date(TODAY).toISOString().slice(0, 10)}`] : [];
    });
  }

  /** Every user agent Gleaner itself sends: the profile's browsers and clients, and the outbound client's default. */
  const identities = [
    ...Object.entries(BUILTIN_PROFILE.browsers).map(([name, b]) => ({ name: `browsers.${name}`, userAgent: b.userAgent, checked: b.checked })),
    ...Object.entries(BUILTIN_PROFILE.youtube.clients).map(([name, c]) => ({ name: `youtube.clients.${name}`, userAgent: c.userAgent, checked: c.checked })),
    { name: 'the outbound default (net/identity.ts)', userAgent: BROWSER_IDENTITY.userAgent, checked: BUILTIN_PROFILE.browsers.desktop.checked },
  ];

  it('the check has teeth: a Chrome of February 2026 and the iPad Safari 16.6 are stale, an unknown version is refused', () => {
    expect(staleness('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/145.0.0.0 Safari/537.36')).toEqual([expect.stringMatching(/Chrome 145 was released on 2026-02-10/)]);
    expect(staleness('Mozilla/5.0 (iPad; CPU OS 16_7_10 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1,gzip(gfe)')).toEqual([expect.stringMatching(/Safari 16 was replaced on 2023-09-18/)]);
    expect(staleness('Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0')).toEqual([expect.stringMatching(/Firefox 140 has no release date/)]);
    expect(staleness('com.google.ios.youtube/21.26.4 (iPhone16,2; U; CPU iOS 18_3_2 like Mac OS X;)')).toEqual([]);
  });

  it('no user agent of the built-in profile, nor the outbound default, names a browser released more than six months ago', () => {
    const named = identities.filter((identity) => identity.userAgent && browsersOf(identity.userAgent).length > 0);
    // The two browsers, the outbound default, VISIONOS's Safari at least.
    expect(named.length).toBeGreaterThanOrEqual(4);
    for (const identity of identities) {
      if (identity.userAgent) expect(staleness(identity.userAgent), `${identity.name}: ${identity.userAgent}`).toEqual([]);
      const checked = Date.parse(`${identity.checked.date}T00:00:00Z`);
      expect(checked, `${identity.name} checked ${identity.checked.date}`).toBeGreaterThan(SIX_MONTHS_AGO);
      expect(checked, identity.name).toBeLessThanOrEqual(TODAY);
      expect(identity.checked.source, identity.name).toMatch(/^https:\/\//);
    }
    for (const other of [BUILTIN_PROFILE.tiktok, BUILTIN_PROFILE.x, BUILTIN_PROFILE.instagram]) {
      expect(Date.parse(`${other.checked.date}T00:00:00Z`)).toBeGreaterThan(SIX_MONTHS_AGO);
    }
  });

  /** The Sec-CH-UA a Chrome major sends: Chromium's GREASE brand, version and order are seeded by the major (user_agent_utils.cc). */
  function chromeBrands(major: number): string {
    const chars = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
    const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    const list: string[] = [];
    const order = orders[major % 6];
    list[order[0]] = `"Not${chars[major % 11]}A${chars[(major + 1) % 11]}Brand";v="${['8', '99', '24'][major % 3]}"`;
    list[order[1]] = `"Chromium";v="${major}"`;
    list[order[2]] = `"Google Chrome";v="${major}"`;
    return list.join(', ');
  }

  it('each browser identity is one Chrome whose client hints are the ones that Chrome sends, with navigation fetch metadata', () => {
    // Known values: Chrome 131 and 138 as they send them.
    expect(chromeBrands(131)).toBe('"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"');
    expect(chromeBrands(138)).toBe('"Not)A;Brand";v="8", "Chromium";v="138", "Google Chrome";v="138"');
    for (const [name, identity] of Object.entries(BUILTIN_PROFILE.browsers)) {
      const major = Number(/Chrome\/(\d+)\./.exec(identity.userAgent)?.[1]);
      expect(identity.headers['sec-ch-ua'], name).toBe(chromeBrands(major));
      expect(identity.headers['sec-ch-ua-mobile'], name).toBe(name === 'mobile' ? '?1' : '?0');
      expect(identity.userAgent.includes('Mobile'), name).toBe(name === 'mobile');
      expect(identity.headers, name).toMatchObject({ 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'none' });
    }
  });

  it('the outbound client\'s default identity is the profile\'s desktop browser, with its client hints (one source of identities)', () => {
    const desktop = BUILTIN_PROFILE.browsers.desktop;
    expect(BROWSER_IDENTITY).toEqual({
      userAgent: desktop.userAgent,
      hints: { 'sec-ch-ua': desktop.headers['sec-ch-ua'], 'sec-ch-ua-mobile': '?0', 'sec-ch-ua-platform': '"Windows"' },
    });
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

  it('caption downloads carry the profile\'s desktop browser with its client hints, and follow GLEANER_PLATFORM_PROFILE', async () => {
    const desktop = BUILTIN_PROFILE.browsers.desktop;
    const builtIn = await server({ GLEANER_YOUTUBE_CLIENTS: 'ANDROID' });
    let key = await builtIn.createKey('Free', { credits: 10 });
    let mark = replay.requests.length;
    let reply = await builtIn.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    let caption = replay.requests.slice(mark).find((r) => r.path === '/api/timedtext')!;
    expect(caption.headers['user-agent']).toBe(desktop.userAgent);
    expect(caption.headers['sec-ch-ua']).toBe(desktop.headers['sec-ch-ua']);
    expect(caption.headers['sec-ch-ua-platform']).toBe(desktop.headers['sec-ch-ua-platform']);

    // An operator's newer browser reaches the caption download too (not only the page fetches).
    const newer = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/158.0.0.0 Safari/537.36';
    const brands = '"Chromium";v="158", "Not.A/Brand";v="24", "Google Chrome";v="158"';
    const file = writeJson('newer-browser.json', { browsers: { desktop: { userAgent: newer, headers: { 'sec-ch-ua': brands } } } });
    const configured = await server({ GLEANER_YOUTUBE_CLIENTS: 'ANDROID', GLEANER_PLATFORM_PROFILE: file });
    key = await configured.createKey('Free', { credits: 10 });
    mark = replay.requests.length;
    reply = await configured.request('GET', '/v1/youtube/transcript?video_id=kX3nB4PpJko', { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    caption = replay.requests.slice(mark).find((r) => r.path === '/api/timedtext')!;
    expect(caption.headers['user-agent']).toBe(newer);
    expect(caption.headers['sec-ch-ua']).toBe(brands);
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
