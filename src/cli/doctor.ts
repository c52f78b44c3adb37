/** `gleaner doctor [--json] [URL ...]`: what works from this machine, checked live. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';
import { createApp } from '../app.js';
import { openStore } from '../store/store.js';
import { checkBrowser, checkEndpoint, checkStore, checkTool, DEFAULT_PROBES, probeUrl, type Check } from './doctor-checks.js';
import { BUILTIN_PROFILE, profileAgeDays } from '../profile/load.js';

/** The built-in profile older than this is worth refreshing: platforms retire client versions within months. */
const PROFILE_MAX_AGE_DAYS = 90;

/** The profile's date, and a warning when the built-in one is old. */
export function profileCheck(config: Config, now = Date.now()): { check: Check; report: { date: string; builtinDate: string; builtinAgeDays: number; file: string | null } } {
  const date = config.platformProfile.date;
  const builtinAgeDays = profileAgeDays(BUILTIN_PROFILE.date, now);
  const file = config.GLEANER_PLATFORM_PROFILE ?? null;
  const where = file ? `profile of ${date} (${file} over the built-in one of ${BUILTIN_PROFILE.date})` : `built-in profile of ${date}`;
  const old = builtinAgeDays > PROFILE_MAX_AGE_DAYS;
  const detail = old
    ? `The ${where}: the built-in profile is ${builtinAgeDays} days old (more than ${PROFILE_MAX_AGE_DAYS}); client versions and identities may be retired. Update Gleaner, or check the entries against their sources (gleaner profile) and override them with GLEANER_PLATFORM_PROFILE (docs/platform-profile.md).`
    : `The ${where}, ${builtinAgeDays} days old.`;
  return { check: { name: 'platform-profile', platform: 'local', status: old ? 'warn' : 'ok', detail }, report: { date, builtinDate: BUILTIN_PROFILE.date, builtinAgeDays, file } };
}
import { redactText } from '../redact.js';
import { parseOptions } from './usage.js';

const PROBLEMS = new Set<Check['status']>(['blocked', 'changed', 'failed']);

export async function runDoctor(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(args, { json: { type: 'boolean', default: false } }, 'any');
  const urls = positionals.length > 0 ? positionals : DEFAULT_PROBES.map((probe) => probe.url);
  // The probes run over a scratch store, so a transcript cached by the server never hides a block.
  const profile = profileCheck(config);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-doctor-'));
  const app = await createApp(config, { store: await openStore({ dataDir: scratch }) });
  let checks: Check[];
  try {
    const [locals, platforms] = await Promise.all([
      Promise.all([
        checkStore(config),
        checkTool('ffmpeg', config.GLEANER_FFMPEG_PATH),
        checkTool('ffprobe', config.GLEANER_FFPROBE_PATH),
        checkBrowser(app),
        checkEndpoint(app, 'speech-to-text', config.GLEANER_STT_URL, config.GLEANER_STT_API_KEY, config.GLEANER_STT_MODEL, { url: 'GLEANER_STT_URL', key: 'GLEANER_STT_API_KEY', unset: 'videos without captions get no transcript.' }),
        checkEndpoint(app, 'language-model', config.GLEANER_LLM_URL, config.GLEANER_LLM_API_KEY, config.GLEANER_LLM_MODEL, { url: 'GLEANER_LLM_URL', key: 'GLEANER_LLM_API_KEY', unset: 'analysis and AI translation use the MCP client\'s model when it offers one, else answer NOT_CONFIGURED.' }),
      ]),
      // Platforms in parallel; within one URL, metadata then captions.
      Promise.all(urls.map((url) => probeUrl(app, url))),
    ]);
    checks = [profile.check, ...locals, ...platforms.flat()];
  } finally {
    await app.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const ok = !checks.some((check) => PROBLEMS.has(check.status));
  // Details quote endpoints and upstream messages: their credentials are taken out.
  process.stdout.write(redactText(values.json ? `${JSON.stringify({ ok, profile: profile.report, checks }, null, 2)}\n` : table(checks, ok)));
  return ok ? 0 : 1;
}

function table(checks: Check[], ok: boolean): string {
  const rows = checks.map((check) => [check.status.toUpperCase(), check.platform, check.name, check.url ? `${check.detail}  <${check.url}>` : check.detail]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
  const lines = rows.map((row) => row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell)).join('  '));
  const problems = checks.filter((check) => PROBLEMS.has(check.status)).length;
  return `${lines.join('\n')}\n\n${ok ? 'No problems found.' : `${problems} problem${problems === 1 ? '' : 's'} found (see BLOCKED, CHANGED and FAILED above).`}\n`;
}
