import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { TEST_OPERATIONS, gates } from '../support/test-operations.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { selectOperations } from '../../src/surfaces/mcp/descriptors.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ operations: TEST_OPERATIONS, env: { GLEANER_MCP_WAIT_SECONDS: '5' } });
  key = await server.createKey('Free');
});
afterAll(() => server.close());

function structured(result: unknown): any {
  return (result as { structuredContent: unknown }).structuredContent;
}

const envelope = errorEnvelope;

/** The tools listed by default (GLEANER_MCP_TOOLS unset): not REST-only views, not tools listed on request or with their group only. */
const DEFAULT_TOOLS = selectOperations(OPERATIONS, undefined);

describe('MCP over streamable HTTP', () => {
  it('lists one tool per operation, with the bounds of its input', async () => {
    const client = await connectMcp(server.baseUrl, key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(selectOperations(TEST_OPERATIONS, undefined).map((o) => o.name).sort());
    const echo = tools.find((t) => t.name === 'test_post_echo')!;
    expect((echo.inputSchema.properties as any).items.maxItems).toBe(3);
    await client.close();
  });

  it('declares an outputSchema on every tool, and annotations that match what a call does', async () => {
    const client = await connectMcp(server.baseUrl, key);
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.outputSchema?.type, tool.name).toBe('object');
    const annotations = (name: string) => tools.find((t) => t.name === name)!.annotations!;
    // Hints equal to the MCP defaults (readOnly false, destructive true, idempotent false, open world true) are left out.
    expect(annotations('web_crawl')).toEqual({ destructiveHint: false });
    expect(annotations('video_analysis')).toEqual({ destructiveHint: false });
    // Charged calls are charged again when repeated; free lookups are idempotent.
    expect(annotations('web_scrape')).toEqual({ readOnlyHint: true });
    expect(annotations('account')).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    await client.close();
  });

  it('answers an unknown tool with a JSON-RPC error, not a tool result', async () => {
    const client = await connectMcp(server.baseUrl, key);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('no_such_tool') });
    await client.close();
  });

  it('calls account through the gate', async () => {
    const client = await connectMcp(server.baseUrl, key);
    const result = await client.callTool({ name: 'account', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({ plan: 'Free', credits: 100 });
    await client.close();
  });

  it('bad input is an isError result with the REST code and message, and charges nothing', async () => {
    const client = await connectMcp(server.baseUrl, key);
    const result = await client.callTool({ name: 'test_post_echo', arguments: { items: [] } });
    expect(result.isError).toBe(true);
    expect(structured(result)).toBeUndefined();
    expect(envelope(result).error.code).toBe('INVALID_REQUEST');
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(/^INVALID_REQUEST: .*items/);
    const account = structured(await client.callTool({ name: 'account', arguments: {} }));
    expect(account.credits).toBe(100);
    await client.close();
  });

  it('a job tool waits for its job and reports progress', async () => {
    const client = await connectMcp(server.baseUrl, key);
    const progress: number[] = [];
    const call = client.callTool({ name: 'test_job', arguments: { steps: 2 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    for (let released = 0; released < 2; ) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (gates.listenerCount('step') > 0) {
        gates.emit('step');
        released++;
      }
    }
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({ status: 'completed', result: { steps: 2 } });
    expect(progress).toEqual([1, 2]);
    await client.close();
  });

  it('refuses /mcp without a key, and a foreign Host', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const keyless = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(keyless.status).toBe(401);
    expect(((await keyless.json()) as any).error.code).toBe('UNAUTHORIZED');
    const port = new URL(server.baseUrl).port;
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...headers, host: 'evil.example.com', 'x-api-key': key } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    expect(status).toBe(403);
  });
});

describe('MCP keyless mode', () => {
  it('is explicit: lists tools without a key but still refuses tool calls without one', async () => {
    const keyless = await startTestServer({ env: { GLEANER_MCP_KEYLESS: 'true' } });
    try {
      const client = new Client({ name: 't', version: '1' });
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      await client.connect(new StreamableHTTPClientTransport(new URL(`${keyless.baseUrl}/mcp`)));
      expect((await client.listTools()).tools.length).toBe(DEFAULT_TOOLS.length);
      const result = await client.callTool({ name: 'account', arguments: {} });
      expect(result.isError).toBe(true);
      expect(envelope(result).error.code).toBe('UNAUTHORIZED');
      await client.close();
    } finally {
      await keyless.close();
    }
  });
});

describe('MCP over stdio', () => {
  it('lists the default tools and calls account with GLEANER_API_KEY; stdout carries only the protocol', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [GLEANER_MAIN, 'mcp'],
      env: { ...(process.env as Record<string, string>), GLEANER_DATA_DIR: server.dataDir, GLEANER_API_KEY: key, GLEANER_LOG_LEVEL: 'info' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(DEFAULT_TOOLS.map((o) => o.name).sort());
    // The spec's bounds travel in the input schemas.
    const property = (tool: string, name: string) => (tools.find((t) => t.name === tool)!.inputSchema.properties as Record<string, any>)[name];
    expect(property('youtube_search', 'limit')).toMatchObject({ minimum: 1, maximum: 5000, default: 20 });
    expect(property('youtube_search', 'query')).toMatchObject({ maxLength: 500 });
    expect(property('web_map', 'limit')).toMatchObject({ minimum: 1, maximum: 500, default: 200 });
    expect(property('web_crawl', 'maxPages')).toMatchObject({ minimum: 1, maximum: 500 });
    expect(property('web_crawl', 'maxPages').description).toContain('default 100');
    expect(property('youtube_transcript_batch', 'urls')).toMatchObject({ minItems: 1, maxItems: 50 });
    expect(property('video_analysis', 'prompt')).toMatchObject({ maxLength: 1000 });
    const result = await client.callTool({ name: 'account', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(structured(result).plan).toBe('Free');
    await client.close();
    // A child process that starts tsx: slow on a busy machine, bounded by events, not by time.
  }, 120_000);
});
