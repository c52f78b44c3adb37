/**
 * Issue 11, the surfaces' items: slow clients (9), MCP sessions bound to their key (10), a
 * malformed %-escape and non-object tool arguments (11). Real servers on loopback.
 */
import net from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { TEST_OPERATIONS } from '../support/test-operations.js';
import { selectOperations } from '../../src/surfaces/mcp/descriptors.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  // A short body deadline so the keyed slow-body case ends on the server's own timer.
  server = await startTestServer({ operations: TEST_OPERATIONS, timeouts: { bodyDeadlineMs: 300 }, env: { GLEANER_MCP_MAX_SESSIONS: '2' } });
  key = await server.createKey('Enterprise');
});
afterAll(() => server.close());

/** Sends raw bytes and collects everything the server writes until it closes the connection. */
async function rawExchange(head: string, partialBody: string): Promise<string> {
  const { port } = new URL(server.baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.write(head + partialBody);
  // The body is never finished: only the server can end this exchange.
  await once(socket, 'close');
  return Buffer.concat(received).toString('utf8');
}

function slowHead(path: string, headers: Record<string, string> = {}): string {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 100000', ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

describe('slow clients (issue 11.9)', () => {
  it('a REST request without a key is refused before its body is read, and the connection is closed', async () => {
    const reply = await rawExchange(slowHead('/v1/test/post-echo'), '{"items": [');
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply).toMatch(/"code":"UNAUTHORIZED"/);
    expect(reply.toLowerCase()).toMatch(/www-authenticate: bearer realm="gleaner"/);
  });

  it('/mcp without a key is refused before its body is read, and the connection is closed', async () => {
    const reply = await rawExchange(slowHead('/mcp', { Accept: 'application/json, text/event-stream' }), '{"jsonrpc":');
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('fifty slow-body connections without a key are all closed by the server', async () => {
    const replies = await Promise.all(Array.from({ length: 50 }, () => rawExchange(slowHead('/v1/test/post-echo'), '{')));
    expect(replies.filter((r) => r.startsWith('HTTP/1.1 401 '))).toHaveLength(50);
  });

  it('a keyed body that does not arrive by the deadline is a 400 and the connection is closed', async () => {
    const reply = await rawExchange(slowHead('/v1/test/post-echo', { 'x-api-key': key }), '{"items": [');
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply).toMatch(/did not arrive within/);
  });
});

describe('idle connections', () => {
  it("a connection left idle longer than Node's 5 s default still carries the client's next request", async () => {
    // The MCP sampling stall (docs/testing.md): a client busy for a few seconds answered on a connection the server
    // had closed as idle, and its answer was lost. The server now keeps idle connections 65 s (Keep-Alive says so).
    const { port } = new URL(server.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const replied = (count: number) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if ((received.match(/HTTP\/1\.1 200 /g) ?? []).length >= count) resolve();
        };
        socket.on('data', check);
        socket.once('close', () => reject(new Error(`the server closed the connection; it had sent: ${received.slice(0, 300)}`)));
        check();
      });
    const ask = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    socket.write(ask);
    await replied(1);
    expect(received.toLowerCase()).toMatch(/keep-alive: timeout=65/);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    socket.write(ask);
    await replied(2);
    socket.destroy();
  });
});

describe('small ones (issue 11.11)', () => {
  it('a malformed %-escape in a path parameter is a 400 envelope, with or without a key', async () => {
    for (const apiKey of [undefined, key]) {
      const response = await server.request('GET', '/v1/jobs/%ZZ', { apiKey });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('INVALID_REQUEST');
      expect(response.body.error.message).toMatch(/jobId/);
    }
  });

  it('tools/call with non-object arguments is an isError INVALID_REQUEST result, not -32603', async () => {
    for (const args of ['a string', [1, 2], 42, null]) {
      const response = await fetch(`${server.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': key,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'account', arguments: args } }),
      });
      const text = await response.text();
      const message = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))!.slice(6));
      expect(message.error, `arguments ${JSON.stringify(args)}`).toBeUndefined();
      expect(message.result.isError).toBe(true);
      expect(errorEnvelope(message.result).error.code).toBe('INVALID_REQUEST');
      expect(message.result.content[0].text).toBe('INVALID_REQUEST: The tool arguments must be a JSON object of named parameters.');
    }
  });
});

/** A 2025 client that offers its model: the one kind that still gets a session (issue 27). */
async function connectSampling(baseUrl: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'sampling-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
  return client;
}

describe('MCP sampling sessions (issue 11.10; only 2025 clients offering sampling have sessions since issue 27)', () => {
  const headers = (apiKey: string, sessionId?: string) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-api-key': apiKey,
    'mcp-protocol-version': '2025-06-18',
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  });
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { sampling: {} }, clientInfo: { name: 't', version: '1' } } });

  it('a session cannot be used or deleted with another key', async () => {
    const other = await server.createKey('Enterprise');
    const client = await connectSampling(server.baseUrl, key);
    const sessionId = (client as unknown as { transport: StreamableHTTPClientTransport }).transport.sessionId!;
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const used = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: headers(other, sessionId), body: list });
    expect(used.status).toBe(404);
    await used.text();
    const deleted = await fetch(`${server.baseUrl}/mcp`, { method: 'DELETE', headers: headers(other, sessionId) });
    expect(deleted.status).toBe(404);
    await deleted.text();
    // Still alive for its own key.
    expect((await client.listTools()).tools.length).toBe(selectOperations(TEST_OPERATIONS, undefined).length);
    await client.close();
  });

  it('caps the open sessions of one key: at the cap the least recently used one that is not busy makes room (issue 19.3)', async () => {
    const capped = await server.createKey('Enterprise');
    const first = await connectSampling(server.baseUrl, capped);
    const second = await connectSampling(server.baseUrl, capped);
    await second.listTools();
    // Both clients are connected, neither is answering a request: the first, used least recently, is closed.
    const third = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: headers(capped), body: init });
    expect(third.status).toBe(200);
    await third.text();
    await expect(first.listTools()).rejects.toThrow(/Session not found/);
    expect((await second.listTools()).tools.length).toBeGreaterThan(0);
    await first.close();
    await second.close();
  });

  it("opening a session takes a request from the key's rate", async () => {
    const limited = await startTestServer({ operations: TEST_OPERATIONS, env: { GLEANER_MCP_MAX_SESSIONS: '100' } });
    try {
      const free = await limited.createKey('Free'); // 10 requests a minute, bursts of 10
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) {
        const response = await fetch(`${limited.baseUrl}/mcp`, { method: 'POST', headers: headers(free), body: init });
        statuses.push(response.status);
        await response.text();
      }
      expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
      expect(statuses[10]).toBe(429);
      // The REST side sees the same bucket: it is empty.
      expect((await limited.request('GET', '/v1/me', { apiKey: free })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
