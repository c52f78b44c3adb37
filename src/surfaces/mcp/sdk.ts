/**
 * Every use of the MCP SDK lives in this file: tool handlers elsewhere are plain functions, so a
 * move to the SDK's next major version touches this file alone.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, CreateMessageResultSchema, ErrorCode as RpcErrorCode, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { textContent, type ToolOutcome, type ToolSet } from './toolset.js';
import { clock, IMAGE_REFUSAL, ImagesRefused, type ChatModel, type ChatRequest } from '../../ai/chat.js';
import { ERROR_CODES, GleanerError, type ErrorCode } from '../../errors.js';
import { requestsTotal } from '../../observability/metrics.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { missingApiKey, type AccountRecord } from '../../accounts/accounts.js';

/**
 * tools/call with any params at all. The SDK's own schema (and the Server's wrapper around
 * tools/call handlers) reject a malformed call with a raw validation dump as -32603; parsed here,
 * a missing name is a plain -32602 and non-object arguments an INVALID_REQUEST result, as on REST.
 */
const LooseCallToolRequestSchema = z.object({ method: z.literal('tools/call'), params: z.unknown().optional() });
const CallParamsSchema = CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() });

/**
 * A JSON-RPC error whose message the client shows as is. (McpError puts "MCP error <code>: " in its
 * own message, and the client's McpError adds it again: the reader saw the prefix twice.)
 */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type SendRequest = (request: { method: 'sampling/createMessage'; params: Record<string, unknown> }, schema: typeof CreateMessageResultSchema) => Promise<{ content: unknown }>;

/** The client's own model through MCP sampling (sampling/createMessage on the tool call's stream). */
function samplingModel(sendRequest: SendRequest): ChatModel {
  return {
    name: 'mcp-sampling',
    async complete(request: ChatRequest) {
      const schemaNote = request.schema
        ? `\n\nAnswer with one JSON value only, no prose and no code fence, that validates against this JSON Schema:\n${JSON.stringify(request.schema)}`
        : '';
      // Frames go as image messages, each after a text message naming its moment.
      const pictures = (request.images ?? []).flatMap((image) => [
        { role: 'user', content: { type: 'text', text: `Frame at ${clock(image.atSeconds * 1000)}:` } },
        { role: 'user', content: { type: 'image', data: image.jpeg.toString('base64'), mimeType: 'image/jpeg' } },
      ]);
      let result;
      try {
        result = await sendRequest(
          {
            method: 'sampling/createMessage',
            params: {
              systemPrompt: request.system,
              messages: [{ role: 'user', content: { type: 'text', text: `${request.prompt}${schemaNote}` } }, ...pictures],
              maxTokens: request.maxTokens ?? 2_000,
              includeContext: 'none',
            },
          },
          CreateMessageResultSchema,
        );
      } catch (error) {
        if (pictures.length && error instanceof Error && IMAGE_REFUSAL.test(error.message)) throw new ImagesRefused(error.message);
        throw error;
      }
      const content = Array.isArray(result.content) ? result.content : [result.content];
      return content.map((part) => (part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : '')).join('');
    },
  };
}

export interface ServerIdentity {
  name: string;
  version: string;
  instructions: string;
}

function invalidArguments(): ToolOutcome {
  const error = new GleanerError('INVALID_REQUEST', 'The tool arguments must be a JSON object of named parameters.');
  return { isError: true, body: { error: { code: error.code, message: error.message, requestId: randomUUID() } }, text: `${error.code}: ${error.message}` };
}

/** The HTTP status a tool call's outcome stands for, for the request counter. */
function outcomeStatus(outcome: ToolOutcome): string {
  if (!outcome.isError) return '200';
  const code = (outcome.body as { error?: { code?: string } })?.error?.code;
  return code && code in ERROR_CODES ? String(ERROR_CODES[code as ErrorCode].status) : '500';
}

