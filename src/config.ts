/**
 * All configuration comes from the environment, is read here and nowhere else, and is validated
 * at start-up: a bad value stops the start with a message naming the variable.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { loadPlatformProfile, ProfileError, type PlatformProfile } from './profile/load.js';

/** A host and its subdomains, redirected to another origin (tests, mirrors). */
export interface UpstreamOverride {
  host: string;
  origin: string;
}

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const httpUrl = z.url({ protocol: /^https?$/ });

const overrides = z.string().transform((text, ctx): UpstreamOverride[] => {
  const pairs: UpstreamOverride[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const host = part.slice(0, eq).trim().toLowerCase();
    const origin = part.slice(eq + 1).trim();
    if (eq <= 0 || !URL.canParse(origin) || !/^https?:$/.test(new URL(origin).protocol)) {
      ctx.addIssue({ code: 'custom', message: `"${part}" is not a host=origin pair (e.g. youtube.com=http://127.0.0.1:9000)` });
      return z.NEVER;
    }
    pairs.push({ host, origin: new URL(origin).origin });
  }
  return pairs;
});

/** One proxy URL or a comma-separated pool of them (http, https or socks5), checked at start-up. */
const proxyList = z
  .string()
  .min(1)
  .refine(
    (text) => text.split(',').map((p) => p.trim()).filter(Boolean).every((p) => URL.canParse(p) && /^(https?|socks5?):$/.test(new URL(p).protocol)),
    'must be a proxy URL (http://, https:// or socks5://) or a comma-separated list of them',
  );

function defaultDataDir(): string {
  const dataHome = process.env.XDG_DATA_HOME || path.join(os.homedir(), '.local', 'share');
  return path.join(dataHome, 'gleaner');
}

