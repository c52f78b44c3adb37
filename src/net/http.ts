/**
 * The one outbound HTTP client. Every request to the outside world goes through it, so that
 * upstream overrides, the SSRF guard, timeouts, size caps, redirects, retries, per-host politeness,
 * decompression, charset decoding and the user agent are the project's own.
 *
 * The SSRF guard (`guard`, on by default) refuses non-http(s) URLs and any host that is, or resolves
 * to, a loopback, private, link-local, CGNAT, multicast, unspecified or cloud-metadata address,
 * checked before each hop on the URL and at connect time on the address actually used. It is ON by
 * default for every request because most URLs reaching this client come from users (pages, media
 * files, URLs found inside upstream replies, webhooks, redirects). It does not apply to:
 *   - hosts redirected by GLEANER_UPSTREAM_OVERRIDES (operator configuration: a platform's host is
 *     sent to the override's origin; naming that origin directly is a URL like any other),
 *   - anything when GLEANER_ALLOW_PRIVATE_URLS=true (`allowPrivate`),
 *   - a request made with `guard: false`, which Gleaner's own calls to the operator's endpoints
 *     (speech to text, language model, PO-token provider) use, never a URL from a user. Those
 *     endpoints (`trustedOrigins`) are also reached directly, not through the proxy; a caller's URL
 *     that names one of them is guarded and proxied like any other.
 *
 * Credentials: the operator's platform cookies (GLEANER_COOKIES_FILE) go only with requests that ask
 * for them (`credentials: true`, which only the platform adapters set on their own requests), and
 * neither they nor any login header a request carries follow a redirect to another site.
 */
import type { UpstreamOverride } from '../config.js';
import { applyOverride } from './overrides.js';
import { HostLimits } from './host-limits.js';
import { createAgent, systemResolver, type Resolver } from './guard-agent.js';
import { assertResolvesAllowed, isGuarded, parseHttpUrl } from './guard.js';
import { bufferedResponse, streamedResponse } from './decode.js';
import { walk, type WalkContext } from './walk.js';
import { Egress, type Platform } from './egress.js';
import type { CookieJar } from './cookies.js';
import { upstreamRequestsTotal, upstreamStatusLabel } from '../observability/metrics.js';
import type { FetchOptions, FetchResponse, StreamResponse } from './types.js';
import { BROWSER_IDENTITY, BROWSER_USER_AGENT, type DefaultIdentity } from './identity.js';

export type { Resolver } from './guard-agent.js';
export type { FetchOptions, FetchResponse, StreamResponse } from './types.js';

/** The user agent of requests that set none (GLEANER_USER_AGENT replaces it): see identity.ts. */
export const USER_AGENT = BROWSER_USER_AGENT;

export interface HttpClientOptions {
  overrides: UpstreamOverride[];
  /** GLEANER_USER_AGENT: replaces the identity's user agent (and drops its Chrome client hints). */
  userAgent?: string;
  /** Who a request that names no user agent says it is: the configured profile's desktop browser (built-in by default). */
  identity?: DefaultIdentity;
  defaultTimeoutMs?: number;
  defaultMaxBytes?: number;
  connectTimeoutMs?: number;
  /** GLEANER_ALLOW_PRIVATE_URLS: opens the guard for every request. */
  allowPrivate?: boolean;
  /**
   * Origins of operator-configured endpoints (STT, LLM, PO-token provider): Gleaner's own calls to
   * them (`guard: false`) go direct, not through the proxy. They open nothing for a caller's URL.
   */
  trustedOrigins?: string[];
  /** DNS for guarded requests (tests inject one). */
  resolver?: Resolver;
  /** Requests in flight to one host at once (politeness). */
  perHostConcurrency?: number;
  /** First retry delay; doubles each time, with jitter. */
  retryBaseMs?: number;
  /**
   * GLEANER_PROXY_URL: every request to the outside world goes through this proxy (or pool), except
   * to operator-configured endpoints (trustedOrigins). The guard then resolves the name itself,
   * refuses it when it does not resolve or resolves to a blocked address, and has the proxy connect
   * to the address it checked (the Host header and TLS name stay the original host's), so the proxy
   * never resolves a name of its own. Overridden hosts keep their platform's exit: the override
   * only changes where the request lands.
   */
  proxyUrl?: string | string[];
  /** GLEANER_PROXY_URL_<PLATFORM>: a platform's own proxy pool (see egress.ts). */
  platformProxies?: Partial<Record<Platform, string[]>>;
  /** GLEANER_COOKIES_FILE: cookies sent to the platform domains they belong to, on requests with `credentials`. */
  cookies?: CookieJar;
}

