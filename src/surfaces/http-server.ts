/**
 * `gleaner serve`: one HTTP server with the REST API under /v1, the MCP streamable HTTP endpoint
 * at /mcp, /healthz and /metrics for operators, and the API reference page at /docs. Bound to
 * loopback by default, where it also refuses foreign Host and Origin headers so a web page cannot
 * reach it through DNS rebinding.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { App } from '../app.js';
import { isLoopbackHost } from '../config.js';
import { GleanerError, errorEnvelope, toGleanerError } from '../errors.js';
import { createRestHandler } from './rest/handler.js';
import { createMcpHttpHandler, type SessionOwner } from './mcp/http.js';
import { createToolSet } from './mcp/toolset.js';
import { SERVER_IDENTITY } from './identity.js';
import { apiKeyFrom } from './auth.js';
import { readJsonBody, type BodyLimits } from './body.js';
import { sendError } from './reply.js';
import { logAccess, note } from './access.js';
import { serveHealth, serveMetrics } from './operate.js';
import { handleOAuth, isOAuthRoute } from './oauth/routes.js';
import { authenticateMcp } from './oauth/mcp-auth.js';
import { createConsoleHandler, isConsolePath } from './console/handler.js';
import type { OAuthClientsSource } from './console/oauth-slot.js';
import { isReferencePath, REFERENCE_PATH, serveReference } from './reference.js';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MCP_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Slow clients: how long the headers, the body and the whole request may take to arrive; how long an idle connection stays open. */
export interface ServerTimeouts {
  headersTimeoutMs: number;
  bodyDeadlineMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * Idle connections stay open 65 s, not Node's 5 s. An MCP client answers the server's own requests (sampling) by POST,
 * often on the connection it used seconds before; when its event loop was busy making the answer (a model, decoding
 * pictures) past the server's close, the answer met a reset connection and was lost, and the call waited for it
 * (docs/testing.md, "The sampling stall"). 65 s outlasts such pauses and the 60 s idle timeout of common proxies.
 */
const DEFAULT_TIMEOUTS: ServerTimeouts = { headersTimeoutMs: 15_000, bodyDeadlineMs: 30_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 65_000 };

export async function startHttpServer(app: App, options: { host: string; port: number; timeouts?: Partial<ServerTimeouts> }): Promise<RunningServer> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const mcpBodyLimits: BodyLimits = { maxBytes: MCP_MAX_BODY_BYTES, deadlineMs: timeouts.bodyDeadlineMs };
  const loopback = isLoopbackHost(options.host);
  if (app.config.GLEANER_MCP_KEYLESS && !loopback) {
    throw new Error('GLEANER_MCP_KEYLESS=true is allowed only when the server is bound to a loopback address (GLEANER_HOST=127.0.0.1).');
  }
  const rest = createRestHandler(app, { bodyDeadlineMs: timeouts.bodyDeadlineMs });
  const mcp = createMcpHttpHandler(SERVER_IDENTITY, createToolSet(app), {
    rounds: app.services.store,
    // Sessions only for 2025 clients whose own model may be needed (the server has none): see mcp/http.ts.
    samplingSessions: !app.services.chat,
    onerror: (error) => app.log.debug({ err: error }, 'MCP protocol error'),
    maxSessionsPerOwner: app.config.GLEANER_MCP_MAX_SESSIONS,
    idleMs: app.config.GLEANER_MCP_SESSION_IDLE_SECONDS * 1000,
    onEvicted: ({ owner, sessionId, idleMs }) =>
      app.log.info(
        { accountId: owner, sessionId, idleSeconds: Math.round(idleMs / 1000) },
        'MCP sampling session cap reached: the least recently used session without a request in progress was closed to admit a new one',
      ),
    onIdleClosed: ({ owner, sessionId, idleMs }) => app.log.info({ accountId: owner, sessionId, idleSeconds: Math.round(idleMs / 1000) }, 'MCP sampling session closed after being idle'),
  });
  // The web console (console/handler.ts), with the OAuth server's approvals of each key (an external issuer keeps its own).
  const webConsole = createConsoleHandler(app, { bodyDeadlineMs: timeouts.bodyDeadlineMs, oauthClients: app.oauth.external ? undefined : oauthClientsOf(app) });
  const allowedHosts = new Set(['localhost', '127.0.0.1', '[::1]', ...app.config.GLEANER_ALLOWED_HOSTS]);

