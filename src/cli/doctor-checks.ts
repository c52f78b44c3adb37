/**
 * The checks behind `gleaner doctor`: live probes of the platforms through Gleaner's own URL handlers
 * (the code the operations run), and of the local parts (store, ffmpeg, ffprobe, the AI endpoints).
 * Every failure is classified by its error code, so what the adapters call a block or a change is
 * what the doctor reports.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import type { Config } from '../config.js';
import { GleanerError, toGleanerError } from '../errors.js';
import { deadline } from '../deadline.js';
import type { App } from '../app.js';
import type { AccountRecord } from '../accounts/accounts.js';
import type { OperationContext } from '../operations/define.js';
import { sourceFor } from '../sources/registry.js';
import { openStore } from '../store/store.js';
import { endpointUrl } from '../ai/endpoint.js';

/** `warn`: works, but needs the operator's attention soon (an old platform profile). */
export type CheckStatus = 'ok' | 'warn' | 'blocked' | 'changed' | 'failed' | 'skipped';

export interface Check {
  name: string;
  /** The platform probed, or "local" for the parts on this machine. */
  platform: string;
  status: CheckStatus;
  /** One line: what was seen and, when it is not ok, what to do. */
  detail: string;
  /** The item probed, for platform checks. */
  url?: string;
}

/**
 * One long-lived public item per platform, taken from yt-dlp's extractor tests (the YouTube one from
 * its subtitle tests, test/test_subtitles.py, since the doctor fetches captions).
 */
export const DEFAULT_PROBES: ReadonlyArray<{ platform: string; url: string }> = [
  { platform: 'youtube', url: 'https://www.youtube.com/watch?v=QRS8MkLhQmM' },
  { platform: 'tiktok', url: 'https://www.tiktok.com/@leenabhushan/video/6748451240264420610' },
  { platform: 'instagram', url: 'https://www.instagram.com/reel/Chunk8-jurw/' },
  { platform: 'x', url: 'https://twitter.com/starwars/status/665052190608723968' },
  { platform: 'facebook', url: 'https://www.facebook.com/radiokicksfm/videos/3676516585958356/' },
];

/** Each probe gets this long, all its requests included. */
const PROBE_TIMEOUT_MS = 90_000;

/** One line, long enough for a refusal and every way out it names (proxy, profile, cookies). */
const oneLine = (text: string, max = 500) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The status a failure means, and a detail that says what to do about it. */
export function classify(error: unknown): { status: CheckStatus; detail: string } {
  const failure = toGleanerError(error);
  const message = oneLine(failure.message);
  switch (failure.code) {
    case 'UPSTREAM_BLOCKED':
      return {
        status: 'blocked',
        detail: /PROXY|COOKIES|POT_PROVIDER/.test(message)
          ? message
          : `${message} Way out: an outbound proxy (GLEANER_PROXY_URL or GLEANER_PROXY_URL_<PLATFORM>), cookies (GLEANER_COOKIES_FILE), or another network.`,
      };
    case 'UPSTREAM_CHANGED':
      return { status: 'changed', detail: /update/i.test(message) ? message : `${message} Update Gleaner: the platform's reply is no longer understood.` };
    case 'NOT_CONFIGURED':
      return { status: 'skipped', detail: message };
    default:
      return { status: 'failed', detail: `${failure.code}: ${message}` };
  }
}

/**
 * The probes call the handlers beneath the gate: nothing is authenticated or charged, so the
 * context's account is a stand-in that is never stored.
 */
const PROBE_ACCOUNT: AccountRecord = { id: 'doctor', name: 'doctor', plan: 'Enterprise', keyHash: '', keyPrefix: '', createdAt: new Date(0).toISOString() };

