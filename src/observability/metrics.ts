/**
 * The process's Prometheus metrics (prom-client). This sits below every other layer (it imports nothing of the project) so the gate,
 * the jobs and the surfaces can all record into it without importing one another. One registry
 * per process: metric names are registered once, however many apps a test builds.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'gleaner_' });

export const requestsTotal = new Counter({
  name: 'gleaner_requests_total',
  help: 'Requests answered, by surface (rest; mcp: a tool call; mcp_http: a request to /mcp; ops: /healthz, /metrics), operation and status (HTTP status, or its equivalent for a tool call).',
  labelNames: ['surface', 'operation', 'status'] as const,
  registers: [registry],
});

export const upstreamFailuresTotal = new Counter({
  name: 'gleaner_upstream_failures_total',
  help: 'Operations that failed because of an upstream (an UPSTREAM_* error), by platform and error code.',
  labelNames: ['platform', 'code'] as const,
  registers: [registry],
});

export const upstreamRequestsTotal = new Counter({
  name: 'gleaner_upstream_requests_total',
  help: 'Outbound HTTP exchanges (each hop and retry), by platform of the host and HTTP status.',
  labelNames: ['platform', 'status'] as const,
  registers: [registry],
});

export const jobsTotal = new Counter({
  name: 'gleaner_jobs_total',
  help: 'Jobs ended, by operation and outcome (completed, failed, cancelled).',
  labelNames: ['operation', 'status'] as const,
  registers: [registry],
});

export const jobDurationSeconds = new Histogram({
  name: 'gleaner_job_duration_seconds',
  help: 'Time a job ran, from start to settlement, by operation and outcome.',
  labelNames: ['operation', 'status'] as const,
  buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  registers: [registry],
});

export const creditsChargedTotal = new Counter({
  name: 'gleaner_credits_charged_total',
  help: 'Credits charged for calls that succeeded, by operation.',
  labelNames: ['operation'] as const,
  registers: [registry],
});

/**
 * An upstream's HTTP status as a label. A caller chooses the server a scrape talks to, and so its
 * status codes: the usual ones are kept, any other is its class (`2xx` ... `5xx`, `other`), so the
 * label values stay a closed set whatever a server answers.
 */
const KNOWN_STATUSES = new Set([200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 405, 406, 408, 409, 410, 412, 413, 415, 416, 429, 451, 500, 501, 502, 503, 504]);
export function upstreamStatusLabel(status: number): string {
  if (KNOWN_STATUSES.has(status)) return String(status);
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}