const schema = z.object({
  GLEANER_DATA_DIR: z.string().min(1).default(defaultDataDir),
  GLEANER_STORE_URL: z.string().min(1).optional(),
  GLEANER_HOST: z.string().min(1).default('127.0.0.1'),
  GLEANER_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  GLEANER_API_KEY: z.string().min(1).optional(),
  GLEANER_ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  GLEANER_UPSTREAM_OVERRIDES: overrides.default([]),
  GLEANER_PROXY_URL: httpUrl.optional(),
  GLEANER_STT_URL: httpUrl.optional(),
  GLEANER_STT_API_KEY: z.string().min(1).optional(),
  GLEANER_STT_MODEL: z.string().min(1).default('whisper-1'),
  /** Media longer than this is cut into chunks of this many seconds, transcribed concurrently. */
  GLEANER_STT_CHUNK_SECONDS: z.coerce.number().int().min(5).max(3600).default(600),
  /** Chunks of one media file sent to the speech-to-text endpoint at once. */
  GLEANER_STT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(3),
  /** The ffmpeg and ffprobe programs (a name looked up on PATH, or a path). */
  GLEANER_FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  GLEANER_FFPROBE_PATH: z.string().min(1).default('ffprobe'),
  /** Largest media file downloaded for transcription. */
  GLEANER_MEDIA_MAX_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024 * 1024),
  /**
   * Shorthands for single entries of the platform profile (GLEANER_PLATFORM_PROFILE): X's bearer token
   * and TweetResultByRestId query id, Instagram's logged-out post query doc_id. Unset: the profile's.
   */
  GLEANER_X_BEARER_TOKEN: z.string().min(20).optional(),
  GLEANER_X_TWEET_QUERY_ID: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
  GLEANER_INSTAGRAM_DOC_ID: z.string().regex(/^\d+$/).optional(),
  /** A JSON file deep-merged over the built-in platform profile (client versions, identities, ids); see docs/platform-profile.md. */
  GLEANER_PLATFORM_PROFILE: z.string().min(1).optional(),
  /** Longest media transcribed, in minutes. */
  GLEANER_MEDIA_MAX_MINUTES: z.coerce.number().min(1).max(24 * 60).default(240),
  GLEANER_LLM_URL: httpUrl.optional(),
  GLEANER_LLM_API_KEY: z.string().min(1).optional(),
  GLEANER_LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /** Characters of transcript sent to the language model at once; longer ones are condensed in parts. */
  GLEANER_LLM_CONTEXT_CHARS: z.coerce.number().int().min(2_000).max(2_000_000).default(48_000),
  /** Frames of a video a video analysis shows the model (0: none, transcript and metadata only). */
  GLEANER_ANALYSIS_MAX_FRAMES: z.coerce.number().int().min(0).max(64).default(16),
  GLEANER_MCP_WAIT_SECONDS: z.coerce.number().min(0).max(3600).default(45),
  /** Characters of content in one page of a long MCP tool reply (the rest comes through nextCursor). */
  GLEANER_MCP_PAGE_CHARS: z.coerce.number().int().min(1_000).max(100_000).default(20_000),
  GLEANER_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Lets /mcp accept requests without x-api-key (initialize, list, ping; tool calls still need a key). Loopback binds only. */
  GLEANER_MCP_KEYLESS: booleanFlag.default(false),
  /** Open MCP sessions one key may hold at once on /mcp. */
  GLEANER_MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(1000).default(10),
  /** An MCP session unused this long is closed (a key at its cap also closes its least recently used idle one). */
  GLEANER_MCP_SESSION_IDLE_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  /**
   * Which MCP tools are listed: a comma list of groups (video, youtube, web, analysis, account, watch) and
   * tool names; unset or `all` lists every tool. Names are checked against the tools at start-up.
   */
  GLEANER_MCP_TOOLS: z
    .string()
    .transform((text) => text.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[a-z0-9_]+$/, 'must be a comma-separated list of tool groups or tool names')))
    .optional(),
  /** json (one JSON object a line, for machines) or pretty (coloured lines, for people). Always on stderr. */
  GLEANER_LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  /** Extra Host header values accepted besides the bound address and localhost (for reverse proxies). */
  GLEANER_ALLOWED_HOSTS: z.string().default('').transform((s) => s.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)),
  /** How many jobs run at once in this process. */
  GLEANER_JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * How much of a job's result its record keeps: characters of one text (a page, a transcript) and of
   * all long texts together; longer ones are cut with a marker (src/jobs/result-bounds.ts).
   */
  GLEANER_JOB_RESULT_ITEM_CHARS: z.coerce.number().int().min(10_000).max(50_000_000).default(1_000_000),
  GLEANER_JOB_RESULT_CHARS: z.coerce.number().int().min(10_000).max(200_000_000).default(10_000_000),
  /** How long a process's hold on a job lasts without renewal; a job held longer by a dead process is taken over. */
  /**
   * How long every fetched transcript is kept in the store for transcript_search (and watches), so it is
   * never fetched or charged twice meanwhile; 0: none is kept (docs/transcript-search.md).
   */
  GLEANER_KEEP_TRANSCRIPTS_DAYS: z.coerce.number().min(0).max(3650).default(30),
  GLEANER_JOB_LEASE_SECONDS: z.coerce.number().min(0.3).max(3600).default(30),
  /**
   * The shortest interval a watch may be checked at (watch_create refuses less). Operator
   * configuration only: tests lower it to a second; callers cannot.
   */
  GLEANER_WATCH_MIN_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Total time one outbound request may take (redirects, retries and body included). */
  GLEANER_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Largest PDF or Word document read by scrape, crawl and metadata (web pages stay capped at 10 MB). */
  GLEANER_DOCUMENT_MAX_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024 * 1024).default(20 * 1024 * 1024),
  /** Longest time reading one document may take on the document threads; a slower one is stopped (422). */
  GLEANER_DOCUMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** The user agent of web page fetches and other requests that set none (default: a current desktop Chrome, see net/identity.ts). */
  GLEANER_USER_AGENT: z.string().trim().min(1).max(512).regex(/^[\x20-\x7e]+$/, 'must be printable ASCII').optional(),
  /** Outbound requests in flight to one host at once (politeness; also bounds a crawl's concurrency). */
  GLEANER_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  /** InnerTube clients asked in order for caption tracks and audio (comma list, e.g. VISIONOS,ANDROID,IOS,WEB); a shorthand for the profile's youtube.order. */
  GLEANER_YOUTUBE_CLIENTS: z.string().min(1).optional(),
  /** An HTTP PO-token provider compatible with bgutil-ytdlp-pot-provider (e.g. http://127.0.0.1:4416). */
  GLEANER_YOUTUBE_POT_PROVIDER_URL: httpUrl.optional(),
  /** Per-platform outbound proxies overriding GLEANER_PROXY_URL; a comma list is a pool rotated when blocked. */
  GLEANER_PROXY_URL_YOUTUBE: proxyList.optional(),
  GLEANER_PROXY_URL_TIKTOK: proxyList.optional(),
  GLEANER_PROXY_URL_INSTAGRAM: proxyList.optional(),
  GLEANER_PROXY_URL_X: proxyList.optional(),
  GLEANER_PROXY_URL_FACEBOOK: proxyList.optional(),
  /** A Netscape cookies.txt whose cookies go to the matching platform domains (never logged). */
  GLEANER_COOKIES_FILE: z.string().min(1).optional(),
  /** The secret that signs crawl webhooks (HMAC-SHA256); generated and kept in the store when unset. */
  GLEANER_WEBHOOK_SECRET: z.string().min(16).optional(),
  /** A local Chromium to render JavaScript pages with (else `chromium`, `chromium-browser` or `google-chrome` on the PATH). */
  GLEANER_BROWSER_PATH: z.string().min(1).optional(),
  /** A remote Chromium over CDP (a browser fleet such as browserless): ws(s):// or http(s):// endpoint; wins over a local one. May hold a token: never logged. */
  GLEANER_BROWSER_WS_URL: z.url({ protocol: /^(wss?|https?)$/ }).optional(),
  /** Credits a rendered page costs on top of its usual price (0 makes rendering free). */
  GLEANER_RENDER_CREDITS: z.coerce.number().int().min(0).max(100).default(1),
  /** How long the text a scrape with changeTracking keeps for its next comparison lives, in days (renewed by each tracked scrape). */
  GLEANER_CHANGE_TRACKING_DAYS: z.coerce.number().min(0.001).max(365).default(30),
  /** Pages rendered at once by this process (each in its own browser context). */
  GLEANER_RENDER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Longest one page may take in the browser (navigation, scripts, waitFor), in milliseconds. */
  GLEANER_RENDER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(20_000),
  /** Render slots one key (account) may hold at once; default half of GLEANER_RENDER_CONCURRENCY, rounded up. */
  GLEANER_RENDER_CONCURRENCY_PER_ACCOUNT: z.coerce.number().int().min(1).max(64).optional(),
  /** Longest one crawl's or map's rendering may take as a whole, in milliseconds; later pages are not rendered. */
  GLEANER_RENDER_CRAWL_TIMEOUT_MS: z.coerce.number().int().min(1000).max(24 * 3600_000).default(600_000),
  /** Memory of one renderer process, in MB: its JavaScript heap, and (Linux) its resident memory, over which it is stopped. */
  GLEANER_RENDER_MEMORY_MB: z.coerce.number().int().min(64).max(16_384).default(1024),
  /**
   * The address people and clients reach this server at (https behind a proxy). It is the OAuth
   * issuer and makes /mcp the protected resource; unset, they follow the request's Host header.
   */
  GLEANER_PUBLIC_URL: httpUrl
    .transform((url) => url.replace(/\/+$/, ''))
    .refine((url) => !new URL(url).search && !new URL(url).hash, 'must be a plain origin (and path), without query or fragment')
    .optional(),
  /** How long an OAuth access token for /mcp lasts (short: a refresh token renews it). */
  GLEANER_OAUTH_ACCESS_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  /** How long an unused OAuth refresh token lasts; each use rotates it and starts this anew. */
  GLEANER_OAUTH_REFRESH_TTL_DAYS: z.coerce.number().min(0.001).max(365).default(30),
  /**
   * An operator's identity provider instead of Gleaner's own sign-in: /mcp accepts its JWT access
   * tokens (issuer and audience checked, keys from its JWKS) and maps a claim to an account.
   */
  GLEANER_OAUTH_ISSUER: httpUrl.optional(),
  /** The audience the provider's tokens must name (default: GLEANER_PUBLIC_URL + /mcp). */
  GLEANER_OAUTH_AUDIENCE: z.string().min(1).optional(),
  /** The provider's JWKS (default: the jwks_uri of its metadata). */
  GLEANER_OAUTH_JWKS_URL: httpUrl.optional(),
  /** The token claim that names the user (default sub). */
  GLEANER_OAUTH_ACCOUNT_CLAIM: z.string().regex(/^[A-Za-z0-9_.:/-]{1,100}$/).default('sub'),
  /** claimValue=acct_… pairs, comma-separated; unset, the claim's value is the account id itself. */
  GLEANER_OAUTH_ACCOUNTS: z.string().transform((text, ctx) => {
    const map = new Map<string, string>();
    for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
      const eq = pair.lastIndexOf('=');
      const account = pair.slice(eq + 1).trim();
      if (eq <= 0 || !/^acct_[A-Za-z0-9]+$/.test(account)) {
        ctx.addIssue({ code: 'custom', message: `"${pair}" is not a claimValue=acct_… pair` });
        return z.NEVER;
      }
      map.set(pair.slice(0, eq).trim(), account);
    }
    return map;
  }).optional(),
});

