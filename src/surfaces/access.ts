/**
 * One access-log line and one request count per HTTP request. The handlers note what they learnt
 * (operation, route, account, credits) on the response; the line is written when it closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import { requestsTotal } from '../observability/metrics.js';

export interface RequestNote {
  surface?: 'rest' | 'mcp_http' | 'ops' | 'console';
  operation?: string;
  /** The route pattern (`/v1/jobs/{jobId}`), never the raw URL with its query. */
  route?: string;
  accountId?: string;
  credits?: number;
  requestId?: string;
}

const notes = new WeakMap<ServerResponse, RequestNote>();

export function note(res: ServerResponse, patch: RequestNote): void {
  notes.set(res, { ...notes.get(res), ...patch });
}

export function logAccess(log: Logger, req: IncomingMessage, res: ServerResponse): void {
  const started = process.hrtime.bigint();
  res.once('close', () => {
    const seen = notes.get(res) ?? {};
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const status = res.writableFinished ? res.statusCode : 499;
    const surface = seen.surface ?? 'rest';
    const operation = seen.operation ?? 'none';
    requestsTotal.inc({ surface, operation, status: String(status) });
    log.info(
      {
        method: req.method,
        route: seen.route ?? 'unmatched',
        operation,
        status,
        ms: Math.round(ms * 10) / 10,
        accountId: seen.accountId,
        credits: seen.credits ?? 0,
        requestId: seen.requestId ?? res.getHeader('X-Request-Id'),
      },
      'request',
    );
  });
}
