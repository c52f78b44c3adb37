/**
 * Paging through clients Gleaner's developers did not write, as their users run them: LangChain's
 * `@langchain/mcp-adapters` (its tools check arguments against the listed input schema, and hand
 * the model a ToolMessage) and the AI SDK's `@ai-sdk/mcp` (its tools hand the model what their
 * `toModelOutput` makes of a result), without and with the server's outputSchema. A "model" here
 * reads only what the client would put in its context and follows the footer (or nextCursor) alone.
 *
 * The characters each client hands its model for one page are printed (docs/mcp-clients.md quotes them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadMcpTools } from '@langchain/mcp-adapters';
import type { ToolMessage } from '@langchain/core/messages';
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { jsonSchema } from 'ai';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcp.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { LONG_VIDEO, startLongPageSite, thirtyMinuteCaptions } from '../support/long-replies.js';

let server: TestServer;
let replay: YoutubeReplay;
let site: { url: string; close: () => Promise<void> };
let key: string;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  replay.captionBodies.set(LONG_VIDEO, thirtyMinuteCaptions());
  site = await startLongPageSite();
  server = await startTestServer({
    env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}` },
  });
  // No rate limit: these tests read a few hundred pages.
  key = await server.createKey('Enterprise');
}, 60_000);

afterAll(async () => {
  await server.close();
  await replay.close();
  await site.close();
});

const FOOTER = /\[Page (\d+) of (\d+)(?:\. For the next page call (\w+) with cursor="([^"]+)"\.|: the (?:last|whole reply)\.)\]$/;

/** The REST reply's content as the MCP text shows it: a page's markdown then its links; a transcript's "[mm:ss] text" lines. */
async function restText(path: string): Promise<string> {
  const reply = await server.request('GET', path, { apiKey: key });
  expect(reply.status).toBe(200);
  const body = reply.body;
  if (typeof body.content === 'string') return body.content + (body.urls?.length ? `\n\nLinks on the page:\n${body.urls.map((url: string) => `- ${url}\n`).join('')}` : '');
  const clock = (ms: number) => {
    const s = Math.floor(ms / 1000);
    return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
  };
  return (body.content as Array<{ offset: number; text: string }>).map((segment) => `[${clock(segment.offset)}] ${segment.text}\n`).join('');
}

/** A page's content as the model read it: its first text block without the header (the part before the first blank line). */
function body(page: string): string {
  return page.slice(page.indexOf('\n\n') + 2);
}

interface Measure {
  pages: number;
  /** Characters the model got for the first page. */
  modelChars: number;
  structuredChars: number;
  /** What it would have got had the page been one text block: LangChain merges that with structuredContent into one JSON string. */
  mergedChars: number;
}

describe('LangChain (@langchain/mcp-adapters) follows the footer alone', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(server.baseUrl, key);
  });
  afterAll(() => client.close());

  /**
   * Calls a LangChain tool as an agent does (a tool call in, a ToolMessage out) and reads its
   * content as the model gets it. LangChain hands a lone text block to the model merged with
   * structuredContent as one JSON string; a result of several blocks reaches it as those blocks.
   */
  async function readAll(name: string, args: Record<string, unknown>): Promise<{ text: string; measure: Measure }> {
    const tools = await loadMcpTools('gleaner', client);
    const tool = tools.find((t) => t.name === name)!;
    let text = '';
    let measure: Measure | undefined;
    let next: Record<string, unknown> | undefined = args;
    for (let n = 1; next; n++) {
      const message = (await tool.invoke({ type: 'tool_call', id: `call-${n}`, name, args: next })) as ToolMessage;
      expect(Array.isArray(message.content), `page ${n} reached the model as ${typeof message.content}`).toBe(true);
      const blocks = message.content as Array<Record<string, unknown>>;
      // Text blocks only, holding nothing but their text: the model reads each character once.
      for (const block of blocks) expect(Object.keys(block).sort()).toEqual(['text', 'type']);
      expect(blocks).toHaveLength(2);
      const read = blocks.map((block) => block.text as string).join('\n\n');
      const footer = FOOTER.exec(blocks[1].text as string);
      expect(footer, read.slice(-300)).not.toBeNull();
      expect(Number(footer![1])).toBe(n);
      text += body(blocks[0].text as string);
      const structured = (message.artifact as Array<{ type: string; data: unknown }>).find((a) => a.type === 'mcp_structured_content')!.data;
      measure ??= {
        pages: Number(footer![2]),
        modelChars: blocks.reduce((sum, block) => sum + (block.text as string).length, 0),
        structuredChars: JSON.stringify(structured).length,
        mergedChars: JSON.stringify({ type: 'text', text: read, structuredContent: structured }).length,
      };
      // The next call is what the footer says, and nothing else: the cursor alone.
      next = footer![4] ? { cursor: footer![4] } : undefined;
      if (footer![3]) expect(footer![3]).toBe(name);
      expect(n).toBeLessThan(200);
    }
    return { text, measure: measure! };
  }

  it('reads every page of a 230 KB scrape, each page once, and the pages are the REST reply', async () => {
    const { text, measure } = await readAll('web_scrape', { url: site.url });
    expect(text).toBe(await restText(`/v1/web/scrape?url=${encodeURIComponent(site.url)}`));
    expect(measure.pages).toBeGreaterThanOrEqual(11);
    // Not the text and structuredContent together; and structuredContent is small beside the text it goes with.
    expect(measure.structuredChars).toBeLessThan(measure.modelChars * 0.3);
    console.info(`LangChain web_scrape page 1 of ${measure.pages}: model ${measure.modelChars} chars (structuredContent ${measure.structuredChars}; as one merged block it would be ${measure.mergedChars})`);
  }, 180_000);

  it('reads every page of a 30-minute transcript, with a page size of its own kept by the cursor', async () => {
    const { text, measure } = await readAll('youtube_transcript', { url: LONG_VIDEO, maxChars: 5_000 });
    expect(text).toBe(await restText(`/v1/youtube/transcript?video_id=${LONG_VIDEO}`));
    expect(measure.pages).toBeGreaterThan(5);
    expect(measure.modelChars).toBeLessThan(5_000 + 300);
    console.info(`LangChain youtube_transcript (maxChars 5000) page 1 of ${measure.pages}: model ${measure.modelChars} chars (structuredContent ${measure.structuredChars}; merged ${measure.mergedChars})`);
    const byDefault = await readAll('youtube_transcript', { url: LONG_VIDEO });
    expect(byDefault.text).toBe(text);
    console.info(`LangChain youtube_transcript page 1 of ${byDefault.measure.pages}: model ${byDefault.measure.modelChars} chars (structuredContent ${byDefault.measure.structuredChars}; merged ${byDefault.measure.mergedChars})`);
  }, 180_000);
});