/** Every variable the configuration reads (tests check that each credential-bearing one is covered by redaction). */
export const CONFIG_VARIABLES = Object.keys(schema.shape) as ReadonlyArray<keyof z.infer<typeof schema>>;

export type Config = z.infer<typeof schema> & {
  /** The platform profile in force: built-in, GLEANER_PLATFORM_PROFILE and the shorthands merged and validated. */
  platformProfile: PlatformProfile;
};

export class ConfigError extends Error {}

/** An MCP bundle passes settings the user left empty as the literal "${user_config.x}": that means unset. */
function isUnset(value: string | undefined): boolean {
  return value === undefined || value.trim() === '' || /^\$\{user_config\.[^}]*\}$/.test(value.trim());
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (!isUnset(value)) relevant[key] = value as string;
  }
  const parsed = schema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const values = parsed.data;
  if (values.GLEANER_OAUTH_ISSUER && !values.GLEANER_OAUTH_AUDIENCE && !values.GLEANER_PUBLIC_URL) {
    throw new ConfigError('Invalid configuration:\n  GLEANER_OAUTH_ISSUER: set GLEANER_OAUTH_AUDIENCE (or GLEANER_PUBLIC_URL, whose /mcp is then the audience) so tokens meant for another service are refused');
  }
  try {
    const platformProfile = loadPlatformProfile({
      file: values.GLEANER_PLATFORM_PROFILE,
      youtubeClients: values.GLEANER_YOUTUBE_CLIENTS,
      xTweetQueryId: values.GLEANER_X_TWEET_QUERY_ID,
      xBearerToken: values.GLEANER_X_BEARER_TOKEN,
      instagramDocId: values.GLEANER_INSTAGRAM_DOC_ID,
    });
    return { ...values, platformProfile };
  } catch (error) {
    if (error instanceof ProfileError) throw new ConfigError(`Invalid configuration:\n  ${error.message}`);
    throw error;
  }
}

/** GLEANER_PUBLIC_URL as clients are told it: without the credentials a URL could carry (they stay configuration, redacted). */
export function publicUrl(config: Pick<Config, 'GLEANER_PUBLIC_URL'>): string | undefined {
  if (!config.GLEANER_PUBLIC_URL) return undefined;
  const url = new URL(config.GLEANER_PUBLIC_URL);
  url.username = '';
  url.password = '';
  return url.toString().replace(/\/+$/, '');
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
