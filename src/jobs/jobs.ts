/**
 * Jobs: a record in the store (queued -> processing -> completed | failed | cancelled) plus a runner.
 *
 * Ownership: a process holds the jobs it has queued in memory or is running through a lease in the
 * record (its id and an expiry it renews every few seconds). Any number of processes may share
 * the store: each one only takes over a job whose lease expired, resuming it if it was queued and
 * failing it with its reserved credits refunded if it was running. Every transition is one atomic
 * update of the record, so two processes never both run, finish or refund one job.
 */
import os from 'node:os';
import { EventEmitter, once } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store.js';
import type { Logger } from '../log.js';
import { GleanerError, toGleanerError } from '../errors.js';
import { deadline as within } from '../deadline.js';
import { isFinal, leaseLive, type JobProgress, type JobRecord, type JobStatus } from './record.js';
import { LocalDispatcher, type Dispatcher } from './dispatch.js';

export { publicJob, isFinal, type JobProgress, type JobRecord, type JobStatus, type Lease, type WebhookState } from './record.js';

/** What the work of one job gets besides its record. */
export interface JobRunContext {
  report: (progress: JobProgress) => void;
  /** Aborted when the job is cancelled or this process lost it. */
  signal: AbortSignal;
  /** Whether the job was cancelled (rather than lost): its end is then recorded as cancelled. */
  cancelled: () => boolean;
  /**
   * Renews the lease and says whether this process still holds the job. Settle credits only after
   * it answers true: a job taken over was refunded by the process that took it.
   */
  confirm: () => Promise<boolean>;
}

/** Runs a job's work; the runner records what it returns or throws. */
export type JobExecutor = (job: JobRecord, context: JobRunContext) => Promise<unknown>;

/** Gives back what a job reserved when it ends without its work settling it (abandoned, cancelled while queued). */
export type ReleaseHandler = (job: JobRecord) => Promise<void>;

export interface JobsOptions {
  concurrency: number;
  /** How long a lease lasts without renewal. */
  leaseMs: number;
  /** Dispatches through this instead of the in-process runner (BullMQ on Redis). */
  dispatcher?: Dispatcher;
  /** False: this process enqueues but never works jobs (`serve --no-worker`). */
  work?: boolean;
}

