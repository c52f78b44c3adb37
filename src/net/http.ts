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
import { setTimeout as delay } from 'node:timers/promises';
import { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { request, type Dispatcher, type Agent, type FormData } from 'undici';
import type { UpstreamOverride } from '../config.js';
import { GleanerError } from '../errors.js';
import { applyOverride } from './overrides.js';
import { HostLimits } from './host-limits.js';
import { blockedHostReason } from './ssrf.js';
import { BlockedAddressError, createAgent, resolveAllowed, systemResolver, type Resolver } from './guard-agent.js';
import { decodeBody } from './charset.js';
import { Egress, platformOfHost, type Exit, type Platform } from './egress.js';
import type { CookieJar } from './cookies.js';
import { upstreamRequestsTotal, upstreamStatusLabel } from '../observability/metrics.js';
import { BROWSER_USER_AGENT } from './identity.js';

export type { Resolver } from './guard-agent.js';

/** The user agent of requests that set none (GLEANER_USER_AGENT replaces it): see identity.ts. */
export const USER_AGENT = BROWSER_USER_AGENT;

export interface FetchOptions {
  method?: 'GET' | 'POST' | 'HEAD' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  headers?: Record<string, string>;
  /** FormData (undici's) for multipart uploads such as the speech-to-text endpoint's. */
  body?: string | Uint8Array | FormData;
  /** Total time for the request, redirects, retries and body included. */
  timeoutMs?: number;
  /** Largest (decompressed) body accepted; a larger one is PAYLOAD_TOO_LARGE. */
  maxBytes?: number;
  /** Redirects followed (5 by default); one more is UPSTREAM_ERROR. */
  maxRedirects?: number;
  /** 'manual' returns a 3xx reply as is (its Location in headers) instead of following it. */
  redirect?: 'follow' | 'manual';
  signal?: AbortSignal;
  /** The SSRF guard (see the file comment). Default true; false only for operator-configured URLs. */
  guard?: boolean;
  /**
   * The operator's platform credentials go with this request: the cookies of GLEANER_COOKIES_FILE
   * that match each hop's host. Set only by platform adapters for their own requests, never for a
   * URL a caller chose (pages, media files, webhooks). Default false. Whatever the setting, a
   * redirect to another site drops the cookies and every header but the generic ones.
   */
  credentials?: boolean;
  /** Retries on 429, 5xx and connection resets; default 2 for GET and HEAD, 0 for other methods. */
  retries?: number;
  /**
   * False: a 429 is the answer, not retried. Platforms that block by address (YouTube) only extend
   * the block when asked again from the same exit; their adapters rotate the exit instead.
   */
  retryRateLimited?: boolean;
}

export interface FetchResponse {
  /** The URL finally answered (after redirects), as the caller sees it (before overrides). */
  url: string;
  status: number;
  /** Lower-case names; content-encoding and content-length are dropped once the body is decoded. */
  headers: Record<string, string>;
  body: Buffer;
  /** Decoded with the charset of the Content-Type header, a BOM or <meta charset>, else UTF-8. */
  text(): string;
  json<T = unknown>(): T;
}

export interface StreamResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Decompressed, capped at maxBytes (the stream errors with PAYLOAD_TOO_LARGE past it). */
  body: Readable;
}

export interface HttpClientOptions {
  overrides: UpstreamOverride[];
  userAgent?: string;
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

/** Longest Retry-After honoured; a site asking for more gets its error back instead. */
const MAX_RETRY_AFTER_MS = 30_000;
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRYABLE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);

interface Hop {
  status: number;
  headers: Record<string, string>;
  /** Undecoded body stream. */
  body: Dispatcher.ResponseData['body'];
}

export class HttpClient {
  private readonly guardedAgent: Agent;
  private readonly openAgent: Agent;
  private readonly resolver: Resolver;
  private readonly hosts: HostLimits;
  private readonly trusted: Set<string>;
  /** The exits per platform; adapters rotate a platform's pool when they recognise a block. */
  readonly egress: Egress;

