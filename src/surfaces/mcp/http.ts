/**
 * MCP over streamable HTTP at /mcp (Host, Origin, key and body already checked by http-server.ts).
 * Requests of both eras are answered statelessly by whichever process gets them (2025-era ones through
 * the SDK's legacy fallback), with one exception: a 2025 client declaring sampling to a server without a
 * model of its own gets a session, as its model is reachable only over a session's streams. Sessions live
 * in their process (GLEANER_MCP_MAX_SESSIONS per key, GLEANER_MCP_SESSION_IDLE_SECONDS); a request of one
 * that reaches another process is served there statelessly, without sampling.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHttpHandler, type McpRequestContext, type Server } from '@modelcontextprotocol/server';
import { accountOfRequest, authInfoOf, createSdkServer, type ServerIdentity } from './sdk.js';
import type { RoundState } from './client-model.js';
import { Cancellations } from './cancels.js';
import type { ToolSet } from './toolset.js';
import { GleanerError } from '../../errors.js';
import type { AccountRecord } from '../../accounts/accounts.js';

/** Who makes a request: the key's account (absent: keyless), and `admit`, which takes a request of its rate. */
export interface SessionOwner {
  id: string;
  account?: AccountRecord;
  admit?: () => Promise<unknown>;
}

type SessionEvent = (event: { owner: string; sessionId: string; idleMs: number }) => void;

export interface McpHttpOptions {
  rounds: RoundState;
  /** Whether a 2025 client declaring sampling gets a session (true when the server has no model of its own). */
  samplingSessions?: boolean;
  /** GLEANER_MCP_SESSION_IDLE_SECONDS and GLEANER_MCP_MAX_SESSIONS (per key). */
  idleMs: number;
  maxSessionsPerOwner: number;
  onEvicted?: SessionEvent;
  onIdleClosed?: SessionEvent;
  onerror?: (error: Error) => void;
}

/** How long the store names a session its process did not close (one killed with it). */
const SESSION_NAMED_MS = 24 * 3_600_000;

/** `busy`: requests being answered (a call in progress); `streams`: GET streams held open (alive, though quiet). */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  owner: string;
  lastSeen: number;
  busy: number;
  streams: number;
}

export function createMcpHttpHandler(identity: ServerIdentity, tools: ToolSet, options: McpHttpOptions) {
  const cancels = new Cancellations(options.rounds);
  const factory = (_ctx: McpRequestContext) => createSdkServer(identity, tools, { accountOf: accountOfRequest, rounds: options.rounds, cancels });
  // Either era, each request on its own (2025-era ones through the SDK's stateless legacy fallback).
  const stateless = createMcpHandler(factory, { onerror: options.onerror });
  const sessions = createSamplingSessions(identity, tools, options, cancels, stateless);

  async function handle(req: IncomingMessage, res: ServerResponse, body: unknown, owner: SessionOwner): Promise<void> {
    const aborter = new AbortController();
    res.once('close', () => aborter.abort());
    const request = webRequest(req, aborter.signal);
    const authInfo = authInfoOf(owner.account);
    // A cancel of either era may come as a POST of its own (mcp-remote sends a 2026 client's so) to any process.
    const cancelled = cancelledRequest(body);
    if (cancelled !== undefined && owner.account) await cancels.cancel(owner.account.id, cancelled);
    const sessionId = req.headers['mcp-session-id'];
    const legacy = await isLegacyRequest(request, body ?? null);
    const response =
      legacy && typeof sessionId === 'string'
        ? await sessions.serve(sessionId, request, body, owner, res)
        : legacy && options.samplingSessions && req.method === 'POST' && declaresSampling(body)
          ? await sessions.open(request, body, owner, res)
          : await stateless.fetch(request, { authInfo, parsedBody: body });
    await sendResponse(res, response);
  }

  return {
    handle,
    async close() {
      await stateless.close();
      await sessions.close();
    },
  };
}

