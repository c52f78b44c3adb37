import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { classify } from '../../src/cli/doctor-checks.js';
import { tiktokMaintenancePage } from '../support/tiktok-refusals.js';
import { BUILTIN_PROFILE } from '../../src/profile/load.js';
import { GleanerError } from '../../src/errors.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

/** kX3nB4PpJko: recorded player (19 caption tracks) and next replies, so metadata and captions both answer. */
const VIDEO = 'https://www.youtube.com/watch?v=kX3nB4PpJko';

interface DoctorReport {
  ok: boolean;
  checks: Array<{ name: string; platform: string; status: string; detail: string }>;
}

/** Runs `gleaner doctor --json` against the replay (or the overrides given); resolves with its exit code and parsed report. */
function doctor(replay: YoutubeReplay | { overrides: string }, urls: string[]): Promise<{ code: number; report: DoctorReport; stderr: string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-doctor-test-')),
    GLEANER_UPSTREAM_OVERRIDES: 'overrides' in replay ? replay.overrides : `youtube.com=${replay.origin},googleapis.com=${replay.origin}`,
  };
  // The endpoints are not under test here: left unset, they are skipped.
  for (const name of ['GLEANER_STT_URL', 'GLEANER_LLM_URL', 'GLEANER_STORE_URL', 'GLEANER_PROXY_URL']) delete env[name];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [GLEANER_MAIN, 'doctor', '--json', ...urls], { env }, (error, stdout, stderr) => {
      try {
        resolve({ code: error ? Number(error.code) : 0, report: JSON.parse(stdout) as DoctorReport, stderr });
      } catch {
        reject(new Error(`doctor printed no report (exit ${error?.code}): ${stdout}\n${stderr}`));
      }
    });
  });
}

/**
 * YouTube's bot check, built by this test in the recorded player-reply format: the recorded reply of
 * a private video (8VajtrESJzA) with its playabilityStatus replaced by the bot check's wording as
 * yt-dlp and youtube-transcript-api users report it. No recording of a bot check exists in the fixtures.
 */
function botCheckReply(): string {
  const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'newpipe-older/2022/video/errors/8VajtrESJzA_player_web.json'), 'utf8')) as { response: { responseBody: string } };
  const body = JSON.parse(recorded.response.responseBody) as Record<string, unknown>;
  body.playabilityStatus = {
    status: 'LOGIN_REQUIRED',
    reason: 'Sign in to confirm you’re not a bot',
    messages: ['This helps protect our community. Learn more'],
    errorScreen: {
      playerErrorMessageRenderer: {
        reason: { simpleText: 'Sign in to confirm you’re not a bot' },
        subreason: { runs: [{ text: 'This helps protect our community. Learn more' }] },
      },
    },
    contextParams: 'Q0FBU0FnZ0E=',
  };
  return JSON.stringify(body);
}

