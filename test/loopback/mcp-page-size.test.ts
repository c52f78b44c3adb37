/**
 * What a page costs a model on a host that forwards both faces of a result (ChatGPT's model sees
 * the text blocks and structuredContent): at most 1.3x the text, on a transcript page and a scrape
 * page. The page's words are in the text block once; structuredContent holds the reply's facts and
 * nextCursor; the page as data travels in the result's `_meta` (for apps; hosts do not forward it).
 * The figures are printed (docs/mcp-paging.md quotes them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, pageData } from '../support/mcp.js';
import { startYoutubeReplay, type YoutubeReplay } from '../support/youtube-replay.js';
import { LONG_VIDEO, startLongPageSite, thirtyMinuteCaptions } from '../support/long-replies.js';

let server: TestServer;
let replay: YoutubeReplay;
let site: { url: string; close: () => Promise<void> };
let client: Client;

beforeAll(async () => {
  replay = await startYoutubeReplay();
  replay.captionBodies.set(LONG_VIDEO, thirtyMinuteCaptions());
  site = await startLongPageSite();
  server = await startTestServer({
    env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_UPSTREAM_OVERRIDES: `youtube.com=${replay.origin},googleapis.com=${replay.origin}` },
  });
  // connectMcp lists the tools: the SDK client then checks each structuredContent against its outputSchema.
  client = await connectMcp(server.baseUrl, await server.createKey('Enterprise'));
}, 60_000);

afterAll(async () => {
  await client.close();
  await server.close();
  await replay.close();
  await site.close();
});

async function measure(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const text = (result.content as Array<{ type: string; text?: string }>).filter((block) => block.type === 'text').reduce((sum, block) => sum + block.text!.length, 0);
  const structured = JSON.stringify(result.structuredContent).length;
  console.info(`${name} page 1: text ${text} chars, structuredContent ${structured} (${((text + structured) / text).toFixed(2)}x the text)`);
  return { result, text, structured };
}

describe('a page sent to a host that forwards text and structuredContent', () => {
  it('costs at most 1.3x its text on a transcript page, and the page is whole in the text and in _meta', async () => {
    const { result, text, structured } = await measure('youtube_transcript', { url: LONG_VIDEO });
    expect(text + structured).toBeLessThanOrEqual(1.3 * text);
    expect(text).toBeGreaterThan(15_000);
    const page = pageData(result);
    expect(page.content.length).toBeGreaterThan(100);
    expect(result.structuredContent).toMatchObject({ nextCursor: page.nextCursor, lang: page.lang });
    expect(result.structuredContent).not.toHaveProperty('content');
  });

  it('costs at most 1.3x its text on a scrape page', async () => {
    const { result, text, structured } = await measure('web_scrape', { url: site.url });
    expect(text + structured).toBeLessThanOrEqual(1.3 * text);
    expect(text).toBeGreaterThan(15_000);
    expect(result.structuredContent).toMatchObject({ url: site.url, nextCursor: expect.any(String) });
    expect(result.structuredContent).not.toHaveProperty('content');
    expect((result.content as Array<{ text: string }>)[0].text).toContain(pageData(result).content);
  });
});
