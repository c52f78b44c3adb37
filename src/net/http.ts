/**
 * The one outbound HTTP client. Every request to the outside world goes through it, so that
 * upstream overrides, timeouts, size caps, redirects and the user agent are the project's own.
 */
import { request } from 'undici';
import type { UpstreamOverride } from '../config.js';
import { GleanerError } from '../errors.js';
import { applyOverride } from './overrides.js';

export const USER_AGENT = 'Gleaner/0.1 (+https://github.com/gleaner; self-hosted content extraction)';

export interface FetchOptions {
  method?: 'GET' | 'POST' | 'HEAD' | 'PUT';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Total time for the request, body included. */
  timeoutMs?: number;
  /** Largest body accepted; a larger one is PAYLOAD_TOO_LARGE. */
  maxBytes?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface FetchResponse {
  /** The URL finally answered (after redirects), as the caller sees it (before overrides). */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export interface HttpClientOptions {
  overrides: UpstreamOverride[];
  userAgent?: string;
  defaultTimeoutMs?: number;
  defaultMaxBytes?: number;
}

export class HttpClient {
  constructor(private readonly options: HttpClientOptions) {}

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResponse> {
    const maxRedirects = options.maxRedirects ?? 5;
    const maxBytes = options.maxBytes ?? this.options.defaultMaxBytes ?? 20 * 1024 * 1024;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.options.defaultTimeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let current = new URL(url);
    let method = options.method ?? 'GET';
    let body = options.body;
    for (let hop = 0; ; hop++) {
      const target = applyOverride(current, this.options.overrides);
      let response;
      try {
        response = await request(target.url, {
          method,
          body,
          signal,
          headers: {
            'user-agent': this.options.userAgent ?? USER_AGENT,
            'accept-encoding': 'identity',
            ...options.headers,
            ...(target.forwardedHost ? { 'x-forwarded-host': target.forwardedHost } : {}),
          },
        });
      } catch (error) {
        throw upstreamFailure(current, error, timeout);
      }
      const headers = flattenHeaders(response.headers);
      if (response.statusCode >= 300 && response.statusCode < 400 && headers.location) {
        await response.body.dump();
        if (hop >= maxRedirects) throw new GleanerError('UPSTREAM_ERROR', `Too many redirects (more than ${maxRedirects}) from ${url}.`);
        current = new URL(headers.location, current);
        if (response.statusCode !== 307 && response.statusCode !== 308) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of response.body) {
          size += chunk.length;
          if (size > maxBytes) {
            response.body.destroy();
            throw new GleanerError('PAYLOAD_TOO_LARGE', `The response from ${current.host} is larger than ${maxBytes} bytes.`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (error) {
        if (error instanceof GleanerError) throw error;
        throw upstreamFailure(current, error, timeout);
      }
      const buffer = Buffer.concat(chunks);
      return {
        url: current.toString(),
        status: response.statusCode,
        headers,
        body: buffer,
        text: () => buffer.toString('utf8'),
        json: <T>() => JSON.parse(buffer.toString('utf8')) as T,
      };
    }
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function upstreamFailure(url: URL, error: unknown, timeout: AbortSignal): GleanerError {
  if (timeout.aborted) return new GleanerError('UPSTREAM_TIMEOUT', `${url.host} did not answer in time.`, { cause: error });
  return new GleanerError('UPSTREAM_UNAVAILABLE', `Could not reach ${url.host}: ${(error as Error).message}`, { cause: error });
}