/** The request id a notifications/cancelled names. */
function cancelledRequest(body: unknown): string | number | undefined {
  const message = body as { method?: unknown; params?: { requestId?: unknown } } | null;
  const id = message?.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** An initialize whose client declares sampling. */
function declaresSampling(body: unknown): boolean {
  const message = body as { method?: unknown; params?: { capabilities?: { sampling?: unknown } } } | null;
  return message?.method === 'initialize' && Boolean(message.params?.capabilities?.sampling);
}

/**
 * The 2025 sampling sessions, each its key's only (another key is told it does not exist). At a key's
 * cap the least recently used one not busy is closed (one with no stream open first); only when all are
 * busy is a new one refused. Idle sessions close after idleMs.
 */
function createSamplingSessions(identity: ServerIdentity, tools: ToolSet, options: McpHttpOptions, cancels: Cancellations, stateless: McpHttpHandler) {
  const sessions = new Map<string, Session>();
  const opening = new Map<string, number>();
  const { idleMs, maxSessionsPerOwner: maxPerOwner } = options;
  const ownedBy = (owner: string) => [...sessions].filter(([, s]) => s.owner === owner);

  // Each session is named in the store, so that another process serves its requests (without sampling) rather than 404.
  const named = (id: string) => `mcp:session:${id}`;
  const forget = (id: string) => {
    sessions.delete(id);
    void options.rounds.delete(named(id)).catch(() => undefined);
  };
  const closeSession = (id: string, session: Session, tell?: SessionEvent) => {
    forget(id);
    void session.server.close().catch(() => undefined);
    tell?.({ owner: session.owner, sessionId: id, idleMs: Date.now() - session.lastSeen });
  };

  // Swept five times an idle period (at most once a minute).
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (session.busy === 0 && session.streams === 0 && session.lastSeen < now - idleMs) closeSession(id, session, options.onIdleClosed);
      }
    },
    Math.min(Math.max(idleMs / 5, 100), 60_000),
  );
  sweeper.unref();

  function makeRoom(owner: string): boolean {
    const owned = ownedBy(owner);
    if (owned.length + (opening.get(owner) ?? 0) < maxPerOwner) return true;
    const rank = (s: Session) => (s.streams > 0 ? 1 : 0);
    const idle = owned.filter(([, s]) => s.busy === 0).sort(([, a], [, b]) => rank(a) - rank(b) || a.lastSeen - b.lastSeen);
    if (idle.length === 0) return false;
    closeSession(...idle[0], options.onEvicted);
    return true;
  }

  function track(session: Session, method: string, res: ServerResponse): void {
    const kind = method === 'GET' ? 'streams' : 'busy';
    session[kind]++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session[kind]--;
      session.lastSeen = Date.now();
    });
  }

  async function serve(sessionId: string, request: Request, body: unknown, owner: SessionOwner, res: ServerResponse): Promise<Response> {
    const found = sessions.get(sessionId);
    if (!found || found.owner !== owner.id) {
      if (!found && (await options.rounds.get(named(sessionId.slice(0, 100)))) === owner.id) return stateless.fetch(request, { authInfo: authInfoOf(owner.account), parsedBody: body });
      return jsonRpcError(404, -32001, 'Session not found: it expired or was closed. Start a new session with initialize.');
    }
    track(found, request.method, res);
    return found.transport.handleRequest(request, { parsedBody: body, authInfo: authInfoOf(owner.account) });
  }

  async function open(request: Request, body: unknown, owner: SessionOwner, res: ServerResponse): Promise<Response> {
    if (!makeRoom(owner.id)) {
      throw new GleanerError(
        'RATE_LIMIT_EXCEEDED',
        `This key has ${maxPerOwner} MCP sessions open, each with a request in progress. Wait for one to finish, or close one (DELETE /mcp with its Mcp-Session-Id).`,
      );
    }
    opening.set(owner.id, (opening.get(owner.id) ?? 0) + 1);
    try {
      await owner.admit?.();
      const server = createSdkServer(identity, tools, { accountOf: accountOfRequest, rounds: options.rounds, cancels });
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          const session: Session = { transport, server, owner: owner.id, lastSeen: Date.now(), busy: 0, streams: 0 };
          sessions.set(id, session);
          track(session, request.method, res);
          void options.rounds.set(named(id), owner.id, SESSION_NAMED_MS).catch(() => undefined);
        },
        onsessionclosed: forget,
      });
      transport.onclose = () => transport.sessionId && forget(transport.sessionId);
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody: body, authInfo: authInfoOf(owner.account) });
    } finally {
      const left = (opening.get(owner.id) ?? 1) - 1;
      if (left > 0) opening.set(owner.id, left);
      else opening.delete(owner.id);
    }
  }

  async function close(): Promise<void> {
    clearInterval(sweeper);
    await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => undefined)));
    sessions.clear();
  }

  return { serve, open, close };
}

/** The Node request as a web Request (the body is passed already parsed; the signal ends with the connection). */
function webRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = new URL(req.url ?? '/mcp', `http://${req.headers.host ?? 'localhost'}`);
  return new Request(url, { method: req.method, headers, signal });
}

/** Writes a web Response to the Node response, streaming (SSE) as it comes; stops when the client goes. */
async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  res.flushHeaders();
  // A client that goes away ends the pipeline, which cancels the stream: nothing more to send.
  await pipeline(Readable.fromWeb(response.body as never), res).catch(() => undefined);
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'Content-Type': 'application/json' } });
}
