/**
 * `gleaner serve`: one HTTP server with the REST API under /v1 and the MCP streamable HTTP endpoint
 * at /mcp. Bound to loopback by default, where it also refuses foreign Host and Origin headers so a
 * web page cannot reach it through DNS rebinding.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { App } from '../app.js';
import { isLoopbackHost } from '../config.js';
import { GleanerError, errorEnvelope, toGleanerError } from '../errors.js';
import { createRestHandler } from './rest/handler.js';
import { createStreamableHttpHandler } from './mcp/sdk.js';
import { createToolSet } from './mcp/toolset.js';
import { SERVER_IDENTITY } from './identity.js';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

export async function startHttpServer(app: App, options: { host: string; port: number }): Promise<RunningServer> {
  const loopback = isLoopbackHost(options.host);
  if (app.config.GLEANER_MCP_KEYLESS && !loopback) {
    throw new Error('GLEANER_MCP_KEYLESS=true is allowed only when the server is bound to a loopback address (GLEANER_HOST=127.0.0.1).');
  }
  const rest = createRestHandler(app);
  const mcp = createStreamableHttpHandler(SERVER_IDENTITY, createToolSet(app));
  const allowedHosts = new Set(['localhost', '127.0.0.1', '[::1]', ...app.config.GLEANER_ALLOWED_HOSTS]);

  const server = http.createServer(async (req, res) => {
    try {
      if (loopback) checkHostAndOrigin(req, allowedHosts);
      const pathname = new URL(req.url ?? '/', 'http://gleaner.local').pathname;
      if (pathname === '/mcp') {
        const apiKey = req.headers['x-api-key'];
        if (!(app.config.GLEANER_MCP_KEYLESS && apiKey === undefined)) await app.services.accounts.authenticate(typeof apiKey === 'string' ? apiKey : undefined);
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        await mcp.handle(req, res, body);
        return;
      }
      await rest(req, res);
    } catch (thrown) {
      const error = toGleanerError(thrown);
      if (error.code === 'INTERNAL_ERROR') app.log.error({ err: thrown }, 'internal error');
      if (res.headersSent) {
        res.end();
        return;
      }
      const requestId = randomUUID();
      res.statusCode = error.status;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('X-Request-Id', requestId);
      res.end(JSON.stringify(errorEnvelope(error, requestId)));
    }
  });
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;

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

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_MCP_BODY_BYTES) throw new GleanerError('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_MCP_BODY_BYTES} bytes.`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new GleanerError('INVALID_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
