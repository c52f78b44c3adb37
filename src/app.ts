/**
 * The composition root: builds the services once from the configuration and hands the surfaces
 * a gate over the table of operations.
 */
import fs from 'node:fs';
import { publicUrl, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { openStore, type Store } from './store/store.js';
import { Accounts } from './accounts/accounts.js';
import { RateLimiter } from './accounts/rate.js';
import { systemClock, type Clock } from './accounts/clock.js';
import { Jobs } from './jobs/jobs.js';
import { HttpClient, type Resolver } from './net/http.js';
import { parseProxyList } from './net/egress.js';
import { CookieJar, parseNetscapeCookies } from './net/cookies.js';
import { defaultIdentity } from './net/identity.js';
import { youtubeProfileWarnings } from './platforms/youtube/clients.js';
import { bindProfile } from './platforms/profile.js';
import { profileSecrets } from './profile/load.js';
import { Gate } from './gate/gate.js';
import { OPERATIONS } from './operations/table.js';
import { WebhookCourier } from './jobs/webhook-courier.js';
import { closeExtractPool } from './web/extract-pool.js';
import { closeDocumentPool } from './web/document-pool.js';
import { Renderer } from './web/render/browser-pool.js';
import { webhookSecret } from './jobs/webhook.js';
import type { AnyOperation } from './operations/define.js';
import type { Services } from './operations/services.js';
import { openAiChatModel } from './ai/openai-chat.js';
import { openAiSpeechToText } from './ai/openai-stt.js';
import { redactUrl, rememberConfiguredSecrets, rememberSecrets } from './redact.js';
import { createOAuth, type OAuth } from './accounts/oauth.js';
import { WatchStore } from './watches/watches.js';
import { WatchScheduler } from './watches/scheduler.js';

export interface App {
  config: Config;
  services: Services;
  gate: Gate;
  operations: AnyOperation[];
  log: Logger;
  /** Gleaner's own OAuth authorization server for /mcp: clients, grants (the console's approved clients) and tokens. */
  oauth: OAuth;
  /** Checks the watches (started in every process that works jobs). */
  watchScheduler: WatchScheduler;
  close(): Promise<void>;
}

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  /** Replaces the table (tests that drive the gate with operations of their own). */
  operations?: AnyOperation[];
  /** DNS for the SSRF guard (tests point names at blocked addresses with it). */
  resolver?: Resolver;
  /** False: this process enqueues jobs but does not work them (`serve --no-worker`). */
  jobWorker?: boolean;
  /** An already-open store to use instead of the configured one (the doctor's scratch store); closed with the app. */
  store?: Store;
}

/** Logs a Redis outage once when it starts (the client reports every reconnection attempt). */
function storeOutageLogger(log: Logger, url: string | undefined): (error: Error) => void {
  let last = 0;
  return (error) => {
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    log.error({ store: url && redactUrl(url), err: error.message }, 'The store (Redis) is unreachable: requests fail with STORE_UNAVAILABLE until it is back');
  };
}