  const server = http.createServer(async (req, res) => {
    logAccess(app.log, req, res);
    try {
      if (loopback) checkHostAndOrigin(req, allowedHosts);
      const pathname = new URL(req.url ?? '/', 'http://gleaner.local').pathname;
      if (pathname === '/healthz' || pathname === '/metrics') {
        note(res, { surface: 'ops', route: pathname, operation: pathname.slice(1) });
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          throw new GleanerError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname}; use GET.`, { headers: { Allow: 'GET' } });
        }
        await (pathname === '/healthz' ? serveHealth(app, res) : serveMetrics(res));
        return;
      }
      if (isReferencePath(pathname)) {
        note(res, { surface: 'ops', route: REFERENCE_PATH, operation: 'docs' });
        serveReference(req, res, pathname);
        return;
      }
      if (isConsolePath(pathname)) {
        await webConsole(req, res);
        return;
      }
      if (isOAuthRoute(pathname)) {
        note(res, { surface: 'mcp_http', route: pathname, operation: 'oauth' });
        await handleOAuth(app, req, res, pathname);
        return;
      }
      if (pathname === '/mcp') {
        note(res, { surface: 'mcp_http', route: '/mcp', operation: 'mcp' });
        // The key or OAuth token is checked before the body is read (a keyless client cannot trickle one).
        const credential = apiKeyFrom(req.headers);
        let owner: SessionOwner = { id: 'keyless' };
        if (!(app.config.GLEANER_MCP_KEYLESS && credential === undefined)) {
          const account = await authenticateMcp(app, req, credential);
          note(res, { accountId: account.id });
          owner = { id: account.id, account, admit: () => app.gate.admit(account) };
        }
        const body = req.method === 'POST' ? await readJsonBody(req, mcpBodyLimits) : undefined;
        await mcp.handle(req, res, body, owner);
        return;
      }
      await rest(req, res);
    } catch (thrown) {
      const error = toGleanerError(thrown);
      if (error.code === 'INTERNAL_ERROR') app.log.error({ err: thrown }, 'internal error');
      sendError(req, res, error, randomUUID());
    }
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket));
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function checkHostAndOrigin(req: http.IncomingMessage, allowedHosts: Set<string>): void {
  const hostname = (value: string) => {
    try {
      return new URL(`http://${value}`).hostname.toLowerCase();
    } catch {
      return '';
    }
  };
  const host = req.headers.host;
  if (!host || !allowedHosts.has(hostname(host))) {
    throw new GleanerError('FORBIDDEN', `Host "${host ?? ''}" is not accepted by this server. Add it to GLEANER_ALLOWED_HOSTS if it is yours.`);
  }
  const origin = req.headers.origin;
  if (origin && origin !== 'null') {
    let originHost = '';
    try {
      originHost = new URL(origin).hostname.toLowerCase();
    } catch {
      /* an unparsable origin is refused below */
    }
    const normalised = originHost.includes(':') ? `[${originHost.replace(/^\[|\]$/g, '')}]` : originHost;
    if (!allowedHosts.has(normalised)) throw new GleanerError('FORBIDDEN', `Origin "${origin}" is not accepted by this server.`);
  }
}

/**
 * Requests Node refuses before any handler runs (headers over 16 KB, a malformed request line,
 * headers or body too slow) still get the error envelope, as a 400, and the connection is closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: import('node:stream').Duplex): void {
  if (!socket.writable || (error.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request line and headers are larger than 16 KB; send long values in a POST body.'
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request did not arrive in time.'
        : 'The request is not valid HTTP.';
  const requestId = randomUUID();
  const body = JSON.stringify(errorEnvelope(new GleanerError('INVALID_REQUEST', message), requestId));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The OAuth grants of a key as the console's OAuth-clients section reads them (console/oauth-slot.ts). */
function oauthClientsOf(app: App): OAuthClientsSource {
  return {
    list: async (accountId) =>
      (await app.oauth.grants.list(accountId)).map((grant) => ({ grantId: grant.grantId, clientId: grant.clientId, name: grant.clientName, approvedAt: grant.approvedAt, ...(grant.lastUsedAt ? { lastUsedAt: grant.lastUsedAt } : {}) })),
    revoke: async (accountId, grantId) => {
      if (!(await app.oauth.grants.revoke(accountId, grantId))) throw new GleanerError('NOT_FOUND', 'No OAuth client with that approval is approved for this key.');
    },
  };
}
