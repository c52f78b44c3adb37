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

/**
 * An MCP error result's code and message, as the envelope shape `{ error: { code, message } }`:
 * read from its one text block, `CODE: message` (errors carry no structuredContent). A result with
 * more than one block, or a block in another form, gives undefined.
 */
export function errorEnvelope(result: unknown): any {
  const parts = (result as { content?: Array<{ text?: string }> }).content ?? [];
  const match = parts.length === 1 && parts[0].text ? /^([A-Z][A-Z_]+): ([\s\S]+)$/.exec(parts[0].text) : null;
  return match ? { error: { code: match[1], message: match[2] } } : undefined;
}