/** The values of the cookies file, remembered as secrets (an unreadable file is reported by CookieJar.fromFile). */
function cookieValues(file: string): string[] {
  try {
    return parseNetscapeCookies(fs.readFileSync(file, 'utf8')).map((cookie) => cookie.value);
  } catch {
    return [];
  }
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  rememberConfiguredSecrets(config);
  rememberSecrets(profileSecrets(config.platformProfile));
  if (config.GLEANER_COOKIES_FILE) rememberSecrets(cookieValues(config.GLEANER_COOKIES_FILE));
  const log = options.logger ?? createLogger(config.GLEANER_LOG_LEVEL, config.GLEANER_LOG_FORMAT);
  // A client youtubei.js cannot build was refused with the profile (profile/schema.ts); one it can but the profile does not describe is said here.
  for (const warning of youtubeProfileWarnings(config.platformProfile)) log.warn(warning);
  const store =
    options.store ??
    (await openStore({ dataDir: config.GLEANER_DATA_DIR, storeUrl: config.GLEANER_STORE_URL, onRedisError: storeOutageLogger(log, config.GLEANER_STORE_URL) }));
  const accounts = new Accounts(store, options.clock ?? systemClock);
  await accounts.start();
  const leaseMs = config.GLEANER_JOB_LEASE_SECONDS * 1000;
  // On Redis, jobs go through BullMQ so every serve and worker on it shares them; embedded, they run in-process.
  // (BullMQ is loaded only then, so the embedded default starts without it.)
  const dispatcher =
    store.kind === 'redis' && config.GLEANER_STORE_URL
      ? new (await import('./jobs/dispatch-bullmq.js')).BullMqDispatcher(config.GLEANER_STORE_URL, { concurrency: config.GLEANER_JOB_CONCURRENCY, leaseMs }, log)
      : undefined;
  const resultBounds = { itemChars: config.GLEANER_JOB_RESULT_ITEM_CHARS, totalChars: config.GLEANER_JOB_RESULT_CHARS };
  const jobs = new Jobs(store, log, { concurrency: config.GLEANER_JOB_CONCURRENCY, leaseMs, dispatcher, work: options.jobWorker ?? true, resultBounds });
  const http = new HttpClient({
    overrides: config.GLEANER_UPSTREAM_OVERRIDES,
    allowPrivate: config.GLEANER_ALLOW_PRIVATE_URLS,
    // Gleaner's own calls to the operator's endpoints go direct, not through the proxy (a caller's URL naming one is guarded as any).
    trustedOrigins: [config.GLEANER_STT_URL, config.GLEANER_LLM_URL, config.GLEANER_YOUTUBE_POT_PROVIDER_URL].filter((u): u is string => Boolean(u)),
    defaultTimeoutMs: config.GLEANER_HTTP_TIMEOUT_MS,
    userAgent: config.GLEANER_USER_AGENT,
    // Requests that name no user agent (web pages, caption downloads) are the profile's desktop browser.
    identity: defaultIdentity(config.platformProfile.browsers.desktop),
    perHostConcurrency: config.GLEANER_HOST_CONCURRENCY,
    resolver: options.resolver,
    proxyUrl: config.GLEANER_PROXY_URL,
    platformProxies: {
      youtube: parseProxyList(config.GLEANER_PROXY_URL_YOUTUBE),
      tiktok: parseProxyList(config.GLEANER_PROXY_URL_TIKTOK),
      instagram: parseProxyList(config.GLEANER_PROXY_URL_INSTAGRAM),
      x: parseProxyList(config.GLEANER_PROXY_URL_X),
      facebook: parseProxyList(config.GLEANER_PROXY_URL_FACEBOOK),
    },
    cookies: config.GLEANER_COOKIES_FILE ? CookieJar.fromFile(config.GLEANER_COOKIES_FILE) : undefined,
  });
  // Every platform request of this app follows the configured profile (client versions, identities, ids).
  bindProfile(http, config.platformProfile);
  const chat = config.GLEANER_LLM_URL
    ? openAiChatModel(http, { baseUrl: config.GLEANER_LLM_URL, apiKey: config.GLEANER_LLM_API_KEY, model: config.GLEANER_LLM_MODEL })
    : undefined;
  const stt = config.GLEANER_STT_URL
    ? openAiSpeechToText(http, { baseUrl: config.GLEANER_STT_URL, apiKey: config.GLEANER_STT_API_KEY, model: config.GLEANER_STT_MODEL })
    : undefined;
  // Nothing is launched here: the browser starts on the first page that needs it.
  const renderer = new Renderer({
    http,
    browserPath: config.GLEANER_BROWSER_PATH,
    wsUrl: config.GLEANER_BROWSER_WS_URL,
    concurrency: config.GLEANER_RENDER_CONCURRENCY,
    concurrencyPerOwner: config.GLEANER_RENDER_CONCURRENCY_PER_ACCOUNT,
    timeoutMs: config.GLEANER_RENDER_TIMEOUT_MS,
    sessionTimeoutMs: config.GLEANER_RENDER_CRAWL_TIMEOUT_MS,
    memoryMb: config.GLEANER_RENDER_MEMORY_MB,
    log,
  });
  const watches = new WatchStore(store);
  const services: Services = { config, store, accounts, jobs, http, log, chat, stt, renderer, watches };
  const rate = new RateLimiter({ store, clock: options.clock });
  const operations = options.operations ?? OPERATIONS;
  const gate = new Gate(services, rate, operations);
  await gate.startJobs();
  const courier = new WebhookCourier({ jobs, store, http, log, leaseMs, secret: () => webhookSecret(store, config.GLEANER_WEBHOOK_SECRET) });
  await courier.start();
  // Every working process checks watches; one at a time holds a given watch's check (watches/scheduler.ts).
  const scheduler = new WatchScheduler(
    { watches, store, accounts, http, config, log, stt, chat, secret: () => webhookSecret(store, config.GLEANER_WEBHOOK_SECRET) },
    { processId: jobs.processId, leaseMs, tickMs: Math.min(5_000, Math.max(100, config.GLEANER_WATCH_MIN_INTERVAL_SECONDS * 250)), concurrency: 2 },
  );
  if (options.jobWorker ?? true) scheduler.start();
  const oauth = createOAuth({
    store,
    accounts,
    http,
    clock: options.clock ?? systemClock,
    settings: { accessTtlSeconds: config.GLEANER_OAUTH_ACCESS_TTL_SECONDS, refreshTtlSeconds: config.GLEANER_OAUTH_REFRESH_TTL_DAYS * 86_400 },
    external: config.GLEANER_OAUTH_ISSUER
      ? {
          issuer: config.GLEANER_OAUTH_ISSUER,
          audience: config.GLEANER_OAUTH_AUDIENCE ?? `${publicUrl(config)}/mcp`,
          jwksUrl: config.GLEANER_OAUTH_JWKS_URL,
          accountClaim: config.GLEANER_OAUTH_ACCOUNT_CLAIM,
          accounts: config.GLEANER_OAUTH_ACCOUNTS,
        }
      : undefined,
  });
  return {
    config,
    services,
    gate,
    operations,
    log,
    oauth,
    watchScheduler: scheduler,
    async close() {
      // Both wait for what they have under way, before the store closes under it.
      await courier.close();
      await scheduler.close();
      await jobs.close();
      await renderer.close();
      accounts.stop();
      // The usage log buffers a fraction of a second of calls (accounts/usage.ts): written before the store closes.
      await accounts.usage.flush();
      await rate.close();
      await http.close();
      await closeExtractPool();
      await closeDocumentPool();
      await store.close();
    },
  };
}
