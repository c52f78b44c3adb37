/**
 * MCP clients of the 2026-07-28 protocol for tests: the SDK's v2 Client (it negotiates with
 * server/discover and sends every request stateless, its version and capabilities in `_meta`), and
 * a Tasks session of @modelcontextprotocol/ext-tasks on top of it, whose requests go over the wire
 * as the extension's Streamable HTTP binding asks (Mcp-Method, Mcp-Name = the tool or task id).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient } from '@modelcontextprotocol/ext-tasks/client';

export const MODERN = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

export async function connectMcpV2(baseUrl: string, apiKey: string, capabilities: Record<string, unknown> = {}): Promise<Client> {
  // Pinned to 2026-07-28: connect() must find it in server/discover, no fallback to initialize.
  const client = new Client({ name: 'gleaner-test-v2', version: '2.0.0' }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  return client;
}

/** The JSON-RPC message of a reply, whether it came as JSON or as SSE events (the last one with an id). */
export function lastRpcMessage(text: string): any {
  if (text.trimStart().startsWith('{')) return JSON.parse(text);
  const messages = text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
  return messages.filter((m) => 'id' in m && ('result' in m || 'error' in m)).at(-1);
}

/** Posts one 2026-07-28 request as it goes on the wire; `post` lets a test send it where it likes. */
export function modernDispatch(baseUrl: string, apiKey: string, clientCapabilities: Record<string, unknown>) {
  let id = 1000;
  return async (request: any): Promise<any> => {
    const message = { jsonrpc: '2.0', ...request, id: request.id ?? id++ };
    const params = message.params ?? {};
    const name = message.method === 'tools/call' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
    message.params = {
      ...params,
      _meta: {
        ...(params._meta ?? {}),
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'gleaner-test-v2', version: '2.0.0' },
        'io.modelcontextprotocol/clientCapabilities': clientCapabilities,
      },
    };
    const response = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': apiKey,
        'mcp-protocol-version': MODERN,
        'mcp-method': message.method,
        ...(name !== undefined ? { 'mcp-name': String(name) } : {}),
      },
      body: JSON.stringify(message),
    });
    return lastRpcMessage(await response.text());
  };
}

/** A Tasks session (ext-tasks) over a connected v2 client, its requests sent through `dispatch`. */
export function tasksSession(client: Client, dispatch: (request: any) => Promise<any>, clientCapabilities: Record<string, unknown>) {
  return createTaskSessionFromClient(client, {
    endpointId: 'gleaner',
    rawDispatch: async (request) => {
      const reply = await dispatch(request);
      return reply.error ? { kind: 'error', error: reply.error } : { kind: 'result', result: reply.result };
    },
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: { name: 'gleaner-test-v2', version: '2.0.0' }, clientCapabilities: clientCapabilities as never },
  });
}