  /** The user agent the client sends (GLEANER_USER_AGENT, else the browser identity of identity.ts). */
  get userAgent(): string {
    return this.options.userAgent ?? USER_AGENT;
  }

  constructor(private readonly options: HttpClientOptions) {
    const proxies = Array.isArray(options.proxyUrl) ? options.proxyUrl : options.proxyUrl ? [options.proxyUrl] : [];
    this.egress = new Egress({ proxies, platformProxies: options.platformProxies, connectTimeoutMs: options.connectTimeoutMs });
    this.resolver = options.resolver ?? systemResolver;
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.guardedAgent = createAgent({ guarded: true, resolver: this.resolver, connectTimeoutMs });
    this.openAgent = createAgent({ guarded: false, resolver: this.resolver, connectTimeoutMs });
    this.hosts = new HostLimits(options.perHostConcurrency ?? 8);
    this.trusted = new Set((options.trustedOrigins ?? []).map((origin) => new URL(origin).origin));
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    const maxBytes = options.maxBytes ?? this.options.defaultMaxBytes ?? 20 * 1024 * 1024;
    return this.exchange(url, options, async (hop, current) => {
      const body = await readCapped(hop, current, maxBytes);
      // undici reuses a kept-alive socket only after a full turn of the event loop; answering after
      // that turn lets the caller's next request to the host take the same connection, not a new one.
      await new Promise((resolve) => setImmediate(resolve));
      const headers = { ...hop.headers };
      if (headers['content-encoding']) {
        delete headers['content-encoding'];
        delete headers['content-length'];
      }
      let decoded: string | undefined;
      const text = () => (decoded ??= decodeBody(body, headers['content-type']).text);
      // A body that is not JSON where JSON was expected is the upstream's failure, never a SyntaxError (a 500).
      const json = <T>() => {
        try {
          return JSON.parse(text()) as T;
        } catch {
          throw new GleanerError('UPSTREAM_ERROR', `${current.host} answered ${hop.status} with a body that is not JSON (${headers['content-type'] ?? 'no content type'}).`);
        }
      };
      return { url: current.toString(), status: hop.status, headers, body, text, json };
    });
  }

