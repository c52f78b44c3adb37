/** An MCP client over streamable HTTP, connected to a test server's /mcp with a key. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connectMcp(baseUrl: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'gleaner-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } });
  await client.connect(transport);
  return client;
}
