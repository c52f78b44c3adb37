/**
 * Jobs: a record in the store (queued -> processing -> completed | failed) plus an in-process runner
 * with bounded concurrency. Records survive restarts; on start, work a dead process left behind is
 * resumed (queued) or failed with a clear error (processing), so none stays processing forever.
 */
import { EventEmitter, once } from 'node:events';
import { randomUUID } from 'node:crypto';
import Bottleneck from 'bottleneck';
import type { Store } from '../store/store.js';
import type { Logger } from '../log.js';
import { GleanerError, toGleanerError, type ErrorCode } from '../errors.js';

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface JobProgress {
  done: number;
  total?: number;
  message?: string;
}

export interface JobRecord {
  jobId: string;
  operation: string;
  ownerId: string;
  status: JobStatus;
  input: unknown;
  result: unknown;
  error: { code: ErrorCode; message: string } | null;
  progress: JobProgress | null;
  /** Whatever the submitter needs to settle the job later (e.g. the credit reservation). */
  meta: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  finishedAt?: string;
}

/** Runs a job's work; the runner records what it returns or throws. */
export type JobExecutor = (job: JobRecord, report: (progress: JobProgress) => void) => Promise<unknown>;

/** Called for a job a dead process left in `processing`, after it was marked failed. */
export type AbandonedHandler = (job: JobRecord) => Promise<void>;

const jobKey = (id: string) => `job:${id}`;
const ACTIVE_KEY = 'jobs:active';
/** Finished jobs stay readable for a week. */
const FINISHED_TTL_MS = 7 * 24 * 3600 * 1000;

