/**
 * Job webhooks that survive restarts and go out once: a job's webhook state (delivery id, attempts
 * made, delivered or given up) lives in its record, and the process delivering it holds a lease on
 * it there. Whoever ends a job delivers its webhook; a process that finds a pending webhook whose
 * deliverer died (lease expired) takes it over with the same delivery id and attempt count, so a
 * receiver can drop duplicates and the retries do not start again from one.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store.js';
import type { HttpClient } from '../net/http.js';
import type { Logger } from '../log.js';
import { deliverWebhook } from './webhook.js';
import { isFinal, leaseLive, type JobRecord, type Lease, type WebhookState } from './record.js';
import type { Jobs } from './jobs.js';

/** Ids of the jobs whose webhook is not delivered (or given up) yet. */
const PENDING_WEBHOOKS = 'webhooks:pending';
const MAX_ATTEMPTS = 5;
/** A deliverer's hold covers one attempt (15 s timeout) and the longest backoff (8 s) besides the job lease. */
const DELIVERY_LEASE_EXTRA_MS = 30_000;

/** Gives a job a webhook (once; a resumed job keeps the state it has). */
export async function registerWebhook(jobs: Jobs, store: Store, jobId: string, url: string): Promise<void> {
  const added = await jobs.change(jobId, (job) => {
    if (!job || job.webhook) return { value: job, result: false };
    const webhook: WebhookState = { url, deliveryId: `dlv_${randomUUID().replace(/-/g, '')}`, attempts: 0, state: 'pending', lease: null };
    return { value: { ...job, webhook }, result: true };
  });
  if (added) await store.update<string[], void>(PENDING_WEBHOOKS, (ids = []) => ({ value: ids.includes(jobId) ? ids : [...ids, jobId], result: undefined }));
}

export interface CourierOptions {
  jobs: Jobs;
  store: Store;
  http: HttpClient;
  log: Logger;
  secret: () => Promise<string>;
  leaseMs: number;
  baseDelayMs?: number;
}

export class WebhookCourier {
  private readonly delivering = new Set<string>();
  /** Deliveries under way, settled when each ends (close waits for them). */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private timer?: NodeJS.Timeout;

  constructor(private readonly options: CourierOptions) {}

  /** Delivers the webhook of every job this process ends, and sweeps for webhooks left behind. */
  async start(): Promise<void> {
    this.options.jobs.onEnded((job) => {
      if (job.webhook?.state === 'pending') this.track(job.jobId);
    });
    this.timer = setInterval(() => void this.sweep(), Math.max(this.options.leaseMs, 1_000));
    this.timer.unref();
    await this.sweep();
  }

  /**
   * Stops delivering and waits for the deliveries under way to stop: the store closes after this. A delivery
   * cut short stays pending, with its attempt count, for the next process.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.closing.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private async sweep(): Promise<void> {
    const ids = (await this.options.store.get<string[]>(PENDING_WEBHOOKS).catch(() => undefined)) ?? [];
    for (const id of ids) this.track(id);
  }

  private track(jobId: string): void {
    if (this.closing.signal.aborted) return;
    const delivery = this.deliver(jobId);
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  private lease(): Lease {
    return { owner: this.options.jobs.processId, expiresAt: Date.now() + this.options.leaseMs + DELIVERY_LEASE_EXTRA_MS };
  }

  private async deliver(jobId: string): Promise<void> {
    if (this.delivering.has(jobId)) return;
    this.delivering.add(jobId);
    const { jobs, log } = this.options;
    const me = jobs.processId;
    try {
      const claim = await jobs.change<{ job?: JobRecord; settled: boolean }>(jobId, (job) => {
        if (!job || !job.webhook || job.webhook.state !== 'pending') return { value: job, result: { settled: true } };
        if (!isFinal(job.status) || (leaseLive(job.webhook.lease) && job.webhook.lease.owner !== me)) return { value: job, result: { settled: false } };
        const next = { ...job, webhook: { ...job.webhook, lease: this.lease() } };
        return { value: next, result: { job: next, settled: false } };
      });
      if (claim.settled) return await this.unlist(jobId);
      const job = claim.job;
      if (!job?.webhook) return;
      const { webhook } = job;
      const delivered = await deliverWebhook({
        http: this.options.http,
        secret: await this.options.secret(),
        url: webhook.url,
        log,
        id: webhook.deliveryId,
        attempts: MAX_ATTEMPTS,
        attemptsMade: webhook.attempts,
        baseDelayMs: this.options.baseDelayMs,
        event: `${job.operation === 'web_crawl' ? 'crawl' : 'job'}.${job.status}`,
        payload: { jobId, status: job.status, result: job.result ?? null, error: job.error },
        signal: this.closing.signal,
        // Each attempt is counted in the record before it is made, so a restart goes on from the right count.
        beforeAttempt: (attempt) =>
          jobs.change(jobId, (current) => {
            if (!current?.webhook || current.webhook.state !== 'pending' || current.webhook.lease?.owner !== me) return { value: current, result: false };
            return { value: { ...current, webhook: { ...current.webhook, attempts: attempt + 1, lease: this.lease() } }, result: true };
          }),
      });
      const stopped = !delivered && this.closing.signal.aborted;
      const ended = await jobs.change(jobId, (current) => {
        if (!current?.webhook || current.webhook.state !== 'pending' || current.webhook.lease?.owner !== me) return { value: current, result: false };
        // Cut short by a closing process: left pending, and free for the next process to take at once.
        if (stopped) return { value: { ...current, webhook: { ...current.webhook, lease: null } }, result: false };
        return { value: { ...current, webhook: { ...current.webhook, state: delivered ? ('delivered' as const) : ('abandoned' as const), lease: null } }, result: true };
      });
      if (ended) {
        await jobs.keepFinished(jobId);
        await this.unlist(jobId);
      }
    } catch (error) {
      log.warn({ err: error, jobId }, 'webhook not delivered');
    } finally {
      this.delivering.delete(jobId);
    }
  }

  private async unlist(jobId: string): Promise<void> {
    await this.options.store.update<string[], void>(PENDING_WEBHOOKS, (ids = []) => ({ value: ids.filter((id) => id !== jobId), result: undefined }));
  }
}