describe('gleaner doctor', () => {
  // Each run starts a CLI process that loads the platform adapters: slow on a busy machine.
  const SLOW = { timeout: 180_000 };
  let replay: YoutubeReplay;
  beforeAll(async () => {
    replay = await startYoutubeReplay();
  });
  afterAll(async () => {
    await replay.close();
  });

  it('exits 0 with the YouTube checks ok when the video answers', SLOW, async () => {
    const { code, report, stderr } = await doctor(replay, [VIDEO]);
    expect(report.checks.filter((c) => c.platform === 'youtube')).toEqual([
      expect.objectContaining({ name: 'metadata', status: 'ok', detail: expect.stringContaining('Last To Take Hand Off Jet') }),
      expect.objectContaining({ name: 'transcript', status: 'ok', detail: expect.stringContaining('captions in "en"') }),
    ]);
    expect(report.checks.find((c) => c.name === 'store')).toMatchObject({ status: 'ok' });
    expect(report.checks.find((c) => c.name === 'speech-to-text')).toMatchObject({ status: 'skipped' });
    expect(report.ok, stderr).toBe(true);
    expect(code).toBe(0);
    // The probes went to the replay (GLEANER_UPSTREAM_OVERRIDES), not to YouTube.
    expect(replay.requests.map((r) => r.key)).toContain('player videoId=kX3nB4PpJko');
  });

  let underBotCheck: Awaited<ReturnType<typeof doctor>> | undefined;

  it('exits non-zero when every /player answers the bot check', SLOW, async () => {
    // Every client asks /player with this video id: all of them get the bot check.
    replay.add('player videoId=kX3nB4PpJko', botCheckReply());
    underBotCheck = await doctor(replay, [VIDEO]);
    expect(underBotCheck.code).not.toBe(0);
    expect(underBotCheck.report.ok).toBe(false);
    expect(underBotCheck.report.checks.find((c) => c.platform === 'youtube' && c.name === 'metadata')?.status).not.toBe('ok');
  });

  it('reports that YouTube check as blocked, naming the proxy settings', () => {
    expect(underBotCheck?.report.checks.find((c) => c.platform === 'youtube' && c.name === 'metadata')).toMatchObject({ status: 'blocked', detail: expect.stringMatching(/PROXY/) });
  });

  it('classifies failures by their error code', () => {
    expect(classify(new GleanerError('UPSTREAM_BLOCKED', 'YouTube asked for a bot check; set GLEANER_PROXY_URL_YOUTUBE.')).status).toBe('blocked');
    expect(classify(new GleanerError('UPSTREAM_BLOCKED', 'Refused.')).detail).toMatch(/GLEANER_PROXY_URL/);
    expect(classify(new GleanerError('UPSTREAM_CHANGED', 'The embedded data blob is gone.'))).toMatchObject({ status: 'changed', detail: expect.stringMatching(/Update Gleaner/) });
    expect(classify(new GleanerError('NOT_CONFIGURED', 'No X token.')).status).toBe('skipped');
    expect(classify(new GleanerError('UPSTREAM_UNAVAILABLE', 'Connection refused.'))).toMatchObject({ status: 'failed', detail: 'UPSTREAM_UNAVAILABLE: Connection refused.' });
    expect(classify(new Error('boom')).status).toBe('failed');
  });
});

describe('gleaner doctor with TikTok refusing its browser identities', () => {
  const SLOW = { timeout: 180_000 };
  let server: http.Server;
  let origin: string;
  const userAgents: string[] = [];
  beforeAll(async () => {
    // Every TikTok page answers the 200 "Site Under Maintenance" page (fixture modelled on yt-dlp#17403, #17604).
    server = http.createServer((req, res) => {
      userAgents.push(String(req.headers['user-agent'] ?? ''));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(tiktokMaintenancePage());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reports TikTok as blocked (not changed), naming the proxy and profile settings, after one retry as the mobile identity', SLOW, async () => {
    const url = 'https://www.tiktok.com/@leenabhushan/video/6748451240264420610';
    const { code, report, stderr } = await doctor({ overrides: `tiktok.com=${origin}` }, [url]);
    const metadata = report.checks.find((c) => c.platform === 'tiktok' && c.name === 'metadata');
    expect(metadata, stderr).toMatchObject({ status: 'blocked' });
    expect(metadata!.detail).toContain('Site Under Maintenance');
    expect(metadata!.detail).toContain('GLEANER_PROXY_URL_TIKTOK');
    expect(metadata!.detail).toContain('GLEANER_PLATFORM_PROFILE');
    expect(report.checks.find((c) => c.platform === 'tiktok' && c.name === 'transcript')).toMatchObject({ status: 'skipped' });
    expect(report.ok).toBe(false);
    expect(code).toBe(1);
    expect(userAgents).toEqual([BUILTIN_PROFILE.browsers.desktop.userAgent, BUILTIN_PROFILE.browsers.mobile.userAgent]);
  });
});