function probeContext(app: App, signal: AbortSignal): OperationContext {
  return {
    account: PROBE_ACCOUNT,
    requestId: `doctor-${randomUUID()}`,
    signal,
    progress: () => {},
    // Probes read one item; nothing is charged, so nothing limits them.
    budget: Number.MAX_SAFE_INTEGER,
    log: app.log,
    // Speech to text is paid work: without a provider here, a post without captions says so instead.
    services: { ...app.services, stt: undefined },
    reserveCredits: async () => {
      throw new GleanerError('NOT_CONFIGURED', 'The doctor runs no paid work (speech to text, language models).');
    },
  };
}

/** Metadata, then captions, of one URL; the captions are not asked for once metadata failed (a blocked address is not hammered). */
export async function probeUrl(app: App, text: string): Promise<Check[]> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [{ name: 'metadata', platform: '-', status: 'failed', detail: `"${text}" is not a URL.`, url: text }];
  }
  const source = sourceFor(url);
  if (!source) {
    return [{ name: 'metadata', platform: 'web', status: 'failed', detail: 'No video platform handles this URL: the doctor probes YouTube, TikTok, Instagram, X, Facebook and media files.', url: text }];
  }
  const check = (name: string, status: CheckStatus, detail: string): Check => ({ name, platform: source.platform, status, detail: oneLine(detail), url: text });
  const limit = deadline(PROBE_TIMEOUT_MS);
  try {
    return await probeSource(source, url, check, probeContext(app, limit.signal));
  } finally {
    limit.clear();
  }
}

async function probeSource(source: NonNullable<ReturnType<typeof sourceFor>>, url: URL, check: (name: string, status: CheckStatus, detail: string) => Check, ctx: OperationContext): Promise<Check[]> {
  const checks: Check[] = [];
  try {
    const metadata = await source.metadata!(url, ctx);
    checks.push(check('metadata', 'ok', `"${metadata.title ?? metadata.id ?? url.href}"${metadata.author?.name ? ` by ${metadata.author.name}` : ''}`));
  } catch (error) {
    const { status, detail } = classify(error);
    return [check('metadata', status, detail), check('transcript', 'skipped', 'Not tried: the metadata check did not pass.')];
  }
  if (!source.transcript) return [...checks, check('transcript', 'skipped', `${source.platform} has no transcripts.`)];
  try {
    const transcript = await source.transcript(url, { timestamps: false, text: true }, ctx);
    const chars = typeof transcript.content === 'string' ? transcript.content.length : transcript.content.length;
    checks.push(check('transcript', 'ok', `captions in "${transcript.lang}", ${chars} characters${transcript.availableLangs ? ` (${transcript.availableLangs.length} languages offered)` : ''}`));
  } catch (error) {
    const failure = toGleanerError(error);
    // No captions and no paid fallback tried: the platform answered, there was just nothing free to fetch.
    if (failure.code === 'TRANSCRIPT_UNAVAILABLE') checks.push(check('transcript', 'skipped', `No captions to fetch (speech to text is not probed: it costs). ${failure.message}`));
    else {
      const { status, detail } = classify(error);
      checks.push(check('transcript', status, detail));
    }
  }
  return checks;
}

const local = (name: string, status: CheckStatus, detail: string): Check => ({ name, platform: 'local', status, detail: oneLine(detail) });

/** The configured store opens and keeps a value (written, read back, removed). */
export async function checkStore(config: Config): Promise<Check> {
  try {
    const store = await openStore({ dataDir: config.GLEANER_DATA_DIR, storeUrl: config.GLEANER_STORE_URL });
    try {
      const key = `doctor:${randomUUID()}`;
      await store.set(key, 'ok', 60_000);
      const read = await store.get<string>(key);
      await store.delete(key);
      if (read !== 'ok') return local('store', 'failed', `The ${store.kind} store at ${store.location} did not return a value just written.`);
      return local('store', 'ok', `${store.kind} at ${store.location}`);
    } finally {
      await store.close();
    }
  } catch (error) {
    return local('store', 'failed', `${(error as Error).message} (check GLEANER_DATA_DIR or GLEANER_STORE_URL)`);
  }
}

