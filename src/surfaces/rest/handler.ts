/**
 * The REST API under /v1: routes from the table, input from path, query and JSON body, every call
 * through the gate, every error in the envelope with a request id. The key is checked before the
 * body is read, so a client without one cannot hold a connection open by trickling a body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { App } from '../../app.js';
import { GleanerError, toGleanerError } from '../../errors.js';
import { buildRoutes, type Route } from './routes.js';
import { queryToInput } from './query.js';
import { inputJsonSchema } from '../schema.js';
import { openApiDocument } from './openapi.js';
import { apiKeyFrom } from '../auth.js';
import { readJsonBody, type BodyLimits } from '../body.js';
import { sendBytes, sendError, sendJson } from '../reply.js';
import { note } from '../access.js';

const MAX_BODY_BYTES = 1024 * 1024;

export function createRestHandler(app: App, options: { bodyDeadlineMs: number }): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const limits: BodyLimits = { maxBytes: MAX_BODY_BYTES, deadlineMs: options.bodyDeadlineMs };
  const routes = buildRoutes(app.operations);
  // The document names the origin it was fetched from (the Host header was checked before this),
  // so a generated client needs no base URL of its own; one rendering per host.
  const openapi = new Map<string, string>();
  const openapiFor = (req: IncomingMessage) => {
    const host = typeof req.headers.host === 'string' ? req.headers.host : undefined;
    const server = host ? `http://${host}` : '/';
    let document = openapi.get(server);
    if (!document) {
      document = JSON.stringify(openApiDocument(app.operations, server));
      if (openapi.size < 16) openapi.set(server, document);
    }
    return document;
  };

  return async (req, res) => {
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    note(res, { surface: 'rest', requestId });
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      const url = new URL(req.url ?? '/', 'http://gleaner.local');
      if (url.pathname === '/v1/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) {
        note(res, { route: '/v1/openapi.json', operation: 'openapi' });
        sendJson(res, 200, openapiFor(req));
        return;
      }
      const { route, params } = findRoute(routes, req.method ?? 'GET', url.pathname);
      note(res, { route: route.path, operation: route.operation.name });
      const apiKey = apiKeyFrom(req.headers);
      const account = await app.services.accounts.authenticate(apiKey);
      note(res, { accountId: account.id });
      const input = {
        ...(route.method === 'POST' ? await readObjectBody(req, limits) : queryToInput(url.searchParams, inputJsonSchema(route.operation))),
        ...params,
      };
      const origin = typeof req.headers.host === 'string' ? `http://${req.headers.host}` : undefined;
      const prefersAsync = prefersRespondAsync(req.headers.prefer);
      const result = await app.gate.call(route.operation, input, { account, requestId, signal: abort.signal, origin, prefersAsync, inline: route.inline });
      for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
      if (prefersAsync && result.job && route.operation.handsOffToJobs) res.setHeader('Preference-Applied', 'respond-async');
      note(res, { credits: Number(result.headers['X-Credits-Used'] ?? 0) });
      if (route.operation.http.binary && !result.job) sendBytes(res, result.status, route.operation.http.binary, result.body as { data: string });
      else sendJson(res, result.status, JSON.stringify(result.body));
    } catch (thrown) {
      const error = toGleanerError(thrown);
      if (error.code === 'INTERNAL_ERROR') app.log.error({ err: thrown, requestId }, 'internal error');
      sendError(req, res, error, requestId);
    }
  };
}

/** RFC 7240: `Prefer: respond-async` among the comma-separated preferences (parameters ignored). */
function prefersRespondAsync(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  return values.some((value) => value.split(',').some((preference) => preference.split(';')[0].trim().toLowerCase() === 'respond-async'));
}

function findRoute(routes: Route[], method: string, pathname: string): { route: Route; params: Record<string, string> } {
  const allowed = new Set<string>();
  for (const route of routes) {
    const params = route.match(pathname);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allowed.add(route.method);
  }
  if (allowed.size > 0) {
    throw new GleanerError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${pathname}; use ${[...allowed].join(' or ')}.`, {
      headers: { Allow: [...allowed].join(', ') },
    });
  }
  throw new GleanerError('NOT_FOUND', `No route ${method} ${pathname}. The API is described at GET /v1/openapi.json.`);
}

async function readObjectBody(req: IncomingMessage, limits: BodyLimits): Promise<Record<string, unknown>> {
  const body = await readJsonBody(req, limits);
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GleanerError('INVALID_REQUEST', 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}
