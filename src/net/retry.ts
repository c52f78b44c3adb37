/**
 * One hop, tried until it answers: a transient failure or status (429, 5xx) is retried with backoff
 * (Retry-After honoured up to 30 s), a proxy out of reach is marked down and the hop goes on through
 * the pool's next exit. Each attempt holds the host's politeness slot until the decode stage is done
 * (fetch reads the whole body in it; stream returns at the headers).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { GleanerError } from '../errors.js';
import { describeFailure, isTransient, proxyUnreachable, toClientError } from './failures.js';
import { reexit, type Route, type RouteContext } from './route.js';
import { send, type SendContext, type Sending } from './send.js';
import type { HostLimits } from './host-limits.js';
import type { Finish } from './types.js';
import type { Deadline } from '../deadline.js';

/** Longest Retry-After honoured; a site asking for more gets its error back instead. */
const MAX_RETRY_AFTER_MS = 30_000;

export interface RetryPolicy {
  retries: number;
  /** False: a 429 is the answer. */
  retryRateLimited: boolean;
  /** First retry delay; doubles each time, with jitter. */
  baseMs: number;
  /** The walk's total deadline (tells a timeout from an abort). */
  timeout: Pick<Deadline, 'expired'>;
}

/** Delay before retry `attempt`, or null when the server asks for longer than we will wait. */
function retryDelay(attempt: number, retryAfter: string | undefined, baseMs: number): number | null {
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms)) return ms > MAX_RETRY_AFTER_MS ? null : Math.max(0, ms);
  }
  return baseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
}

async function backoff(ms: number, signal: AbortSignal, url: URL, failure: unknown): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    throw signal.reason instanceof Error && signal.reason.name === 'TimeoutError'
      ? new GleanerError('UPSTREAM_TIMEOUT', `${url.host} did not answer in time.`, { cause: failure })
      : new GleanerError('UPSTREAM_UNAVAILABLE', `The request to ${url.host} was aborted.`, { cause: failure });
  }
}

/** The hop's answer (for the decode stage's result) or the redirect it asks for. */
export async function sendWithRetries<R>(
  net: RouteContext & SendContext & { hosts: HostLimits },
  planned: Route,
  sending: Sending,
  policy: RetryPolicy,
  finish: Finish<R>,
): Promise<{ result: R } | { redirect: string; status: number }> {
  const { signal } = sending;
  const url = planned.url;
  let route = planned;
  let attempt = 0;
  let exitsSkipped = 0;
  for (let tries = 0; ; tries++) {
    if (tries > 0) route = reexit(net, route);
    const exit = route.exit;
    const outcome = await net.hosts.run(url.host, () => send(net, route, sending, finish)).catch((error: unknown) => ({ error }));
    if ('error' in outcome) {
      const failure = outcome.error;
      if (exit && !signal.aborted && proxyUnreachable(failure)) {
        // A dead exit is skipped (for a while, for every request), and this request goes on through the next one.
        if (net.egress.markDown(exit) && exitsSkipped < exit.poolSize - 1) {
          exitsSkipped++;
          continue;
        }
        throw new GleanerError(
          'UPSTREAM_UNAVAILABLE',
          `Could not reach ${url.host}: its proxy (${exit.label}) could not be reached (${describeFailure(failure)})${exit.poolSize > 1 ? ', nor any other proxy of its pool' : ''}.`,
        );
      }
      if (attempt < policy.retries && !signal.aborted && isTransient(failure)) {
        await backoff(retryDelay(attempt++, undefined, policy.baseMs)!, signal, url, failure);
        continue;
      }
      throw toClientError(url, failure, policy.timeout.expired, exit);
    }
    if ('retryStatus' in outcome) {
      if (attempt < policy.retries && !signal.aborted && (outcome.retryStatus !== 429 || policy.retryRateLimited)) {
        const wait = retryDelay(attempt, outcome.retryAfter, policy.baseMs);
        if (wait !== null) {
          await backoff(wait, signal, url, undefined);
          attempt++;
          continue;
        }
      }
      return { result: await outcome.finishRetryable() };
    }
    return outcome;
  }
}
