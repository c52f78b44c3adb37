/**
 * What the gate tells the metrics and the log: credits charged, upstream failures (by platform and
 * code) and each job's start and end. Kept beside the gate so gate.ts only calls it.
 */
import type { Logger } from '../log.js';
import type { GleanerError } from '../errors.js';
import type { JobRecord } from '../jobs/jobs.js';
import { creditsChargedTotal, jobDurationSeconds, jobsTotal, platformOf, upstreamFailuresTotal } from '../observability/metrics.js';

export function recordCharge(operation: string, credits: number): void {
  if (credits > 0) creditsChargedTotal.inc({ operation }, credits);
}

/** Counts and logs an UPSTREAM_* failure; hands the error back so the caller can rethrow it. */
export function recordFailure(log: Logger, operation: string, input: unknown, error: GleanerError, requestId: string): GleanerError {
  if (error.code.startsWith('UPSTREAM_')) {
    const platform = platformOf(operation, input);
    upstreamFailuresTotal.inc({ platform, code: error.code });
    log.warn({ requestId, operation, platform, code: error.code, message: error.message }, 'upstream failure');
  }
  return error;
}

export function recordJobEnd(log: Logger, job: JobRecord, status: 'completed' | 'failed', startedMs: number, error?: GleanerError): void {
  const seconds = (Date.now() - startedMs) / 1000;
  jobsTotal.inc({ operation: job.operation, status });
  jobDurationSeconds.observe({ operation: job.operation, status }, seconds);
  log.info({ jobId: job.jobId, operation: job.operation, accountId: job.ownerId, status, ms: Math.round(seconds * 1000), ...(error ? { code: error.code } : {}) }, 'job finished');
}
