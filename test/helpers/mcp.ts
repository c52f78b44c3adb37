/** An MCP client over streamable HTTP, connected to a test server's /mcp with a key. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connectMcp(baseUrl: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'gleaner-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } });
  await client.connect(transport);
  // Listing the tools makes the SDK client check every later tool result's structuredContent
  // against the tool's outputSchema (and fail a success without one).
  await client.listTools();
  return client;
}

/** An MCP error result's envelope: the JSON in its second text part (errors carry no structuredContent). */
export function errorEnvelope(result: unknown): any {
  const parts = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return parts[1]?.text ? JSON.parse(parts[1].text) : undefined;
}