/**
 * The rendering browser starts and runs a script: a page built in memory is handed to it (nothing is
 * fetched), and its script writes the text read back. The remote browser's URL is never shown.
 */
export async function checkBrowser(app: App): Promise<Check> {
  const renderer = app.services.renderer;
  const where = app.config.GLEANER_BROWSER_WS_URL ? 'the remote browser (GLEANER_BROWSER_WS_URL)' : 'the local Chromium';
  const available = renderer?.availability() ?? { ok: false as const, reason: 'no renderer' };
  if (!renderer || !available.ok) {
    return local('browser', 'skipped', `${available.ok ? 'no renderer' : available.reason}; render=auto reads JavaScript pages plainly (with a warning) and render=always answers NOT_CONFIGURED.`);
  }
  const url = 'http://doctor.invalid/';
  try {
    const page = await renderer.render(url, {
      prefetched: { url, status: 200, headers: {}, html: '<!doctype html><title>doctor</title><p id="out"></p><script>document.getElementById("out").textContent = "rendered " + (6 * 7);</script>' },
    });
    if (!page.html.includes('rendered 42')) return local('browser', 'failed', `${where} loaded a page but did not run its script.`);
    return local('browser', 'ok', `${where} renders pages (scripts run).`);
  } catch (error) {
    return local('browser', 'failed', oneLine(toGleanerError(error).message));
  }
}

/** ffmpeg or ffprobe runs; its version line is the detail. */
export async function checkTool(name: 'ffmpeg' | 'ffprobe', program: string): Promise<Check> {
  const variable = name === 'ffmpeg' ? 'GLEANER_FFMPEG_PATH' : 'GLEANER_FFPROBE_PATH';
  try {
    const { stdout } = await promisify(execFile)(program, ['-version'], { timeout: 15_000 });
    return local(name, 'ok', stdout.split('\n')[0] ?? program);
  } catch (error) {
    return local(name, 'failed', `${program} does not run (${(error as Error).message}). Install ffmpeg (apt-get install ffmpeg, brew install ffmpeg) or set ${variable}.`);
  }
}

/**
 * An OpenAI-compatible endpoint answers: GET /models, which costs nothing (a transcription or a
 * completion would). A server without /models that still answers counts as reachable.
 */
export async function checkEndpoint(
  app: App,
  name: string,
  baseUrl: string | undefined,
  apiKey: string | undefined,
  model: string,
  variables: { url: string; key: string; unset: string },
): Promise<Check> {
  if (!baseUrl) return local(name, 'skipped', `${variables.url} is not set: ${variables.unset}`);
  const endpoint = endpointUrl(baseUrl, 'models');
  try {
    const response = await app.services.http.fetch(endpoint, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      timeoutMs: 15_000,
      retries: 0,
      // Operator configuration, often a local server: not a user URL.
      guard: false,
    });
    if (response.status === 401 || response.status === 403) return local(name, 'failed', `${endpoint} refused the key (${response.status}): check ${variables.key}.`);
    if (response.status >= 500) return local(name, 'failed', `${endpoint} answered ${response.status}: the endpoint is unwell.`);
    if (response.status >= 400) return local(name, 'ok', `${baseUrl} answers (its /models says ${response.status}; model ${model} not confirmed).`);
    let listed: boolean | undefined;
    try {
      listed = response.json<{ data?: Array<{ id?: string }> }>().data?.some((m) => m.id === model);
    } catch {
      /* not a model list: reachable is what counts */
    }
    return local(name, 'ok', `${baseUrl} answers${listed === undefined ? '' : listed ? `; model ${model} is listed` : `; model ${model} is not in its list`}.`);
  } catch (error) {
    return local(name, 'failed', `${endpoint}: ${toGleanerError(error).message} (check ${variables.url}).`);
  }
}
