/**
 * Job webhooks: on completion a job with a webhook URL POSTs { jobId, status, result, error } there.
 *
 * Signing: the body is signed with HMAC-SHA256 over `<timestamp>.<body>`, where timestamp is the
 * Unix time in seconds sent in `X-Gleaner-Timestamp`; the signature travels as
 * `X-Gleaner-Signature: sha256=<hex>`. Receivers recompute it with the shared secret and should
 * refuse timestamps older than a few minutes (replays). `X-Gleaner-Delivery` is one id per event,
 * the same across retries, so a receiver can drop duplicates.
 *
 * The secret is GLEANER_WEBHOOK_SECRET; when unset, one is generated on first use and kept in the
 * store under `webhook:secret` (read it there, or set the variable to choose it).
 *
 * Delivery: up to 5 attempts with exponential backoff (1 s, 2 s, 4 s, 8 s) on network errors, 408,
 * 429 and 5xx; other statuses end it. The webhook URL goes through the SSRF guard like any user URL,
 * and redirects are not followed.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { HttpClient } from '../net/http.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../log.js';
import { GleanerError } from '../errors.js';

const SECRET_KEY = 'webhook:secret';

export async function webhookSecret(store: Store, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  return store.update<string, string>(SECRET_KEY, (current) => {
    const secret = current ?? randomBytes(32).toString('hex');
    return { value: secret, result: secret };
  });
}

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface WebhookDelivery {
  http: HttpClient;
  secret: string;
  url: string;
  payload: unknown;
  log?: Logger;
  attempts?: number;
  baseDelayMs?: number;
  event?: string;
  /** The delivery id (one per event); a resumed delivery passes the one it started with. */
  id?: string;
  /** Attempts already made (by a process that stopped): the count and the backoff go on from there. */
  attemptsMade?: number;
  /** Called before each attempt with its index; false stops the delivery (e.g. another process took it). */
  beforeAttempt?: (attempt: number) => Promise<boolean>;
  /** Stops the delivery (the process is closing): false, and the attempt is made again by whoever resumes. */
  signal?: AbortSignal;
}

/** Delivers one event; true when the receiver answered 2xx. Never throws (but `beforeAttempt` may). */
export async function deliverWebhook(delivery: WebhookDelivery): Promise<boolean> {
  const body = JSON.stringify(delivery.payload);
  const id = delivery.id ?? randomUUID();
  const attempts = delivery.attempts ?? 5;
  for (let attempt = delivery.attemptsMade ?? 0; attempt < attempts; attempt++) {
    if (attempt > 0) {
      const waited = await delay((delivery.baseDelayMs ?? 1000) * 2 ** (attempt - 1), true, { signal: delivery.signal }).catch(() => false);
      if (!waited) return false;
    }
    if (delivery.signal?.aborted) return false;
    if (delivery.beforeAttempt && !(await delivery.beforeAttempt(attempt))) return false;
    const timestamp = Math.floor(Date.now() / 1000);
    try {
      const response = await delivery.http.fetch(delivery.url, {
        method: 'POST',
        body,
        signal: delivery.signal,
        retries: 0,
        redirect: 'manual',
        timeoutMs: 15_000,
        maxBytes: 64 * 1024,
        headers: {
          'content-type': 'application/json',
          'x-gleaner-event': delivery.event ?? 'job.finished',
          'x-gleaner-delivery': id,
          'x-gleaner-timestamp': String(timestamp),
          'x-gleaner-signature': signWebhook(delivery.secret, timestamp, body),
        },
      });
      if (response.status >= 200 && response.status < 300) return true;
      delivery.log?.warn({ status: response.status, attempt }, 'webhook receiver refused the delivery');
      if (!(response.status === 408 || response.status === 429 || response.status >= 500)) return false;
    } catch (error) {
      if (delivery.signal?.aborted) return false;
      delivery.log?.warn({ err: error, attempt }, 'webhook delivery failed');
      if (error instanceof GleanerError && error.code === 'URL_NOT_ALLOWED') return false;
    }
  }
  return false;
}