export class Jobs {
  private readonly events = new EventEmitter();
  private readonly runner: Bottleneck;
  private executor?: JobExecutor;
  private onAbandoned?: AbandonedHandler;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    concurrency: number,
  ) {
    this.runner = new Bottleneck({ maxConcurrent: concurrency });
    this.events.setMaxListeners(0);
  }

  /** Wires the work; then resumes or fails what a previous process left unfinished. */
  async start(executor: JobExecutor, onAbandoned: AbandonedHandler): Promise<void> {
    this.executor = executor;
    this.onAbandoned = onAbandoned;
    const active = (await this.store.get<string[]>(ACTIVE_KEY)) ?? [];
    for (const id of active) {
      const job = await this.store.get<JobRecord>(jobKey(id));
      if (!job) continue;
      if (job.status === 'queued') this.enqueue(job);
      else if (job.status === 'processing') {
        const failed = await this.finish(job.jobId, {
          status: 'failed',
          error: { code: 'INTERNAL_ERROR', message: 'The server stopped while this job was running; nothing was charged. Submit it again.' },
        });
        await this.onAbandoned?.(failed);
      }
    }
  }

  async submit(options: { operation: string; ownerId: string; input: unknown; meta?: Record<string, unknown> }): Promise<JobRecord> {
    const now = new Date().toISOString();
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
    };
    await this.store.set(jobKey(job.jobId), job);
    await this.store.update<string[], void>(ACTIVE_KEY, (ids = []) => ({ value: [...ids, job.jobId], result: undefined }));
    this.enqueue(job);
    return job;
  }

  /** The job if it exists and belongs to `ownerId`; NOT_FOUND otherwise, so ids of others leak nothing. */
  async get(jobId: string, ownerId: string): Promise<JobRecord> {
    const job = await this.store.get<JobRecord>(jobKey(jobId));
    if (!job || job.ownerId !== ownerId) throw new GleanerError('NOT_FOUND', `No job with id "${jobId}" for this key.`);
    return job;
  }

  /**
   * Waits until the job finishes or `timeoutMs` passes, reporting progress as it comes.
   * Returns the latest record either way.
   */
  async waitFor(jobId: string, ownerId: string, timeoutMs: number, onProgress?: (progress: JobProgress) => void): Promise<JobRecord> {
    const signal = AbortSignal.timeout(Math.max(0, timeoutMs));
    const progressListener = (progress: JobProgress) => onProgress?.(progress);
    this.events.on(`progress:${jobId}`, progressListener);
    try {
      const finished = once(this.events, `finished:${jobId}`, { signal });
      const current = await this.get(jobId, ownerId);
      if (current.status === 'completed' || current.status === 'failed') return current;
      try {
        const [job] = (await finished) as [JobRecord];
        return job;
      } catch {
        return this.get(jobId, ownerId);
      }
    } finally {
      this.events.off(`progress:${jobId}`, progressListener);
    }
  }

  /** Resolves when no job is queued or running in this process (for orderly shutdown and tests). */
  async idle(): Promise<void> {
    const counts = this.runner.counts();
    if (counts.RECEIVED + counts.QUEUED + counts.RUNNING + counts.EXECUTING === 0) return;
    await new Promise<void>((resolve) => this.runner.once('idle', () => resolve()));
  }

  /**
   * Stops taking work. Running jobs are not awaited: a stopping server may not outlive them, and the
   * next start fails (and refunds) whatever was left processing, and runs what was still queued.
   */
  async close(): Promise<void> {
    void this.runner.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  private enqueue(job: JobRecord): void {
    void this.runner.schedule(() => this.execute(job.jobId)).catch((error) => this.log.error({ err: error, jobId: job.jobId }, 'job runner failed'));
  }

  private async execute(jobId: string): Promise<void> {
    const job = await this.patch(jobId, { status: 'processing', startedAt: new Date().toISOString() });
    if (!job || !this.executor) return;
    let lastWrite = 0;
    const report = (progress: JobProgress) => {
      this.events.emit(`progress:${jobId}`, progress);
      // Progress is persisted at most every 250 ms so a fast crawl does not hammer the store.
      const now = Date.now();
      if (now - lastWrite >= 250 || progress.done === progress.total) {
        lastWrite = now;
        void this.patch(jobId, { progress }).catch(() => undefined);
      }
    };
    try {
      const result = await this.executor(job, report);
      await this.finish(jobId, { status: 'completed', result });
    } catch (error) {
      const failure = toGleanerError(error);
      if (failure.code === 'INTERNAL_ERROR') this.log.error({ err: error, jobId }, 'job failed with an internal error');
      await this.finish(jobId, { status: 'failed', error: { code: failure.code, message: failure.message } });
    }
  }

  private async finish(jobId: string, outcome: Pick<JobRecord, 'status'> & Partial<JobRecord>): Promise<JobRecord> {
    const job = await this.patch(jobId, { ...outcome, finishedAt: new Date().toISOString() }, FINISHED_TTL_MS);
    await this.store.update<string[], void>(ACTIVE_KEY, (ids = []) => ({ value: ids.filter((id) => id !== jobId), result: undefined }));
    if (job) this.events.emit(`finished:${jobId}`, job);
    return job as JobRecord;
  }

  /** Merges `meta` into the job's record (e.g. credits reserved while it runs, so a restart can refund them). */
  async updateMeta(jobId: string, meta: Record<string, unknown>): Promise<void> {
    await this.store.update<JobRecord, void>(jobKey(jobId), (job) => ({ value: job && { ...job, meta: { ...job.meta, ...meta } }, result: undefined }));
  }

  private async patch(jobId: string, changes: Partial<JobRecord>, ttlMs?: number): Promise<JobRecord | undefined> {
    return this.store.update<JobRecord, JobRecord | undefined>(jobKey(jobId), (job) => {
      if (!job) return { value: undefined, result: undefined };
      const updated = { ...job, ...changes, updatedAt: new Date().toISOString() };
      return { value: updated, result: updated };
    }).then(async (job) => {
      if (job && ttlMs) await this.store.set(jobKey(jobId), job, ttlMs);
      return job;
    });
  }
}

/** The spec's Job as callers see it. */
export function publicJob(job: JobRecord) {
  return {
    jobId: job.jobId,
    status: job.status,
    result: job.result ?? null,
    error: job.error,
    progress: job.progress,
    operation: job.operation,
    // Settled credits, written by the gate when the job ends (0 before, and for a failed job).
    creditsUsed: typeof job.meta.creditsUsed === 'number' ? job.meta.creditsUsed : 0,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}),
  };
}
