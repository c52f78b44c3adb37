/**
 * Every use of the MCP SDK lives in this file: tool handlers elsewhere are plain functions, so a
 * move to the SDK's next major version touches this file alone.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, CreateMessageResultSchema, ErrorCode, ListToolsRequestSchema, McpError, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSet } from './toolset.js';
import type { ChatModel, ChatRequest } from '../../ai/chat.js';

type SendRequest = (request: { method: 'sampling/createMessage'; params: Record<string, unknown> }, schema: typeof CreateMessageResultSchema) => Promise<{ content: unknown }>;

/** The client's own model through MCP sampling (sampling/createMessage on the tool call's stream). */
function samplingModel(sendRequest: SendRequest): ChatModel {
  return {
    name: 'mcp-sampling',
    async complete(request: ChatRequest) {
      const schemaNote = request.schema
        ? `\n\nAnswer with one JSON value only, no prose and no code fence, that validates against this JSON Schema:\n${JSON.stringify(request.schema)}`
        : '';
      const result = await sendRequest(
        {
          method: 'sampling/createMessage',
          params: {
            systemPrompt: request.system,
            messages: [{ role: 'user', content: { type: 'text', text: `${request.prompt}${schemaNote}` } }],
            maxTokens: request.maxTokens ?? 2_000,
            includeContext: 'none',
          },
        },
        CreateMessageResultSchema,
      );
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

/** One SDK server over the tool set; `apiKeyOf` says which key a call acts as. */
function createSdkServer(identity: ServerIdentity, tools: ToolSet, apiKeyOf: (headers: Record<string, unknown> | undefined) => string | undefined): Server {
  const server = new Server(
    { name: identity.name, version: identity.version },
    { capabilities: { tools: {}, logging: {} }, instructions: identity.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // An unknown tool is a protocol error (JSON-RPC), not a failed call of a tool.
    if (!tools.has(request.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list names the tools.`);
    const progressToken = request.params._meta?.progressToken;
    const canSample = Boolean(server.getClientCapabilities()?.sampling);
    const outcome = await tools.call(request.params.name, request.params.arguments ?? {}, {
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
  const server = createSdkServer(identity, tools, () => apiKey);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  return () => server.close();
}

/**
 * Streamable HTTP with stateful sessions (sampling needs them). The caller has already checked
 * Host, Origin and the key; this routes each request to its session's transport.
 */
export function createStreamableHttpHandler(identity: ServerIdentity, tools: ToolSet, options: { idleMs?: number } = {}) {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server; lastSeen: number }>();
  // Clients that vanish without DELETE would otherwise keep their session (and its server) forever.
  const idleMs = options.idleMs ?? 30 * 60_000;
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
  const apiKeyOf = (headers: Record<string, unknown> | undefined) => {
    const value = headers?.['x-api-key'];
    return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined;
  };

  async function handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
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
    const server = createSdkServer(identity, tools, apiKeyOf);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server, lastSeen: Date.now() }),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
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