/** The result of a tool call: a failure is one text block, `CODE: message`, read once by the model. */
function callResult(outcome: ToolOutcome) {
  // structuredContent must match the tool's outputSchema, which describes successes (the MCP spec's
  // error results carry text only): an error has none.
  if (outcome.isError) return { content: [{ type: 'text' as const, text: outcome.text }], isError: true };
  return { content: textContent(outcome), structuredContent: outcome.body as Record<string, unknown> };
}

export interface SdkServerHooks {
  /** The client cancelled request `id` (notifications/cancelled): its HTTP reply must end. */
  onCancelled?: (requestId: string | number) => void;
}

/** Who a call acts as, from what its transport knows of it (see ToolCallContext.account). */
type AccountOf = (extra: { authInfo?: AuthInfo }) => Promise<AccountRecord>;

/** One SDK server over the tool set; `accountOf` says which account a call acts as. */
function createSdkServer(identity: ServerIdentity, tools: ToolSet, accountOf: AccountOf, hooks: SdkServerHooks = {}): Server {
  const server = new Server(
    { name: identity.name, version: identity.version },
    { capabilities: { tools: {}, logging: {} }, instructions: identity.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));
  // Registered on Protocol, past the Server's tools/call wrapper: see LooseCallToolRequestSchema.
  Protocol.prototype.setRequestHandler.call(server, LooseCallToolRequestSchema, async (request, extra) => {
    const parsed = CallParamsSchema.safeParse(request.params);
    if (!parsed.success) throw rpcError(RpcErrorCode.InvalidParams, 'tools/call needs params: { "name": <a tool from tools/list>, "arguments": { ... } }.');
    const params = parsed.data;
    // An unknown tool is a protocol error (JSON-RPC), not a failed call of a tool. Checked first:
    // nothing below may take the caller's name anywhere (a metric label, a log line) unchecked.
    if (!tools.has(params.name)) throw rpcError(RpcErrorCode.InvalidParams, `Unknown tool: ${params.name.slice(0, 100)}. tools/list names the tools.`);
    // Absent arguments are no arguments; null, a string, an array or a number are a mistake.
    const args = params.arguments === undefined ? {} : params.arguments;
    if (!isPlainObject(args)) {
      const outcome = invalidArguments();
      requestsTotal.inc({ surface: 'mcp', operation: params.name, status: outcomeStatus(outcome) });
      return callResult(outcome);
    }
    // The SDK sends no reply to a cancelled request, so the stream that waits for one is closed.
    if (hooks.onCancelled) {
      const onCancelled = hooks.onCancelled;
      extra.signal.addEventListener('abort', () => onCancelled(extra.requestId), { once: true });
    }
    const progressToken = params._meta?.progressToken;
    const canSample = Boolean(server.getClientCapabilities()?.sampling);
    const outcome = await tools.call(params.name, args, {
      sampling: canSample ? samplingModel(extra.sendRequest as unknown as SendRequest) : undefined,
      account: () => accountOf(extra),
      signal: extra.signal,
      progress:
        progressToken === undefined
          ? undefined
          : (p) =>
              void extra
                .sendNotification({
                  method: 'notifications/progress',
                  params: { progressToken, progress: p.done, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) },
                })
                .catch(() => undefined),
    });
    requestsTotal.inc({ surface: 'mcp', operation: params.name, status: outcomeStatus(outcome) });
    return callResult(outcome);
  });
  return server;
}

/** Serves the tools over stdio; stdout carries the protocol only. */
export async function serveStdio(identity: ServerIdentity, tools: ToolSet, account: () => Promise<AccountRecord>, keyConfigured: boolean): Promise<() => Promise<void>> {
  const server = createSdkServer(identity, withStdioKeyHint(tools, keyConfigured), account);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  return () => server.close();
}