  /**
   * Like fetch, but hands back the body as a stream once the headers are in (media downloads). The
   * per-host slot is released when the headers arrive; the total timeout still covers the body.
   */
  async stream(url: string, options: FetchOptions = {}): Promise<StreamResponse> {
    const maxBytes = options.maxBytes ?? this.options.defaultMaxBytes ?? 20 * 1024 * 1024;
    return this.exchange(url, options, async (hop, current) => {
      const headers = { ...hop.headers };
      const decoder = decompressor(headers['content-encoding']);
      if (decoder) {
        delete headers['content-encoding'];
        delete headers['content-length'];
      }
      let size = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > maxBytes) done(new GleanerError('PAYLOAD_TOO_LARGE', `The response from ${current.host} is larger than ${maxBytes} bytes.`));
          else done(null, chunk);
        },
      });
      const source = hop.body as unknown as Readable;
      const body = decoder ? source.pipe(decoder).pipe(cap) : source.pipe(cap);
      // A reply cut off on the way (the server closed mid-body, a reset) fails the reader with a clear error.
      source.on('error', (error: Error) =>
        body.destroy(
          error instanceof GleanerError
            ? error
            : new GleanerError('UPSTREAM_UNAVAILABLE', `The connection to ${current.host} broke while its reply was being read (${describeFailure(error)}).`),
        ),
      );
      decoder?.on('error', () => body.destroy(new GleanerError('UPSTREAM_ERROR', `The response from ${current.host} could not be decompressed (${hop.headers['content-encoding']}).`)));
      // A reply abandoned by its reader must not take the process down with an 'error' nobody
      // listens to; readers (pipeline, for await) still get the error.
      body.on('error', () => undefined);
      // A caller that stops reading (a file refused by its headers) must free the connection too:
      // pipe() does not pass a destroy upstream, and an unread body would hold it open forever.
      body.on('close', () => {
        if (!source.destroyed) source.destroy();
      });
      return { url: current.toString(), status: hop.status, headers, body };
    });
  }

  /**
   * The guard's checks on a URL without fetching it (used to refuse a crawl or webhook URL at
   * submission, before anything is charged). Resolves the host when it is a name.
   */
  async assertAllowed(url: string, options: { guard?: boolean } = {}): Promise<void> {
    const parsed = parseHttpUrl(url);
    if (!this.guarded(parsed, options.guard)) return;
    assertHostAllowed(parsed);
    if (/^[\d.]+$|^\[/.test(parsed.hostname)) return;
    try {
      await resolveAllowed(this.resolver, parsed.hostname);
    } catch (error) {
      if (error instanceof BlockedAddressError) throw notAllowed(parsed, `${error.address}, ${error.reason}`);
      // A name that does not resolve now is the fetch's problem later, not a policy refusal.
    }
  }

  /**
   * One cookie's value from GLEANER_COOKIES_FILE for a URL, for adapters that must also send it as
   * a header (X wants ct0 as x-csrf-token). Undefined without a file or a match.
   */
  cookie(url: string | URL, name: string): string | undefined {
    return this.options.cookies?.value(url, name);
  }

  async close(): Promise<void> {
    await Promise.all([this.guardedAgent.close(), this.openAgent.close(), this.egress.close()]);
  }

  private guarded(url: URL, guard: boolean | undefined): boolean {
    if (guard === false || this.options.allowPrivate) return false;
    return !applyOverride(url, this.options.overrides).overridden;
  }

  /** True when a request to `url` goes through a proxy: all but Gleaner's own calls to the operator's endpoints. */
  private proxied(url: URL, guard: boolean | undefined): boolean {
    if (guard === false && this.trusted.has(url.origin)) return false;
    return this.egress.exitFor(url) !== undefined;
  }

  /**
   * The address a proxied, guarded request is sent to: the name resolved here and checked, so the
   * proxy cannot resolve it to somewhere the guard would refuse. A name that does not resolve here
   * is refused rather than left to the proxy's resolver.
   */
  private async pinnedAddress(url: URL): Promise<string> {
    const host = url.hostname;
    if (/^[\d.]+$/.test(host) || host.startsWith('[')) return host;
    try {
      const [first] = await resolveAllowed(this.resolver, host);
      if (!first) throw new Error('no address');
      return first.family === 6 ? `[${first.address}]` : first.address;
    } catch (error) {
      if (error instanceof BlockedAddressError) throw notAllowed(url, `${error.address}, ${error.reason}`);
      throw new GleanerError('URL_NOT_ALLOWED', `${url.host} does not resolve from this server; through a proxy only names that resolve here are fetched.`);
    }
  }

  /** Follows redirects (each hop guarded and retried on its own) and hands the final hop to `finish`. */
  private async exchange<R>(url: string, options: FetchOptions, finish: (hop: Hop, current: URL) => Promise<R>): Promise<R> {
    const maxRedirects = options.maxRedirects ?? 5;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.options.defaultTimeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let current = parseHttpUrl(url);
    let method = options.method ?? 'GET';
    let body = options.body;
    let headers = { ...options.headers };
    const retries = options.retries ?? (method === 'GET' || method === 'HEAD' ? 2 : 0);
    const first = current;
    // The operator's cookies go with this request only while it stays on the site it was made for.
    let credentials = options.credentials === true;
    for (let hop = 0; ; hop++) {
      const guarded = this.guarded(current, options.guard);
      if (guarded) assertHostAllowed(current);
      const proxied = this.proxied(current, options.guard);
      const pinned = guarded && proxied ? await this.pinnedAddress(current) : undefined;
      let attempt = 0;
      let exitsSkipped = 0;
      for (;;) {
        const exit = proxied ? this.egress.exitFor(current) : undefined;
        const outcome = await this.hosts
          .run(current.host, () =>
            this.attempt(current, { method, body, headers, signal, guarded, exit, pinned, credentials, manual: options.redirect === 'manual' }, finish),
          )
          .catch((error: unknown) => ({ error }));
        if ('error' in outcome) {
          const failure = outcome.error;
          if (exit && !signal.aborted && proxyUnreachable(failure)) {
            // A dead exit is skipped (for a while, for every request), and this request goes on through the next one.
            if (this.egress.markDown(exit) && exitsSkipped < exit.poolSize - 1) {
              exitsSkipped++;
              continue;
            }
            throw new GleanerError(
              'UPSTREAM_UNAVAILABLE',
              `Could not reach ${current.host}: its proxy (${exit.label}) could not be reached (${describeFailure(failure)})${exit.poolSize > 1 ? ', nor any other proxy of its pool' : ''}.`,
            );
          }
          if (attempt < retries && !signal.aborted && isTransient(failure)) {
            await this.backoff(attempt++, undefined, signal, current, failure);
            continue;
          }
          throw toClientError(current, failure, timeout, exit);
        }
        if ('redirect' in outcome) {
          if (hop >= maxRedirects) throw new GleanerError('UPSTREAM_ERROR', `Too many redirects (more than ${maxRedirects}) from ${first.host}.`);
          const next = parseHttpUrl(new URL(outcome.redirect, current).toString());
          if (outcome.status !== 307 && outcome.status !== 308) {
            method = method === 'HEAD' ? 'HEAD' : 'GET';
            body = undefined;
          }
          // Credentials never follow a redirect to another origin, and nothing but generic headers to another site.
          if (!sameSite(next, first)) {
            headers = genericHeaders(headers);
            credentials = false;
          } else if (next.origin !== first.origin) headers = withoutCredentials(headers);
          current = next;
          break;
        }
        if ('retryStatus' in outcome) {
          if (attempt < retries && !signal.aborted && (outcome.retryStatus !== 429 || options.retryRateLimited !== false)) {
            const wait = this.retryDelay(attempt, outcome.retryAfter);
            if (wait !== null) {
              await this.backoff(attempt++, wait, signal, current, undefined);
              continue;
            }
          }
          return outcome.finishRetryable();
        }
        return outcome.result;
      }
    }
  }

  /**
   * One request on one hop, holding the host's politeness slot until `finish` returns (fetch reads
   * the whole body in it; stream returns at the headers).
   */
  private async attempt<R>(
    current: URL,
    request_: {
      method: string;
      body?: string | Uint8Array | FormData;
      headers: Record<string, string>;
      signal: AbortSignal;
      guarded: boolean;
      /** The proxy this attempt leaves by (undefined: direct). */
      exit?: Exit;
      /** The checked address to connect to instead of the name (proxied, guarded requests). */
      pinned?: string;
      /** The operator's platform cookies go with it. */
      credentials: boolean;
      manual: boolean;
    },
    finish: (hop: Hop, current: URL) => Promise<R>,
  ): Promise<{ result: R } | { redirect: string; status: number } | { retryStatus: number; retryAfter?: string; finishRetryable: () => Promise<R> }> {
    const target = applyOverride(current, this.options.overrides);
    let targetUrl = target.url;
    const extra: Record<string, string> = {};
    if (request_.pinned && !target.overridden) {
      // The proxy is asked to CONNECT to the address; Host (and so the TLS server name) stays the name.
      const pinnedUrl = new URL(current);
      pinnedUrl.hostname = request_.pinned;
      targetUrl = pinnedUrl.toString();
      extra.host = current.host;
    }
    const cookie = request_.credentials && this.options.cookies && !hasHeader(request_.headers, 'cookie') ? this.options.cookies.headerFor(current) : undefined;
    const response = await request(targetUrl, {
      method: request_.method as Dispatcher.HttpMethod,
      body: request_.body,
      signal: request_.signal,
      dispatcher: request_.exit ? request_.exit.agent : request_.guarded ? this.guardedAgent : this.openAgent,
      headers: {
        'user-agent': this.options.userAgent ?? USER_AGENT,
        'accept-encoding': 'gzip, deflate, br',
        ...request_.headers,
        ...extra,
        ...(cookie ? { cookie } : {}),
        ...(target.forwardedHost ? { 'x-forwarded-host': target.forwardedHost } : {}),
      },
    });
    const headers = flattenHeaders(response.headers);
    upstreamRequestsTotal.inc({ platform: platformOfHost(current.hostname) ?? 'web', status: upstreamStatusLabel(response.statusCode) });
    const hop: Hop = { status: response.statusCode, headers, body: response.body };
    if (response.statusCode >= 300 && response.statusCode < 400 && headers.location && !request_.manual) {
      await response.body.dump();
      return { redirect: headers.location, status: response.statusCode };
    }
    if (RETRYABLE_STATUS.has(response.statusCode)) {
      // The body is read only if this turns out to be the answer; a retry discards it.
      const buffered = await readCapped(hop, current, 1024 * 1024).catch(() => Buffer.alloc(0));
      const replay: Hop = { ...hop, body: Readable.from([buffered]) as unknown as Hop['body'] };
      return { retryStatus: response.statusCode, retryAfter: headers['retry-after'], finishRetryable: () => finish(replay, current) };
    }
    return { result: await finish(hop, current) };
  }

  /** Delay before retry `attempt`, or null when the server asks for longer than we will wait. */
  private retryDelay(attempt: number, retryAfter: string | undefined): number | null {
    if (retryAfter !== undefined) {
      const seconds = Number(retryAfter);
      const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
      if (Number.isFinite(ms)) return ms > MAX_RETRY_AFTER_MS ? null : Math.max(0, ms);
    }
    const base = this.options.retryBaseMs ?? 250;
    return base * 2 ** attempt * (0.75 + Math.random() * 0.5);
  }

  private async backoff(attempt: number, wait: number | undefined, signal: AbortSignal, current: URL, failure: unknown): Promise<void> {
    const ms = wait ?? this.retryDelay(attempt, undefined)!;
    try {
      await delay(ms, undefined, { signal });
    } catch {
      throw signal.reason instanceof Error && signal.reason.name === 'TimeoutError'
        ? new GleanerError('UPSTREAM_TIMEOUT', `${current.host} did not answer in time.`, { cause: failure })
        : new GleanerError('UPSTREAM_UNAVAILABLE', `The request to ${current.host} was aborted.`, { cause: failure });
    }
  }
}

