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
import { CallToolRequestSchema, CreateMessageResultSchema, ErrorCode as RpcErrorCode, ListToolsRequestSchema, McpError, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutcome, ToolSet } from './toolset.js';
import { clock, IMAGE_REFUSAL, ImagesRefused, type ChatModel, type ChatRequest } from '../../ai/chat.js';
import { ERROR_CODES, GleanerError, type ErrorCode } from '../../errors.js';
import { requestsTotal } from '../../observability/metrics.js';
import { apiKeyFrom } from '../auth.js';

/**
 * tools/call with `arguments` of any JSON type. The SDK's own schema (and the Server's wrapper
 * around tools/call handlers) reject a non-object with a raw validation dump as -32603/-32602;
 * taking anything here lets the tool answer INVALID_REQUEST like REST does.
 */
const LooseCallToolRequestSchema = CallToolRequestSchema.extend({
  params: CallToolRequestSchema.shape.params.extend({ arguments: z.unknown().optional() }),
});

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

/** One SDK server over the tool set; `apiKeyOf` says which key a call acts as. */
function createSdkServer(identity: ServerIdentity, tools: ToolSet, apiKeyOf: (headers: Record<string, unknown> | undefined) => string | undefined): Server {
  const server = new Server(
    { name: identity.name, version: identity.version },
    { capabilities: { tools: {}, logging: {} }, instructions: identity.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));
  // Registered on Protocol, past the Server's tools/call wrapper: see LooseCallToolRequestSchema.
  Protocol.prototype.setRequestHandler.call(server, LooseCallToolRequestSchema, async (request, extra) => {
    // Absent arguments are no arguments; null, a string, an array or a number are a mistake.
    const args = request.params.arguments === undefined ? {} : request.params.arguments;
    if (!isPlainObject(args)) {
      const outcome = invalidArguments();
      requestsTotal.inc({ surface: 'mcp', operation: request.params.name, status: outcomeStatus(outcome) });
      return { content: [{ type: 'text' as const, text: outcome.text }, { type: 'text' as const, text: JSON.stringify(outcome.body) }], isError: true };
    }
    // An unknown tool is a protocol error (JSON-RPC), not a failed call of a tool.
    if (!tools.has(request.params.name)) throw new McpError(RpcErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list names the tools.`);
    const progressToken = request.params._meta?.progressToken;
    const canSample = Boolean(server.getClientCapabilities()?.sampling);
    const outcome = await tools.call(request.params.name, args, {
      sampling: canSample ? samplingModel(extra.sendRequest as unknown as SendRequest) : undefined,
      apiKey: apiKeyOf(extra.requestInfo?.headers as Record<string, unknown> | undefined),
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
    requestsTotal.inc({ surface: 'mcp', operation: request.params.name, status: outcomeStatus(outcome) });
    // structuredContent must match the tool's outputSchema, which describes successes: an error
    // carries its envelope as JSON in a second text part instead.
    if (outcome.isError) {
      return { content: [{ type: 'text' as const, text: outcome.text }, { type: 'text' as const, text: JSON.stringify(outcome.body) }], isError: true };
    }
    return { content: [{ type: 'text' as const, text: outcome.text }], structuredContent: outcome.body as Record<string, unknown> };
  });
  return server;
}

/** Serves the tools over stdio; stdout carries the protocol only. */
export async function serveStdio(identity: ServerIdentity, tools: ToolSet, apiKey: string | undefined): Promise<() => Promise<void>> {
  const server = createSdkServer(identity, withStdioKeyHint(tools, apiKey !== undefined), () => apiKey);
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

/** Who opens and uses a session: the key's account (or "keyless"), and how its rate is taken. */
export interface SessionOwner {
  id: string;
  /** Counts opening a session against the key's rate; throws RATE_LIMIT_EXCEEDED. */
  admit?: () => Promise<unknown>;
}

export interface StreamableHttpOptions {
  /** A session unused this long is closed (clients that vanish without DELETE). */
  idleMs?: number;
  /** Open sessions one key may hold at once. */
  maxSessionsPerOwner?: number;
}

/**
 * Streamable HTTP with stateful sessions (sampling needs them). The caller has already checked
 * Host, Origin and the key; this routes each request to its session's transport. A session belongs
 * to the key that opened it: any other key is told it does not exist, for use and DELETE alike.
 */
export function createStreamableHttpHandler(identity: ServerIdentity, tools: ToolSet, options: StreamableHttpOptions = {}) {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server; lastSeen: number; owner: string }>();
  // Sessions being opened, so concurrent initializes cannot pass the cap together.
  const opening = new Map<string, number>();
  const idleMs = options.idleMs ?? 10 * 60_000;
  const maxPerOwner = options.maxSessionsPerOwner ?? 10;
  const countOf = (owner: string) => [...sessions.values()].filter((s) => s.owner === owner).length + (opening.get(owner) ?? 0);
  const sweeper = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const [id, session] of sessions) {
      if (session.lastSeen < cutoff) {
        sessions.delete(id);
        void session.server.close().catch(() => undefined);
      }
    }
  }, Math.min(idleMs, 60_000));
  sweeper.unref();
  async function handle(req: IncomingMessage, res: ServerResponse, body: unknown, owner: SessionOwner): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const found = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const existing = found?.owner === owner.id ? found : undefined;
    if (existing) {
      existing.lastSeen = Date.now();
      await existing.transport.handleRequest(req, res, body);
      return;
    }
    if (sessionId !== undefined) {
      sendJsonRpcError(res, 404, -32001, 'Session not found: it expired or was closed. Start a new session with initialize.');
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      sendJsonRpcError(res, 400, -32000, 'Bad request: no Mcp-Session-Id header; the first request of a session must be initialize.');
      return;
    }
    if (countOf(owner.id) >= maxPerOwner) {
      throw new GleanerError(
        'RATE_LIMIT_EXCEEDED',
        `This key already has ${maxPerOwner} open MCP sessions. Close one (DELETE /mcp with its Mcp-Session-Id) or reuse it; idle sessions close after ${Math.round(idleMs / 60_000)} min.`,
      );
    }
    await owner.admit?.();
    opening.set(owner.id, (opening.get(owner.id) ?? 0) + 1);
    try {
      const server = createSdkServer(identity, tools, apiKeyFrom);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, { transport, server, lastSeen: Date.now(), owner: owner.id }),
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
