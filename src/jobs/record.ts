/** The job record: what the store keeps for a job and what callers see of it. */
import type { ErrorCode } from '../errors.js';

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

export const FINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'cancelled'];

export function isFinal(status: JobStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

export interface JobProgress {
  done: number;
  total?: number;
  message?: string;
}

/** Who holds a job, and until when: the holder renews it while alive; an expired lease may be taken over. */
export interface Lease {
  /** The holding process (see processIdentity). */
  owner: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** A webhook's delivery state, kept with the job so a restart resumes the same delivery. */
export interface WebhookState {
  url: string;
  /** One id per event, the same across retries and restarts. */
  deliveryId: string;
  /** Attempts made so far, by any process. */
  attempts: number;
  state: 'pending' | 'delivered' | 'abandoned';
  /** The process delivering it now. */
  lease?: Lease | null;
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
  /** Held while a process has the job queued in memory or running; absent when nobody holds it. */
  lease?: Lease | null;
  /** The caller asked to cancel; the holder stops at the next page or chunk. */
  cancelRequested?: boolean;
  webhook?: WebhookState;
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
    ...(job.cancelRequested && !isFinal(job.status) ? { cancelRequested: true } : {}),
  };
}

export function leaseLive(lease: Lease | null | undefined, now = Date.now()): lease is Lease {
  return Boolean(lease && lease.expiresAt > now);
}

/** How a job ended: a status with its result or its error. */
export interface JobOutcome {
  status: JobStatus;
  result: unknown;
  error: JobRecord['error'];
}

/** The record of an ended job: a result only with success (or the part done before a cancel), an error only with failure. */
export function endedRecord(job: JobRecord, outcome: JobOutcome): JobRecord {
  const now = new Date().toISOString();
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

/** The record of a job whose process stopped under it: cancelled if that was asked, failed (and refunded) otherwise. */
export function abandonedRecord(job: JobRecord): JobRecord {
  return job.cancelRequested
    ? endedRecord(job, { status: 'cancelled', result: null, error: null })
    : endedRecord(job, {
        status: 'failed',
        result: null,
        error: { code: 'INTERNAL_ERROR', message: 'The process running this job stopped before it finished; its reserved credits were refunded. Submit it again.' },
      });
}
