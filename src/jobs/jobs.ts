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
import { abandonedRecord, endedRecord, isFinal, leaseLive, type JobOutcome, type JobProgress, type JobRecord } from './record.js';
import { JobRecords, type RecordChange } from './job-records.js';
import { boundResult, type ResultBounds } from './result-bounds.js';
import { ProgressWriter } from './progress-writer.js';
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
  /** How much of a result a job's record keeps (see result-bounds.ts). */
  resultBounds: ResultBounds;
}

/** The job was taken over by another process; its outcome here is dropped. */
export class LeaseLost extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} is no longer held by this process`);
  }
}

const CANCELLED = 'cancelled';
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
  private readonly records: JobRecords;
  private readonly resultBounds: ResultBounds;
  /** Jobs this process holds a lease on (queued here or running here). */
  private readonly held = new Set<string>();
  private readonly running = new Map<string, AbortController>();
  private executor?: JobExecutor;
  private release?: ReleaseHandler;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(
    store: Store,
    private readonly log: Logger,
    options: JobsOptions,
  ) {
    this.records = new JobRecords(store);
    this.resultBounds = options.resultBounds;
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
    await this.records.create(job);
    if (local) this.held.add(job.jobId);
    await this.dispatcher.dispatch(job.jobId);
    return job;
  }

  /** The job if it exists and belongs to `ownerId`; NOT_FOUND otherwise, so ids of others leak nothing. */
  get(jobId: string, ownerId: string): Promise<JobRecord> {
    return this.records.get(jobId, ownerId);
  }

  /** The raw record, whoever owns it (for internal use: webhooks, tests). */
  record(jobId: string): Promise<JobRecord | undefined> {
    return this.records.record(jobId);
  }

  /** The owner's jobs, newest first; `cursor` is where the previous page stopped. */
  list(ownerId: string, options: { limit: number; cursor?: number }): Promise<{ jobs: JobRecord[]; nextCursor: number | null }> {
    return this.records.list(ownerId, options);
  }

  /**
   * Cancels a job: a queued one at once (its reservation is returned), a running one at its next
   * page or chunk (its work settles what was done). Waits up to `waitMs` for the job to stop and
   * returns the latest record.
   */
  async cancel(jobId: string, ownerId: string, waitMs: number): Promise<JobRecord> {
    await this.get(jobId, ownerId);
    const outcome = await this.records.update<{ job?: JobRecord; cancelledQueued: boolean }>(jobId, (job) => {
      if (!job || isFinal(job.status)) return { value: job, result: { job, cancelledQueued: false } };
      // A queued job only starts through an atomic queued -> processing step, so it can be ended here.
      if (job.status === 'queued') {
        const ended = endedRecord(job, { status: 'cancelled', result: null, error: null });
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
  updateMeta(jobId: string, meta: Record<string, unknown>): Promise<void> {
    return this.records.updateMeta(jobId, meta);
  }

  /** Atomic change of a record by a caller that knows what it does (webhook state). */
  change<R>(jobId: string, change: RecordChange<R>): Promise<R> {
    return this.records.update(jobId, change);
  }

  /** Gives a finished record its expiry again (an update of the record, e.g. its webhook state, drops it). */
  keepFinished(jobId: string): Promise<JobRecord | undefined> {
    return this.records.keepFinished(jobId);
  }

  newLease() {
    return { owner: this.processId, expiresAt: Date.now() + this.leaseMs };
  }

  /** Works one job: claims it (queued -> processing), runs it, records how it ended. */
  private async run(jobId: string): Promise<void> {
    if (this.closed || !this.executor) return;
    const claim = await this.records.update<{ job?: JobRecord; abandoned?: JobRecord }>(jobId, (job) => {
      if (!job) return { value: undefined, result: {} };
      // Another process's lease: not ours to touch (the job is queued or running there).
      if (leaseLive(job.lease) && job.lease.owner !== this.processId) return { value: job, result: {} };
      if (job.status === 'processing') {
        // Handed back by BullMQ after its worker died: the work is lost, the credits go back.
        const abandoned = abandonedRecord(job);
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
    const progress = new ProgressWriter(this.records, jobId, (reported) => this.events.emit(`progress:${jobId}`, reported));
    const cancelled = () => controller.signal.aborted && controller.signal.reason === CANCELLED;
    try {
      const result = await this.executor(job, { report: progress.report, signal: controller.signal, cancelled, confirm: () => this.renew(jobId) });
      await this.finish(jobId, cancelled() ? { status: 'cancelled', result, error: null } : { status: 'completed', result, error: null }, progress.latest);
    } catch (error) {
      if (error instanceof LeaseLost) this.log.warn({ jobId }, 'job taken over by another process; its outcome here is dropped');
      else if (cancelled()) await this.finish(jobId, { status: 'cancelled', result: null, error: null }, progress.latest);
      else {
        const failure = toGleanerError(error);
        if (failure.code === 'INTERNAL_ERROR') this.log.error({ err: error, jobId }, 'job failed with an internal error');
        await this.finish(jobId, { status: 'failed', result: null, error: { code: failure.code, message: failure.message } }, progress.latest);
      }
    } finally {
      progress.stop();
      this.running.delete(jobId);
      this.held.delete(jobId);
      this.events.emit('ran');
    }
  }

  /** Records the end of a job this process holds (its result within the bounds); nothing if it lost the job meanwhile. */
  private async finish(jobId: string, outcome: JobOutcome, progress: JobProgress | undefined): Promise<void> {
    const bounded = boundResult(outcome.result, this.resultBounds);
    if (bounded.cut > 0) this.log.info({ jobId, texts: bounded.cut }, 'job result cut to its bounds');
    const job = await this.records.update<JobRecord | undefined>(jobId, (current) => {
      if (!current || isFinal(current.status) || current.lease?.owner !== this.processId) return { value: current, result: undefined };
      const ended = endedRecord(progress ? { ...current, progress } : current, { ...outcome, result: bounded.result });
      return { value: ended, result: ended };
    });
    if (!job) {
      this.log.warn({ jobId }, 'job ended here after another process took it over; outcome dropped');
      return;
    }
    await this.afterEnd(job);
  }

  private async afterEnd(job: JobRecord): Promise<void> {
    const latest = (await this.records.keepFinished(job.jobId)) ?? job;
    await this.records.dropActive(job.jobId);
    this.held.delete(job.jobId);
    this.events.emit(`finished:${job.jobId}`, latest);
    this.events.emit('ended', latest);
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
    const state = await this.records.update<'held' | 'lost' | 'cancel'>(jobId, (job) => {
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
    for (const id of await this.records.active()) {
      const current = await this.records.record(id);
      if (!current) {
        await this.records.dropActive(id);
        continue;
      }
      if (isFinal(current.status) || leaseLive(current.lease)) continue;
      // On BullMQ a queued job waits in Redis, not in a process: it needs no taking over.
      if (current.status === 'queued' && !this.dispatcher.holdsQueued) continue;
      if (current.status === 'queued' && !this.working) continue;
      const taken = await this.records.update<JobRecord | undefined>(id, (job) => {
        if (!job || isFinal(job.status) || leaseLive(job.lease)) return { value: job, result: undefined };
        const next = job.status === 'queued' ? { ...job, lease: this.newLease() } : abandonedRecord(job);
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