export class HttpClient {
  /** What every walk through net/ shares: configuration, dispatchers, politeness queues. */
  private readonly net: WalkContext;
  /** The exits per platform; adapters rotate a platform's pool when they recognise a block. */
  readonly egress: Egress;

  /** The user agent the client sends (GLEANER_USER_AGENT, else the browser identity of identity.ts). */
  get userAgent(): string {
    return this.options.userAgent ?? this.options.identity?.userAgent ?? USER_AGENT;
  }

  constructor(private readonly options: HttpClientOptions) {
    const proxies = Array.isArray(options.proxyUrl) ? options.proxyUrl : options.proxyUrl ? [options.proxyUrl] : [];
    this.egress = new Egress({ proxies, platformProxies: options.platformProxies, connectTimeoutMs: options.connectTimeoutMs });
    const resolver = options.resolver ?? systemResolver;
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.net = {
      overrides: options.overrides,
      allowPrivate: options.allowPrivate,
      trusted: new Set((options.trustedOrigins ?? []).map((origin) => new URL(origin).origin)),
      egress: this.egress,
      resolver,
      cookies: options.cookies,
      identity: identityHeaders(options),
      guardedAgent: createAgent({ guarded: true, resolver, connectTimeoutMs }),
      openAgent: createAgent({ guarded: false, resolver, connectTimeoutMs }),
      hosts: new HostLimits(options.perHostConcurrency ?? 8),
      defaultTimeoutMs: options.defaultTimeoutMs ?? 30_000,
      retryBaseMs: options.retryBaseMs ?? 250,
      count: (platform, status) => upstreamRequestsTotal.inc({ platform: platform ?? 'web', status: upstreamStatusLabel(status) }),
    };
  }

  private maxBytes(options: FetchOptions): number {
    return options.maxBytes ?? this.options.defaultMaxBytes ?? 20 * 1024 * 1024;
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    const maxBytes = this.maxBytes(options);
    return walk(this.net, url, options, (hop, current) => bufferedResponse(hop, current, maxBytes));
  }

  /**
   * Like fetch, but hands back the body as a stream once the headers are in (media downloads). The
   * per-host slot is released when the headers arrive; the total timeout still covers the body.
   */
  async stream(url: string, options: FetchOptions = {}): Promise<StreamResponse> {
    const maxBytes = this.maxBytes(options);
    return walk(this.net, url, options, async (hop, current) => streamedResponse(hop, current, maxBytes), (response) => response.body);
  }

  /**
   * The guard's checks on a URL without fetching it (used to refuse a crawl or webhook URL at
   * submission, before anything is charged). Resolves the host when it is a name.
   */
  async assertAllowed(url: string, options: { guard?: boolean } = {}): Promise<void> {
    const parsed = parseHttpUrl(url);
    if (!isGuarded(options, this.net, applyOverride(parsed, this.net.overrides).overridden)) return;
    await assertResolvesAllowed(this.net.resolver, parsed);
  }

  /**
   * One cookie's value from GLEANER_COOKIES_FILE for a URL, for adapters that must also send it as
   * a header (X wants ct0 as x-csrf-token). Undefined without a file or a match.
   */
  cookie(url: string | URL, name: string): string | undefined {
    return this.options.cookies?.value(url, name);
  }

  async close(): Promise<void> {
    await Promise.all([this.net.guardedAgent.close(), this.net.openAgent.close(), this.egress.close()]);
  }
}

/** The headers of the default identity: GLEANER_USER_AGENT alone, else the profile browser's user agent with its client hints. */
function identityHeaders(options: HttpClientOptions): Record<string, string> {
  if (options.userAgent) return { 'user-agent': options.userAgent };
  const identity = options.identity ?? BROWSER_IDENTITY;
  return { 'user-agent': identity.userAgent, ...identity.hints };
}
