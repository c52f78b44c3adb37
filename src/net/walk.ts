/**
 * A URL's walk through net/: for each hop, its route is worked out once (route.ts: resolve → guard
 * → route → carry), sent with retries (retry.ts → send.ts), and either followed to the next hop (a
 * redirect, whose URL is routed, guarded and overridden like the first) or handed to the decode
 * stage (decode.ts) as the answer.
 */
import type { Readable } from 'node:stream';
import { GleanerError } from '../errors.js';
import { deadline, type Deadline } from '../deadline.js';
import { parseHttpUrl } from './guard.js';
import { planRoute, type RouteContext } from './route.js';
import { sendWithRetries } from './retry.js';
import type { HostLimits } from './host-limits.js';
import type { SendContext, Sending } from './send.js';
import type { FetchOptions, Finish } from './types.js';

export interface WalkContext extends RouteContext, SendContext {
  hosts: HostLimits;
  defaultTimeoutMs: number;
  retryBaseMs: number;
}

/**
 * `reading`: for a result whose body is still being read when the walk returns (a stream), that
 * body; the walk's deadline then covers it until it closes.
 */
export async function walk<R>(net: WalkContext, url: string, options: FetchOptions, finish: Finish<R>, reading?: (result: R) => Readable): Promise<R> {
  const limit = deadline(options.timeoutMs ?? net.defaultTimeoutMs, options.signal);
  let kept = false;
  try {
    const result = await hops(net, url, options, finish, limit);
    const body = reading?.(result);
    if (body && !body.closed) {
      body.once('close', limit.clear);
      kept = true;
    }
    return result;
  } finally {
    if (!kept) limit.clear();
  }
}

async function hops<R>(net: WalkContext, url: string, options: FetchOptions, finish: Finish<R>, limit: Deadline): Promise<R> {
  const maxRedirects = options.maxRedirects ?? 5;
  const method = options.method ?? 'GET';
  let sending: Sending = {
    method,
    body: options.body,
    signal: limit.signal,
    manual: options.redirect === 'manual',
  };
  const policy = {
    retries: options.retries ?? (method === 'GET' || method === 'HEAD' ? 2 : 0),
    retryRateLimited: options.retryRateLimited !== false,
    baseMs: net.retryBaseMs,
    timeout: limit,
  };
  const first = parseHttpUrl(url);
  const routing = { guard: options.guard, credentials: options.credentials === true, headers: { ...options.headers }, first };
  let route = await planRoute(net, first, routing);
  for (let hop = 0; ; hop++) {
    const outcome = await sendWithRetries(net, route, sending, policy, finish);
    if ('result' in outcome) return outcome.result;
    if (hop >= maxRedirects) throw new GleanerError('UPSTREAM_ERROR', `Too many redirects (more than ${maxRedirects}) from ${first.host}.`);
    const next = parseHttpUrl(new URL(outcome.redirect, route.url).toString());
    if (outcome.status !== 307 && outcome.status !== 308) sending = { ...sending, method: sending.method === 'HEAD' ? 'HEAD' : 'GET', body: undefined };
    route = await planRoute(net, next, { ...routing, previous: route });
  }
}
