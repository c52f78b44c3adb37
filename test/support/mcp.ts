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

/**
 * A tool result's page as data: a transcript's or a page's words are in the text block and the
 * result's `_meta` (for apps), not in structuredContent (docs/mcp-paging.md); other replies' in structuredContent.
 */
export function pageData(result: unknown): any {
  const { _meta, structuredContent } = result as { _meta?: Record<string, unknown>; structuredContent?: unknown };
  return _meta?.['gleaner/page'] ?? structuredContent;
}