/** The job was taken over by another process; its outcome here is dropped. */
export class LeaseLost extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer held by this process`);
  }
}

const CANCELLED = 'cancelled';
const jobKey = (id: string) => `job:${id}`;
const ownerKey = (ownerId: string) => `jobs:of:${ownerId}`;
const ACTIVE_KEY = 'jobs:active';
/** Finished jobs stay readable for a week. */
const FINISHED_TTL_MS = 7 * 24 * 3600 * 1000;
/** Jobs listed per key (newest kept). */
const OWNER_INDEX_CAP = 500;
/** How often a waiter reads a record another process may be changing. */
const POLL_MS = 250;

/** This process among all that share the store. */
export function processIdentity(): string {
  return `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export class Jobs {
  readonly processId = processIdentity();
  private readonly events = new EventEmitter();
  private readonly dispatcher: Dispatcher;
  private readonly leaseMs: number;
  private readonly working: boolean;
  /** Jobs this process holds a lease on (queued here or running here). */
  private readonly held = new Set<string>();
  private readonly running = new Map<string, AbortController>();
  private executor?: JobExecutor;
  private release?: ReleaseHandler;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    options: JobsOptions,
  ) {
    this.leaseMs = options.leaseMs;
    this.working = options.work ?? true;
    this.dispatcher = options.dispatcher ?? new LocalDispatcher(options.concurrency, log);
    this.events.setMaxListeners(0);
  }

  /** Wires the work, starts renewing leases, and takes over what dead processes left. */
  async start(executor: JobExecutor, release: ReleaseHandler): Promise<void> {
    this.executor = executor;
    this.release = release;
    if (this.working) await this.dispatcher.start((jobId) => this.run(jobId));
    // Renewal often enough that a cancel from another process is seen within a couple of seconds.
    const beat = Math.max(50, Math.min(this.leaseMs / 3, 2_000));
    this.timers.push(setInterval(() => void this.heartbeat().catch((error) => this.log.warn({ err: error }, 'job lease renewal failed')), beat));
    this.timers.push(setInterval(() => void this.recover().catch((error) => this.log.warn({ err: error }, 'job recovery failed')), this.leaseMs));
    for (const timer of this.timers) timer.unref();
    await this.recover();
  }

  async submit(options: { operation: string; ownerId: string; input: unknown; meta?: Record<string, unknown> }): Promise<JobRecord> {
    const now = new Date().toISOString();
    const local = this.dispatcher.holdsQueued;
    const job: JobRecord = {
      jobId: `job_${randomUUID().replace(/-/g, '')}`,
      operation: options.operation,
      ownerId: options.ownerId,
      status: 'queued',
      input: options.input,
      result: null,
      error: null,
      progress: null,
      meta: options.meta ?? {},
      createdAt: now,
      updatedAt: now,
      lease: local ? this.newLease() : null,
    };
    await this.store.set(jobKey(job.jobId), job);
    if (local) this.held.add(job.jobId);
    await this.store.update<string[], void>(ACTIVE_KEY, (ids = []) => ({ value: [...ids, job.jobId], result: undefined }));
    await this.store.update<string[], void>(ownerKey(job.ownerId), (ids = []) => ({ value: [...ids, job.jobId].slice(-OWNER_INDEX_CAP), result: undefined }));
    await this.dispatcher.dispatch(job.jobId);
    return job;
  }

  /** The job if it exists and belongs to `ownerId`; NOT_FOUND otherwise, so ids of others leak nothing. */
  async get(jobId: string, ownerId: string): Promise<JobRecord> {
    const job = await this.store.get<JobRecord>(jobKey(jobId));
    if (!job || job.ownerId !== ownerId) throw new GleanerError('NOT_FOUND', `No job with id "${jobId}" for this key.`);
    return job;
  }

  /** The raw record, whoever owns it (for internal use: webhooks, tests). */
  async record(jobId: string): Promise<JobRecord | undefined> {
    return this.store.get<JobRecord>(jobKey(jobId));
  }

  /** The owner's jobs, newest first; `cursor` is where the previous page stopped. */
  async list(ownerId: string, options: { limit: number; cursor?: number }): Promise<{ jobs: JobRecord[]; nextCursor: number | null }> {
    const ids = ((await this.store.get<string[]>(ownerKey(ownerId))) ?? []).slice().reverse();
    const start = options.cursor ?? 0;
    const jobs: JobRecord[] = [];
    let index = start;
    for (; index < ids.length && jobs.length < options.limit; index++) {
      const job = await this.store.get<JobRecord>(jobKey(ids[index]));
      if (job && job.ownerId === ownerId) jobs.push(job);
    }
    return { jobs, nextCursor: index < ids.length ? index : null };
  }

  /**
   * Cancels a job: a queued one at once (its reservation is returned), a running one at its next
   * page or chunk (its work settles what was done). Waits up to `waitMs` for the job to stop and
   * returns the latest record.
   */
  async cancel(jobId: string, ownerId: string, waitMs: number): Promise<JobRecord> {
    await this.get(jobId, ownerId);
    const outcome = await this.store.update<JobRecord, { job?: JobRecord; cancelledQueued: boolean }>(jobKey(jobId), (job) => {
      if (!job || isFinal(job.status)) return { value: job, result: { job, cancelledQueued: false } };
      // A queued job only starts through an atomic queued -> processing step, so it can be ended here.
      if (job.status === 'queued') {
        const ended = this.ended(job, { status: 'cancelled', result: null, error: null });
        return { value: ended, result: { job: ended, cancelledQueued: true } };
      }
      const asked = { ...job, cancelRequested: true, updatedAt: new Date().toISOString() };
      return { value: asked, result: { job: asked, cancelledQueued: false } };
    });
    if (outcome.cancelledQueued && outcome.job) {
      await this.dispatcher.withdraw(jobId);
      await this.endReleased(outcome.job);
      return outcome.job;
    }
    this.running.get(jobId)?.abort(CANCELLED);
    return this.waitFor(jobId, ownerId, waitMs);
  }

  /**
   * Waits until the job ends or `timeoutMs` passes, reporting progress as it comes (from this
   * process at once, from another through the record). Returns the latest record either way.
   */
  async waitFor(jobId: string, ownerId: string, timeoutMs: number, onProgress?: (progress: JobProgress) => void, signal?: AbortSignal): Promise<JobRecord> {
    const deadline = Date.now() + Math.max(0, timeoutMs);
    const progressListener = (progress: JobProgress) => onProgress?.(progress);
    this.events.on(`progress:${jobId}`, progressListener);
    let seen = '';
    try {
      for (;;) {
        const job = await this.get(jobId, ownerId);
        if (isFinal(job.status)) return job;
        if (!this.running.has(jobId) && job.progress && JSON.stringify(job.progress) !== seen) {
          seen = JSON.stringify(job.progress);
          onProgress?.(job.progress);
        }
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return job;
        const wake = within(Math.min(left, POLL_MS), signal);
        await once(this.events, `finished:${jobId}`, { signal: wake.signal }).catch(() => undefined).finally(wake.clear);
      }
    } finally {
      this.events.off(`progress:${jobId}`, progressListener);
    }
  }

  /** Resolves when this process runs no job (for orderly shutdown and tests). */
  async idle(): Promise<void> {
    await this.dispatcher.idle();
    while (this.running.size > 0) await once(this.events, 'ran');
  }

  /** Called with every job this process ends. */
  onEnded(listener: (job: JobRecord) => void): void {
    this.events.on('ended', listener);
  }

  /**
   * Stops taking work. Running jobs are not awaited: a stopping process may not outlive them; their
   * leases expire and another process fails (and refunds) what was running and runs what was queued.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.dispatcher.close();
  }

  /** Merges `meta` into the job's record (e.g. credits reserved while it runs, so a takeover can refund them). */
  async updateMeta(jobId: string, meta: Record<string, unknown>): Promise<void> {
    await this.store.update<JobRecord, void>(jobKey(jobId), (job) => ({ value: job && { ...job, meta: { ...job.meta, ...meta } }, result: undefined }));
  }

  /** Atomic change of a record by a caller that knows what it does (webhook state). */
  async change<R>(jobId: string, change: (job: JobRecord | undefined) => { value: JobRecord | undefined; result: R }): Promise<R> {
    return this.store.update<JobRecord, R>(jobKey(jobId), change);
  }

  newLease() {
    return { owner: this.processId, expiresAt: Date.now() + this.leaseMs };
  }

  /** Works one job: claims it (queued -> processing), runs it, records how it ended. */
  private async run(jobId: string): Promise<void> {
    if (this.closed || !this.executor) return;
    const claim = await this.store.update<JobRecord, { job?: JobRecord; abandoned?: JobRecord }>(jobKey(jobId), (job) => {
      if (!job) return { value: undefined, result: {} };
      // Another process's lease: not ours to touch (the job is queued or running there).
      if (leaseLive(job.lease) && job.lease.owner !== this.processId) return { value: job, result: {} };
      if (job.status === 'processing') {
        // Handed back by BullMQ after its worker died: the work is lost, the credits go back.
        const abandoned = this.abandonedRecord(job);
        return { value: abandoned, result: { abandoned } };
      }
      if (job.status !== 'queued') return { value: job, result: {} };
      const started = { ...job, status: 'processing' as const, lease: this.newLease(), startedAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
      return { value: started, result: { job: started } };
    });
    if (claim.abandoned) await this.endAbandoned(claim.abandoned);
    const job = claim.job;
    if (!job) {
      this.held.delete(jobId);
      return;
    }
    this.held.add(jobId);
    const controller = new AbortController();
    this.running.set(jobId, controller);
    if (job.cancelRequested) controller.abort(CANCELLED);
    let lastWrite = 0;
    let latest: JobProgress | undefined;
    let trailing: NodeJS.Timeout | undefined;
    const persist = () => {
      trailing = undefined;
      lastWrite = Date.now();
      const progress = latest;
      void this.store
        .update<JobRecord, void>(jobKey(jobId), (current) => ({ value: current && !isFinal(current.status) ? { ...current, progress: progress ?? null, updatedAt: new Date().toISOString() } : current, result: undefined }))
        .catch(() => undefined);
    };
    const report = (progress: JobProgress) => {
      this.events.emit(`progress:${jobId}`, progress);
      latest = progress;
      // Persisted at most every 250 ms so a fast crawl does not hammer the store; the last report always lands.
      const wait = 250 - (Date.now() - lastWrite);
      if (wait <= 0) persist();
      else trailing ??= setTimeout(persist, wait);
    };
    const cancelled = () => controller.signal.aborted && controller.signal.reason === CANCELLED;
    try {
      const result = await this.executor(job, { report, signal: controller.signal, cancelled, confirm: () => this.renew(jobId) });
      await this.finish(jobId, cancelled() ? { status: 'cancelled', result, error: null } : { status: 'completed', result, error: null }, latest);
    } catch (error) {
      if (error instanceof LeaseLost) this.log.warn({ jobId }, 'job taken over by another process; its outcome here is dropped');
      else if (cancelled()) await this.finish(jobId, { status: 'cancelled', result: null, error: null }, latest);
      else {
        const failure = toGleanerError(error);
        if (failure.code === 'INTERNAL_ERROR') this.log.error({ err: error, jobId }, 'job failed with an internal error');
        await this.finish(jobId, { status: 'failed', result: null, error: { code: failure.code, message: failure.message } }, latest);
      }
    } finally {
      clearTimeout(trailing);
      this.running.delete(jobId);
      this.held.delete(jobId);
      this.events.emit('ran');
    }
  }

  /** Records the end of a job this process holds; nothing if it lost the job meanwhile. */
  private async finish(jobId: string, outcome: { status: JobStatus; result: unknown; error: JobRecord['error'] }, progress: JobProgress | undefined): Promise<void> {
    const job = await this.store.update<JobRecord, JobRecord | undefined>(jobKey(jobId), (current) => {
      if (!current || isFinal(current.status) || current.lease?.owner !== this.processId) return { value: current, result: undefined };
      const ended = this.ended(progress ? { ...current, progress } : current, outcome);
      return { value: ended, result: ended };
    });
    if (!job) {
      this.log.warn({ jobId }, 'job ended here after another process took it over; outcome dropped');
      return;
    }
    await this.afterEnd(job);
  }

  private ended(job: JobRecord, outcome: { status: JobStatus; result: unknown; error: JobRecord['error'] }): JobRecord {
    const now = new Date().toISOString();
    // One consistent ending: a result only with success (or the part done before a cancel), an error only with failure.
    return {
      ...job,
      status: outcome.status,
      result: outcome.status === 'failed' ? null : (outcome.result ?? null),
      error: outcome.status === 'failed' ? outcome.error : null,
      lease: null,
      cancelRequested: job.cancelRequested || outcome.status === 'cancelled' || undefined,
      updatedAt: now,
      finishedAt: now,
    };
  }

  /** Gives a finished record its expiry again (an update of the record, e.g. its webhook state, drops it). */
  async keepFinished(jobId: string): Promise<JobRecord | undefined> {
    const latest = await this.store.get<JobRecord>(jobKey(jobId));
    if (latest && isFinal(latest.status)) await this.store.set(jobKey(jobId), latest, FINISHED_TTL_MS);
    return latest;
  }

  private async afterEnd(job: JobRecord): Promise<void> {
    const latest = (await this.keepFinished(job.jobId)) ?? job;
    await this.store.update<string[], void>(ACTIVE_KEY, (ids = []) => ({ value: ids.filter((id) => id !== job.jobId), result: undefined }));
    this.held.delete(job.jobId);
    this.events.emit(`finished:${job.jobId}`, latest);
    this.events.emit('ended', latest);
  }

  private abandonedRecord(job: JobRecord): JobRecord {
    return job.cancelRequested
      ? this.ended(job, { status: 'cancelled', result: null, error: null })
      : this.ended(job, {
          status: 'failed',
          result: null,
          error: { code: 'INTERNAL_ERROR', message: 'The process running this job stopped before it finished; its reserved credits were refunded. Submit it again.' },
        });
  }

  private async endAbandoned(job: JobRecord): Promise<void> {
    this.log.warn({ jobId: job.jobId, previousOwner: job.lease?.owner }, 'took over a job whose process stopped: ended and refunded');
    await this.endReleased(job);
  }

  /**
   * Refunds what an ended job held, then announces its end: whoever waits for the job (waitFor, job_status)
   * then reads the balance its message promises ("its reserved credits were refunded").
   */
  private async endReleased(job: JobRecord): Promise<void> {
    try {
      await this.release?.(job);
    } finally {
      await this.afterEnd(job);
    }
  }

  /** Renews this process's lease on one job; false when the job is no longer its to run. */
  private async renew(jobId: string): Promise<boolean> {
    const state = await this.store.update<JobRecord, 'held' | 'lost' | 'cancel'>(jobKey(jobId), (job) => {
      if (!job || isFinal(job.status) || job.lease?.owner !== this.processId) return { value: job, result: 'lost' };
      return { value: { ...job, lease: this.newLease() }, result: job.cancelRequested ? 'cancel' : 'held' };
    });
    const controller = this.running.get(jobId);
    if (state === 'lost') {
      this.held.delete(jobId);
      controller?.abort(new LeaseLost(jobId));
      return false;
    }
    if (state === 'cancel') controller?.abort(CANCELLED);
    return true;
  }

  private async heartbeat(): Promise<void> {
    await Promise.all([...this.held].map((jobId) => this.renew(jobId)));
  }

  /** Takes over the active jobs whose lease expired: runs what was queued, ends and refunds what was running. */
  private async recover(): Promise<void> {
    if (this.closed) return;
    const active = (await this.store.get<string[]>(ACTIVE_KEY)) ?? [];
    for (const id of active) {
      const current = await this.store.get<JobRecord>(jobKey(id));
      if (!current) {
        await this.store.update<string[], void>(ACTIVE_KEY, (ids = []) => ({ value: ids.filter((x) => x !== id), result: undefined }));
        continue;
      }
      if (isFinal(current.status) || leaseLive(current.lease)) continue;
      // On BullMQ a queued job waits in Redis, not in a process: it needs no taking over.
      if (current.status === 'queued' && !this.dispatcher.holdsQueued) continue;
      if (current.status === 'queued' && !this.working) continue;
      const taken = await this.store.update<JobRecord, JobRecord | undefined>(jobKey(id), (job) => {
        if (!job || isFinal(job.status) || leaseLive(job.lease)) return { value: job, result: undefined };
        const next = job.status === 'queued' ? { ...job, lease: this.newLease() } : this.abandonedRecord(job);
        return { value: next, result: next };
      });
      if (!taken) continue;
      if (taken.status === 'queued') {
        this.held.add(id);
        await this.dispatcher.dispatch(id);
      } else await this.endAbandoned(taken);
    }
  }
}