/** Over stdio there are no headers: a key is fixed in the server's environment, so a refusal says where. */
function withStdioKeyHint(tools: ToolSet, keyConfigured: boolean): ToolSet {
  const message = keyConfigured
    ? 'The key in GLEANER_API_KEY is unknown or revoked: set GLEANER_API_KEY in the environment of the Gleaner MCP server (in Claude Desktop, the "env" of its entry) to a key from "gleaner keys create", or remove it to act as the local owner of the store.'
    : 'Missing API key: set GLEANER_API_KEY in the environment of the Gleaner MCP server (in Claude Desktop, the "env" of its entry). Create one with "gleaner keys create".';
  return {
    ...tools,
    async call(name, args, context) {
      const outcome = await tools.call(name, args, context);
      const error = (outcome.body as { error?: { code?: string; message?: string; requestId?: string } })?.error;
      if (!outcome.isError || error?.code !== 'UNAUTHORIZED' || /GLEANER_API_KEY/.test(error.message ?? '')) return outcome;
      return { isError: true, body: { error: { code: 'UNAUTHORIZED', message, requestId: error.requestId } }, text: `UNAUTHORIZED: ${message}` };
    },
  };
}

/** An HTTP tool call acts as the account its request's key was checked for (see handle). */
async function accountOfRequest(extra: { authInfo?: AuthInfo }): Promise<AccountRecord> {
  const account = extra.authInfo?.extra?.account as AccountRecord | undefined;
  if (!account) throw missingApiKey();
  return account;
}

/** Who opens and uses a session: the key's account (or "keyless"), and how its rate is taken. */
export interface SessionOwner {
  id: string;
  /** The account whose key this request carried, checked once by the HTTP surface (absent: keyless). */
  account?: AccountRecord;
  /** Counts opening a session against the key's rate; throws RATE_LIMIT_EXCEEDED. */
  admit?: () => Promise<unknown>;
}

export interface StreamableHttpOptions {
  /** A session unused this long is closed (clients that vanish without DELETE). */
  idleMs?: number;
  /** Open sessions one key may hold at once. */
  maxSessionsPerOwner?: number;
  /** Told when a session is closed to make room for a new one of the same key. */
  onEvicted?: (event: { owner: string; sessionId: string; idleMs: number }) => void;
  /** Told when a session is closed for having been idle idleMs. */
  onIdleClosed?: (event: { owner: string; sessionId: string; idleMs: number }) => void;
}

/** The defaults of GLEANER_MCP_SESSION_IDLE_SECONDS and GLEANER_MCP_MAX_SESSIONS. */
export const DEFAULT_SESSION_IDLE_MS = 5 * 60_000;
export const DEFAULT_MAX_SESSIONS = 10;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  owner: string;
  lastSeen: number;
  /** Requests of this session being answered (a tool call in progress): the session is busy. */
  busy: number;
  /** GET streams the client holds open for server messages: it is alive, though maybe quiet. */
  streams: number;
}

/**
 * Streamable HTTP with stateful sessions (sampling needs them). The caller has already checked
 * Host, Origin and the key; this routes each request to its session's transport. A session belongs
 * to the key that opened it: any other key is told it does not exist, for use and DELETE alike.
 *
 * Sessions of one key, open and being opened, never number more than the cap. Many clients never
 * send the DELETE that ends a session, so a key at its cap has its least recently used session that
 * is not busy closed to admit a new one: one with no connection left first, then one whose client
 * only holds its GET stream open; only when every session has a request in progress is the new one
 * refused. The count is taken and raised before the first await, so concurrent initializes cannot
 * pass the cap together. Idle sessions (nothing open) close after idleMs.
 */
