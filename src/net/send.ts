/**
 * The fetch stage: one request on one route, and what came back — a reply for the decode stage, a
 * redirect to follow, or a status worth retrying (its body kept in case it turns out to be the answer).
 */
import { Readable } from 'node:stream';
import { request, type Dispatcher, type FormData } from 'undici';
import { readCapped } from './decode.js';
import type { Route } from './route.js';
import type { Platform } from './egress.js';
import type { Finish, Hop } from './types.js';

export interface Sending {
  method: string;
  body?: string | Uint8Array | FormData;
  signal: AbortSignal;
  /** A 3xx is the answer, not followed. */
  manual: boolean;
}

/** What sending needs from the client: where a reply is counted (the upstream-requests metric). */
export interface SendContext {
  count(platform: Platform | undefined, status: number): void;
}

export type Sent<R> = { result: R } | { redirect: string; status: number } | { retryStatus: number; retryAfter?: string; finishRetryable: () => Promise<R> };

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export async function send<R>(net: SendContext, route: Route, sending: Sending, finish: Finish<R>): Promise<Sent<R>> {
  const response = await request(route.target, {
    method: sending.method as Dispatcher.HttpMethod,
    body: sending.body,
    signal: sending.signal,
    dispatcher: route.dispatcher,
    // undici's ProxyAgent writes into the headers it is given: it gets its own copy, the route stays as planned.
    headers: { ...route.headers },
  });
  const headers = flattenHeaders(response.headers);
  net.count(route.platform, response.statusCode);
  const hop: Hop = { status: response.statusCode, headers, body: response.body };
  if (response.statusCode >= 300 && response.statusCode < 400 && headers.location && !sending.manual) {
    await response.body.dump();
    return { redirect: headers.location, status: response.statusCode };
  }
  if (RETRYABLE_STATUS.has(response.statusCode)) {
    // The body is read only if this turns out to be the answer; a retry discards it.
    const buffered = await readCapped(hop, route.url, 1024 * 1024).catch(() => Buffer.alloc(0));
    const replay: Hop = { ...hop, body: Readable.from([buffered]) as unknown as Hop['body'] };
    return { retryStatus: response.statusCode, retryAfter: headers['retry-after'], finishRetryable: () => finish(replay, route.url) };
  }
  return { result: await finish(hop, route.url) };
}