describe('the AI SDK (@ai-sdk/mcp)', () => {
  let mcp: MCPClient;
  beforeAll(async () => {
    mcp = await createMCPClient({ transport: { type: 'http', url: `${server.baseUrl}/mcp`, headers: { 'x-api-key': key } } });
  });
  afterAll(() => mcp.close());

  type AnyTool = { execute: (args: unknown, options: unknown) => Promise<unknown>; toModelOutput?: (options: { toolCallId: string; input: unknown; output: unknown }) => unknown };

  /** What the model gets for one call: the tool's toModelOutput of its execute's output, as the SDK does it. */
  async function modelOutput(tool: AnyTool, args: Record<string, unknown>, n: number): Promise<{ type: string; value: any }> {
    const output = await tool.execute(args, { toolCallId: `call-${n}`, messages: [] });
    return (await tool.toModelOutput!({ toolCallId: `call-${n}`, input: args, output })) as { type: string; value: any };
  }

  it('without outputSchema: the model gets the text blocks only, and pages a transcript to the end by the footer', async () => {
    const tools = (await mcp.tools()) as unknown as Record<string, AnyTool>;
    let text = '';
    let first: number | undefined;
    let next: Record<string, unknown> | undefined = { url: LONG_VIDEO };
    for (let n = 1; next; n++) {
      const out = await modelOutput(tools.youtube_transcript, next, n);
      expect(out.type).toBe('content');
      const parts = out.value as Array<{ type: string; text: string }>;
      expect(parts.map((part) => part.type)).toEqual(['text', 'text']);
      const read = parts.map((part) => part.text).join('\n\n');
      first ??= read.length;
      const footer = FOOTER.exec(parts[1].text)!;
      text += body(parts[0].text);
      next = footer[4] ? { cursor: footer[4] } : undefined;
    }
    expect(text).toBe(await restText(`/v1/youtube/transcript?video_id=${LONG_VIDEO}`));
    console.info(`AI SDK (no outputSchema) youtube_transcript page 1: model ${first} chars`);
  }, 180_000);

  it("with the server's outputSchema: each page's structuredContent passes the SDK's check and nextCursor leads to the last page; the words are in the text blocks only", async () => {
    const listed = await mcp.listTools();
    const schemas = Object.fromEntries(
      ['web_scrape', 'youtube_transcript'].map((name) => {
        const tool = listed.tools.find((t) => t.name === name)!;
        return [name, { inputSchema: jsonSchema(tool.inputSchema as any), outputSchema: jsonSchema(tool.outputSchema as any) }];
      }),
    );
    const tools = (await mcp.tools({ schemas: schemas as any })) as unknown as Record<string, AnyTool>;
    for (const [name, args] of [
      ['web_scrape', { url: site.url }],
      ['youtube_transcript', { url: LONG_VIDEO }],
    ] as const) {
      // The typed output is structuredContent, checked by the SDK: the reply's facts and nextCursor, not the page's words.
      let next: Record<string, unknown> | undefined = args;
      let pages = 0;
      let chars: number | undefined;
      for (; next; pages++) {
        const output = (await tools[name].execute(next, { toolCallId: `call-${pages}`, messages: [] })) as Record<string, unknown>;
        expect(output).not.toHaveProperty('content');
        chars ??= JSON.stringify(output).length;
        next = output.nextCursor ? { cursor: output.nextCursor } : undefined;
        expect(pages).toBeLessThan(100);
      }
      const plain = (await mcp.tools()) as unknown as Record<string, AnyTool>;
      const first = (await plain[name].execute(args, { toolCallId: 'count', messages: [] })) as { content: Array<{ text: string }> };
      expect(pages).toBe(Number(FOOTER.exec(first.content[1].text)![2]));
      console.info(`AI SDK (outputSchema) ${name} page 1: typed output ${chars} chars of JSON, ${pages} pages by nextCursor`);
    }
  }, 240_000);
});