export function createStreamableHttpHandler(identity: ServerIdentity, tools: ToolSet, options: StreamableHttpOptions = {}) {
  const sessions = new Map<string, Session>();
  // Sessions being opened, per key: they count against the cap until they are sessions.
  const opening = new Map<string, number>();
  const idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxPerOwner = options.maxSessionsPerOwner ?? DEFAULT_MAX_SESSIONS;
  const ownedBy = (owner: string) => [...sessions].filter(([, s]) => s.owner === owner);

  const closeSession = (id: string, session: Session) => {
    sessions.delete(id);
    void session.server.close().catch(() => undefined);
  };

  // Swept five times an idle period (at most once a minute): a session outlives idleMs by a fifth at most.
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (session.busy > 0 || session.streams > 0 || session.lastSeen >= now - idleMs) continue;
        closeSession(id, session);
        options.onIdleClosed?.({ owner: session.owner, sessionId: id, idleMs: now - session.lastSeen });
      }
    },
    Math.min(Math.max(idleMs / 5, 100), 60_000),
  );
  sweeper.unref();

  /** Makes room for one more session of `owner`, synchronously; false when every session is busy. */
  function makeRoom(owner: string): boolean {
    const owned = ownedBy(owner);
    if (owned.length + (opening.get(owner) ?? 0) < maxPerOwner) return true;
    // Gone clients (nothing open) before quiet ones (a GET stream open), each least recently used first.
    const rank = (s: Session) => (s.streams > 0 ? 1 : 0);
    const idle = owned.filter(([, s]) => s.busy === 0).sort(([, a], [, b]) => rank(a) - rank(b) || a.lastSeen - b.lastSeen);
    if (idle.length === 0) return false;
    const [id, session] = idle[0];
    closeSession(id, session);
    options.onEvicted?.({ owner, sessionId: id, idleMs: Date.now() - session.lastSeen });
    return true;
  }

  /** Counts a request of a session until its reply has gone (or its connection closed). */
  function track(session: Session, req: IncomingMessage, res: ServerResponse): void {
    const kind = req.method === 'GET' ? 'streams' : 'busy';
    session[kind]++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session[kind]--;
      session.lastSeen = Date.now();
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, body: unknown, owner: SessionOwner): Promise<void> {
    // The SDK hands a request's `auth` to its handlers as authInfo: tool calls act as this account.
    if (owner.account) (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: '', clientId: owner.account.id, scopes: [], extra: { account: owner.account } };
    const sessionId = req.headers['mcp-session-id'];
    const found = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const existing = found?.owner === owner.id ? found : undefined;
    if (existing) {
      track(existing, req, res);
      await existing.transport.handleRequest(req, res, body);
      return;
    }
    if (sessionId !== undefined) {
      sendJsonRpcError(res, 404, -32001, 'Session not found: it expired or was closed. Start a new session with initialize.');
      return;
    }
    // No session, no stream to offer: what the transport spec expects a client to understand.
    if (req.method === 'GET') {
      res.setHeader('Allow', 'POST');
      sendJsonRpcError(res, 405, -32000, 'Method not allowed: GET /mcp needs an Mcp-Session-Id header; start a session with POST initialize.');
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      sendJsonRpcError(res, 400, -32000, 'Bad request: no Mcp-Session-Id header; the first request of a session must be initialize.');
      return;
    }
    if (!makeRoom(owner.id)) {
      throw new GleanerError(
        'RATE_LIMIT_EXCEEDED',
        `This key has ${maxPerOwner} MCP sessions open, each with a request in progress. Wait for one to finish, or close one (DELETE /mcp with its Mcp-Session-Id).`,
      );
    }
    opening.set(owner.id, (opening.get(owner.id) ?? 0) + 1);
    try {
      await owner.admit?.();
      const server = createSdkServer(identity, tools, accountOfRequest, { onCancelled: (requestId) => transport.closeSSEStream(requestId) });
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          const session: Session = { transport, server, owner: owner.id, lastSeen: Date.now(), busy: 0, streams: 0 };
          sessions.set(id, session);
          track(session, req, res);
        },
        onsessionclosed: (id) => void sessions.delete(id),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
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

  return { handle, close };
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
