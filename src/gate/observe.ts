/**
 * What the gate tells the metrics and the log: credits charged, upstream failures (by platform and
 * code) and each job's start and end. Kept beside the gate so gate.ts only calls it.
 */
import type { Logger } from '../log.js';
import type { GleanerError } from '../errors.js';
import type { JobRecord } from '../jobs/jobs.js';
import type { UsageEvent, UsageLog } from '../accounts/usage.js';
import { creditsChargedTotal, jobDurationSeconds, jobsTotal, upstreamFailuresTotal } from '../observability/metrics.js';
import { PLATFORMS, platformOfHost } from '../net/egress.js';

export function recordCharge(operation: string, credits: number): void {
  if (credits > 0) creditsChargedTotal.inc({ operation }, credits);
}

/** Notes a call or a job's end in the key's usage log (accounts/usage.ts): the only writer of it. */
export function recordUsage(usage: UsageLog, event: UsageEvent): void {
  usage.record(event);
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

/** Counts and logs the end of a job, once, with how it ended (a cancelled one as `cancelled`, whatever it returned). */
export function recordJobEnd(log: Logger, job: JobRecord, status: 'completed' | 'failed' | 'cancelled', startedMs: number, error?: { code: string }): void {
  const seconds = (Date.now() - startedMs) / 1000;
  jobsTotal.inc({ operation: job.operation, status });
  jobDurationSeconds.observe({ operation: job.operation, status }, seconds);
  log.info({ jobId: job.jobId, operation: job.operation, accountId: job.ownerId, status, ms: Math.round(seconds * 1000), ...(error ? { code: error.code } : {}) }, 'job finished');
}

/** The platform an operation worked on: from the URL it was given, else from its name. */
function platformOf(operation: string, input: unknown): string {
  const url = input && typeof input === 'object' ? (input as Record<string, unknown>).url : undefined;
  if (typeof url === 'string' && URL.canParse(url)) {
    const platform = platformOfHost(new URL(url).hostname);
    if (platform) return platform;
  }
  const prefix = operation.split('_')[0];
  // Any other site (a page, a media file) is the open web.
  return (PLATFORMS as readonly string[]).includes(prefix) ? prefix : 'web';
}
