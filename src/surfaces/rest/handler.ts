/**
 * The REST API under /v1: routes from the table, input from path, query and JSON body, every call
 * through the gate, every error in the envelope with a request id.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { App } from '../../app.js';
import { GleanerError, errorEnvelope, toGleanerError } from '../../errors.js';
import { buildRoutes, type Route } from './routes.js';
import { queryToInput } from './query.js';
import { inputJsonSchema } from '../schema.js';
import { openApiDocument } from './openapi.js';

const MAX_BODY_BYTES = 1024 * 1024;

export function createRestHandler(app: App): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const routes = buildRoutes(app.operations);
  // The document names the origin it was fetched from (the Host header was checked before this),
  // so a generated client needs no base URL of its own; one rendering per host.
  const openapi = new Map<string, string>();
  const openapiFor = (req: IncomingMessage) => {
    const host = headerValue(req, 'host');
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
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      const url = new URL(req.url ?? '/', 'http://gleaner.local');
      if (url.pathname === '/v1/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) {
        send(res, 200, openapiFor(req));
        return;
      }
      const { route, params } = findRoute(routes, req.method ?? 'GET', url.pathname);
      const input = {
        ...(route.method === 'POST' ? await readJsonBody(req) : queryToInput(url.searchParams, inputJsonSchema(route.operation))),
        ...params,
      };
      const result = await app.gate.call(route.operation, input, {
        apiKey: headerValue(req, 'x-api-key'),
        requestId,
        signal: abort.signal,
      });
      for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
      send(res, result.status, JSON.stringify(result.body));
    } catch (thrown) {
      const error = toGleanerError(thrown);
      if (error.code === 'INTERNAL_ERROR') app.log.error({ err: thrown, requestId }, 'internal error');
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
      if (!res.headersSent) send(res, error.status, JSON.stringify(errorEnvelope(error, requestId)));
      else res.end();
    }
  };
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

async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new GleanerError('INVALID_REQUEST', 'The request body must be a JSON object.');
    }
    return body;
  } catch (error) {
    if (error instanceof GleanerError) throw error;
    throw new GleanerError('INVALID_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(): GleanerError {
  return new GleanerError('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