function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GleanerError('INVALID_REQUEST', `"${url}" is not a valid URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GleanerError('URL_NOT_ALLOWED', `Only http and https URLs can be fetched, not ${parsed.protocol.replace(/:$/, '')}: (${url}).`);
  }
  return parsed;
}

function notAllowed(url: URL, why: string): GleanerError {
  return new GleanerError(
    'URL_NOT_ALLOWED',
    `${url.host} is not allowed: it points at a ${why} address, which this server does not fetch (the operator can open this with GLEANER_ALLOW_PRIVATE_URLS=true).`,
  );
}

function assertHostAllowed(url: URL): void {
  const reason = blockedHostReason(url.hostname);
  if (reason) throw notAllowed(url, reason);
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(authorization|cookie|proxy-authorization)$/i.test(name)));
}

/**
 * What a request may carry to another site after a redirect: the headers any browser would send
 * anywhere. Everything else (cookies, authorization, x-csrf-token, guest tokens, API keys, whatever
 * an adapter added for its platform) stays with the site it was meant for.
 */
const GENERIC_HEADERS = new Set(['accept', 'accept-language', 'accept-encoding', 'user-agent', 'range', 'content-type', 'cache-control', 'pragma']);

function genericHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => GENERIC_HEADERS.has(name.toLowerCase())));
}

/**
 * Whether two URLs are on one site: the same host, or hosts of one platform (api.x.com and x.com,
 * www.youtube.com and m.youtube.com). Other hosts count as sites of their own: without a public
 * suffix list, a stricter answer is the safe one.
 */
function sameSite(a: URL, b: URL): boolean {
  const host = (url: URL) => url.hostname.toLowerCase().replace(/\.$/, '');
  if (host(a) === host(b)) return true;
  const platform = platformOfHost(a.hostname);
  return platform !== undefined && platform === platformOfHost(b.hostname);
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function decompressor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'deflate':
      return zlib.createInflate();
    default:
      return undefined;
  }
}

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

/** Reads the body, decompresses it, and refuses more than maxBytes before or after decompression. */
async function readCapped(hop: Hop, current: URL, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new GleanerError('PAYLOAD_TOO_LARGE', `The response from ${current.host} is larger than ${maxBytes} bytes.`);
  const declared = Number(hop.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    hop.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of hop.body) {
    size += chunk.length;
    if (size > maxBytes) {
      hop.body.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  const encoding = hop.headers['content-encoding']?.trim().toLowerCase();
  if (!encoding || encoding === 'identity' || raw.length === 0) return raw;
  const limits = { maxOutputLength: maxBytes };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return await gunzip(raw, limits);
    if (encoding === 'br') return await brotli(raw, limits);
    // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
    if (encoding === 'deflate') return (raw[0] & 0x0f) === 8 ? await inflate(raw, limits) : await inflateRaw(raw, limits);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new GleanerError('UPSTREAM_ERROR', `The response from ${current.host} could not be decompressed (${encoding}).`, { cause: error });
  }
  return raw;
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/** Codes of a connection that never reached its peer: through a proxy, the proxy itself is out of reach. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'EADDRNOTAVAIL']);

function proxyUnreachable(error: unknown): boolean {
  if (error instanceof GleanerError) return false;
  return causes(error).some((e) => UNREACHABLE_CODES.has((e as { code?: string }).code ?? ''));
}

const FAILURE_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'name not found',
  EAI_AGAIN: 'name lookup failed',
  ETIMEDOUT: 'timed out',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_ABORTED: 'request aborted',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the reply ended before its declared length',
  HPE_INVALID_EOF_STATE: 'the reply ended in the middle',
};

/**
 * A failure in words that carry no address: an error's own message names the address it
 * connected to, which through a proxy is the proxy's (and may hold its credentials).
 */
function describeFailure(error: unknown): string {
  for (const e of causes(error)) {
    const code = (e as { code?: string }).code;
    if (code && FAILURE_WORDS[code]) return FAILURE_WORDS[code];
  }
  const code = causes(error)
    .map((e) => (e as { code?: string }).code)
    .find((c): c is string => typeof c === 'string' && /^[A-Z0-9_]+$/.test(c));
  return code ? `error ${code}` : 'the connection failed';
}

function isTransient(error: unknown): boolean {
  if (error instanceof GleanerError) return false;
  return causes(error).some((e) => RETRYABLE_CODES.has((e as { code?: string }).code ?? ''));
}

function toClientError(url: URL, error: unknown, timeout: AbortSignal, exit: Exit | undefined): GleanerError {
  if (error instanceof GleanerError) return error;
  const blocked = causes(error).find((e) => e instanceof BlockedAddressError) as BlockedAddressError | undefined;
  if (blocked) return notAllowed(url, `${blocked.address}, ${blocked.reason}`);
  // Through a proxy, the error (and so its cause, which logs may print) can name the proxy: neither travels on.
  const cause = exit ? undefined : error;
  const via = exit ? ` through its proxy (${exit.label})` : '';
  if (timeout.aborted) return new GleanerError('UPSTREAM_TIMEOUT', `${url.host} did not answer in time.`, { cause });
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new GleanerError('UPSTREAM_TIMEOUT', `${url.host} did not accept a connection in time${via}.`, { cause });
  const why = exit ? describeFailure(error) : (error as Error).message;
  return new GleanerError('UPSTREAM_UNAVAILABLE', `Could not reach ${url.host}${via}: ${why}`, { cause });
}
