/**
 * Page answers (issue 31.3): web_scrape and web_crawl with format summary, answer and json, through
 * an OpenAI-compatible chat server on loopback (the operator's model) and through the MCP client's
 * own model (2025 sampling and 2026-07-28 input_required rounds); the MCP text block; the bounds of
 * every new parameter, refused with a 400 that charges nothing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { connectMcpV2 } from '../support/mcp-v2.js';
import { ChatRefusal, startChatServer, textOf, type ChatServer } from '../support/chat-server.js';

/** A shop of three product pages; each page names its product and price in its main text. */
const PRODUCTS: Record<string, { name: string; price: string }> = {
  '/': { name: 'Lighthouse lamp', price: '42.50' },
  '/rope': { name: 'Harbour rope', price: '12.00' },
  '/bell': { name: 'Fog bell', price: '99.90' },
};
/** A sentence of the page's text that no answer repeats: its absence shows the page was not sent back. */
const PAGE_ONLY = 'Every lamp is assembled by hand in our workshop on the northern pier';

function pageHtml(path: string): string {
  const product = PRODUCTS[path];
  const links = Object.keys(PRODUCTS).map((p) => `<li><a href="${p}">${PRODUCTS[p].name}</a></li>`).join('');
  return `<!doctype html><html><head><title>${product.name} | Pier Shop</title></head><body><nav><ul>${links}</ul></nav><article><h1>${product.name}</h1>
<p>The ${product.name} costs ${product.price} EUR. ${PAGE_ONLY}, and it ships within three days to any harbour town.</p>
<p>It is made of brass and glass, and it has been sold here since 1911. Ask at the counter for the long story of the shop.</p></article></body></html>`;
}

interface Shop {
  origin: string;
  close(): Promise<void>;
}

async function startShop(): Promise<Shop> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    // A long page no product links to (so no crawl reaches it): 60 paragraphs, the last one unlike the others.
    if (path === '/history') {
      const paragraphs = Array.from({ length: 60 }, (_, i) => `<p>Year ${1911 + i}: the shop sold lamps, ropes and bells to the harbour towns along the coast.</p>`).join('');
      return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>History</title></head><body><article><h1>History</h1>${paragraphs}<p>The very last paragraph.</p></article></body></html>`);
    }
    if (!PRODUCTS[path]) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' } },
  required: ['name', 'price'],
  additionalProperties: false,
};

let shop: Shop;
let chat: ChatServer;
let withModel: TestServer;
let withoutModel: TestServer;

beforeAll(async () => {
  shop = await startShop();
  chat = await startChatServer();
  const env = { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_HTTP_TIMEOUT_MS: '5000' };
  withModel = await startTestServer({ env: { ...env, GLEANER_LLM_URL: chat.url, GLEANER_LLM_API_KEY: 'sk-local', GLEANER_LLM_MODEL: 'local-model' } });
  withoutModel = await startTestServer({ env: { ...env, GLEANER_MCP_WAIT_SECONDS: '20' } });
});
afterAll(async () => {
  await withModel?.close();
  await withoutModel?.close();
  await chat?.close();
  await shop?.close();
});

const credits = async (server: TestServer, key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;
const scrapeQuery = (params: Record<string, string>) => `/v1/web/scrape?${new URLSearchParams(params)}`;
/** The product a model is asked about, read from the page text it was sent. */
const productIn = (text: string) => Object.values(PRODUCTS).find((p) => text.includes(`The ${p.name} costs`))!;

describe('web_scrape answers through the configured model (REST)', () => {
  it('format=json with a JSON Schema: the answer is validated, carried as data, priced 1 + 3', async () => {
    const key = await withModel.createKey('Pro');
    chat.script((call) => {
      const product = productIn(textOf(call.messages[1]));
      return JSON.stringify({ name: product.name, price: Number(product.price) });
    });
    const before = chat.calls.length;
    const reply = await withModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'json', schema: JSON.stringify(schema) }), { apiKey: key });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ format: 'json', data: { name: 'Lighthouse lamp', price: 42.5 }, model: 'openai-compatible:local-model', urls: [], title: 'Lighthouse lamp | Pier Shop' });
    expect(JSON.parse(reply.body.content)).toEqual({ name: 'Lighthouse lamp', price: 42.5 });
    expect(reply.body.countCharacters).toBe(reply.body.content.length);
    expect(reply.headers.get('x-credits-used')).toBe('4');
    // One call to the model: it read the page's markdown and was asked for JSON of that schema.
    expect(chat.calls.length - before).toBe(1);
    const sent = chat.calls.at(-1)!;
    expect(sent.authorization).toBe('Bearer sk-local');
    expect(sent.response_format?.json_schema?.schema).toEqual(schema);
    expect(textOf(sent.messages[1])).toContain(PAGE_ONLY);
    expect(await credits(withModel, key)).toBe(3000 - 4);
  });

  it('a schema the first answer breaks is fixed on the retry, and the reply says so', async () => {
    const key = await withModel.createKey('Pro');
    chat.script(JSON.stringify({ name: 'Lighthouse lamp', price: '42.50 EUR' }), JSON.stringify({ name: 'Lighthouse lamp', price: 42.5 }));
    const reply = await withModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'json', schema: JSON.stringify(schema) }), { apiKey: key });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ name: 'Lighthouse lamp', price: 42.5 });
    expect(reply.body.warnings.join(' ')).toMatch(/corrected it on a retry/);
    // What the retry told the model: its answer and what was wrong with it.
    expect(textOf(chat.calls.at(-1)!.messages[1])).toMatch(/It was rejected: \/price must be number/);
  });

  it('an answer that never follows the schema is a clear 502 and charges nothing, not even the page', async () => {
    const key = await withModel.createKey('Pro');
    chat.script(JSON.stringify({ name: 'Lighthouse lamp' }));
    const reply = await withModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'json', schema: JSON.stringify(schema) }), { apiKey: key });
    expect(reply.status).toBe(502);
    expect(reply.body.error.code).toBe('UPSTREAM_ERROR');
    expect(reply.body.error.message).toMatch(/did not follow the schema, even after a retry: \(root\) must have required property 'price'/);
    expect(await credits(withModel, key)).toBe(3000);
  });

  it('format=json with a prompt alone takes any JSON, and refuses prose', async () => {
    const key = await withModel.createKey('Pro');
    chat.script('["brass", "glass"]');
    const ok = await withModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'json', prompt: 'List the materials' }), { apiKey: key });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toEqual(['brass', 'glass']);
    expect(textOf(chat.calls.at(-1)!.messages[1])).toContain('List the materials');
    chat.script('Brass and glass.');
    const prose = await withModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'json', prompt: 'List the materials' }), { apiKey: key });
    expect(prose.status).toBe(502);
    expect(prose.body.error.message).toMatch(/not valid JSON/);
    expect(await credits(withModel, key)).toBe(3000 - 4);
  });

  it('format=summary and format=answer: the model text in content, priced 1 + 2, the question sent to the model', async () => {
    const key = await withModel.createKey('Pro');
    chat.script('A brass and glass lamp for 42.50 EUR, made by hand.');
    const summary = await withModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'summary' }), { apiKey: key });
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ format: 'summary', content: 'A brass and glass lamp for 42.50 EUR, made by hand.', model: 'openai-compatible:local-model' });
    expect(summary.body).not.toHaveProperty('data');
    expect(summary.headers.get('x-credits-used')).toBe('3');
    expect(textOf(chat.calls.at(-1)!.messages[1])).toMatch(/^Task: summarise this page/);

    chat.script((call) => (textOf(call.messages[1]).includes('When was it first sold?') ? 'Since 1911.' : 'wrong question'));
    const asked = await withModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'answer', prompt: 'When was it first sold?' }), { apiKey: key });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ format: 'answer', content: 'Since 1911.', countCharacters: 11 });
    expect(chat.calls.at(-1)!.response_format).toBeUndefined();
    expect(await credits(withModel, key)).toBe(3000 - 6);
  });

  it('a page longer than the model budget is cut to it, and the reply says so', async () => {
    const server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_LLM_URL: chat.url, GLEANER_LLM_MODEL: 'local-model', GLEANER_LLM_CONTEXT_CHARS: '2000' } });
    try {
      const key = await server.createKey('Pro');
      chat.script('Lamps, ropes and bells since 1911.');
      const reply = await server.request('GET', scrapeQuery({ url: `${shop.origin}/history`, format: 'summary' }), { apiKey: key });
      expect(reply.status).toBe(200);
      const sent = textOf(chat.calls.at(-1)!.messages[1]);
      expect(sent).toContain('Year 1911');
      expect(sent).not.toContain('The very last paragraph.');
      expect(reply.body.content).toBe('Lamps, ropes and bells since 1911.');
      expect(reply.body.warnings.join(' ')).toMatch(/longer than the model's budget \(2000\): the model read its first 2000 characters/);
    } finally {
      await server.close();
    }
  });
});

describe('web_scrape answers over MCP', () => {
  it('the text block is the answer (the JSON whole, or the text), not the page', async () => {
    const key = await withModel.createKey('Pro');
    const client = await connectMcp(withModel.baseUrl, key);
    chat.script(JSON.stringify({ name: 'Lighthouse lamp', price: 42.5 }));
    const json = await client.callTool({ name: 'web_scrape', arguments: { url: `${shop.origin}/`, format: 'json', schema } });
    expect(json.isError, JSON.stringify(json.content)).toBeFalsy();
    const jsonText = (json.content as Array<{ text: string }>).map((part) => part.text).join('\n');
    expect(jsonText).toContain(JSON.stringify({ name: 'Lighthouse lamp', price: 42.5 }, null, 2));
    expect(jsonText).toContain('json by openai-compatible:local-model');
    expect(jsonText).not.toContain(PAGE_ONLY);
    expect(jsonText).not.toContain('Links on the page');
    expect((json.structuredContent as { data: unknown }).data).toEqual({ name: 'Lighthouse lamp', price: 42.5 });

    chat.script('It ships within three days.');
    const answer = await client.callTool({ name: 'web_scrape', arguments: { url: `${shop.origin}/`, format: 'answer', prompt: 'How fast does it ship?' } });
    const answerText = (answer.content as Array<{ text: string }>).map((part) => part.text).join('\n');
    expect(answerText).toContain('It ships within three days.');
    expect(answerText).not.toContain(PAGE_ONLY);
    expect(await credits(withModel, key)).toBe(3000 - 4 - 3);
    await client.close();
  });

  it("with no model of the server's, a 2025 client's own model answers through sampling", async () => {
    const key = await withoutModel.createKey('Free');
    const client = new Client({ name: 'sampling-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const prompts: string[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const content = request.params.messages[0].content as { type: string; text: string };
      prompts.push(content.text);
      return { role: 'assistant', model: 'client-model', content: { type: 'text', text: JSON.stringify({ name: 'Harbour rope', price: 12 }) } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${withoutModel.baseUrl}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    const result = await client.callTool({ name: 'web_scrape', arguments: { url: `${shop.origin}/rope`, format: 'json', schema } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ data: { name: 'Harbour rope', price: 12 }, model: 'mcp-sampling' });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('The Harbour rope costs 12.00 EUR');
    // The schema went with the question (the client has no response_format).
    expect(prompts[0]).toContain(JSON.stringify(schema));
    expect(await credits(withoutModel, key)).toBe(100 - 4);
    await client.close();
  });

  it("a 2026-07-28 client's model answers in the call's input_required round; charged once", async () => {
    const key = await withoutModel.createKey('Pro');
    const client = await connectMcpV2(withoutModel.baseUrl, key, { sampling: {} });
    const prompts: string[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const content = request.params.messages[0].content as { type: string; text: string };
      prompts.push(content.text);
      return { role: 'assistant' as const, model: 'client-model', content: { type: 'text' as const, text: 'A fog bell, 99.90 EUR.' } };
    });
    const result = await client.callTool({ name: 'web_scrape', arguments: { url: `${shop.origin}/bell`, format: 'summary' } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const text = (result.content as Array<{ text: string }>).map((part) => part.text).join('\n');
    expect(text).toContain('A fog bell, 99.90 EUR.');
    expect(text).toContain('summary by mcp-sampling');
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('The Fog bell costs 99.90 EUR');
    // The round that stopped for the model charged nothing: one page and one summary in all.
    expect(await credits(withoutModel, key)).toBe(3000 - 3);
    await client.close();
  }, 120_000);

  it('no model anywhere: NOT_CONFIGURED naming GLEANER_LLM_URL, over MCP and REST, charged nothing', async () => {
    const key = await withoutModel.createKey('Pro');
    const client = await connectMcpV2(withoutModel.baseUrl, key);
    const result = await client.callTool({ name: 'web_scrape', arguments: { url: `${shop.origin}/`, format: 'answer', prompt: 'Price?' } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(/^NOT_CONFIGURED: .*format=answer.*GLEANER_LLM_URL/);
    await client.close();
    const rest = await withoutModel.request('GET', scrapeQuery({ url: `${shop.origin}/`, format: 'summary' }), { apiKey: key });
    expect(rest.status).toBe(503);
    expect(rest.body.error).toMatchObject({ code: 'NOT_CONFIGURED' });
    expect(rest.body.error.message).toContain('GLEANER_LLM_URL');
    const crawl = await withoutModel.request('POST', '/v1/web/crawl', { apiKey: key, body: { url: `${shop.origin}/`, format: 'summary', maxPages: 2 } });
    expect(crawl.status).toBe(503);
    expect(crawl.body.error.code).toBe('NOT_CONFIGURED');
    expect(await credits(withoutModel, key)).toBe(3000);
  });
});

async function finishedCrawl(server: TestServer, key: string, body: Record<string, unknown>) {
  const started = await server.request('POST', '/v1/web/crawl', { apiKey: key, body });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const me = (await server.request('GET', '/v1/me', { apiKey: key })).body;
  await server.app.services.jobs.waitFor(started.body.jobId, me.id, 60_000);
  return (await server.request('GET', `/v1/jobs/${started.body.jobId}`, { apiKey: key })).body;
}

describe('web_crawl answers per page', () => {
  it('each page gets its own JSON answer; a page whose answer never fits is listed as failed and not charged', async () => {
    const key = await withModel.createKey('Pro');
    chat.script((call) => {
      const product = productIn(textOf(call.messages[1]));
      // The bell's page never gets a valid answer.
      return product.name === 'Fog bell' ? JSON.stringify({ name: product.name }) : JSON.stringify({ name: product.name, price: Number(product.price) });
    });
    const job = await finishedCrawl(withModel, key, { url: `${shop.origin}/`, mode: 'recursive', format: 'json', schema, maxPages: 3 });
    expect(job.status).toBe('completed');
    const pages = job.result.pages as Array<{ url: string; format: string; data: unknown; model: string }>;
    expect(pages.map((page) => page.data).sort((a: any, b: any) => a.price - b.price)).toEqual([
      { name: 'Harbour rope', price: 12 },
      { name: 'Lighthouse lamp', price: 42.5 },
    ]);
    expect(pages.every((page) => page.format === 'json' && page.model === 'openai-compatible:local-model')).toBe(true);
    expect(job.result.failed).toEqual([{ url: `${shop.origin}/bell`, error: { code: 'UPSTREAM_ERROR', message: expect.stringMatching(/did not follow the schema/) } }]);
    // Two pages answered, at 1 + 3 each; the failed page costs nothing.
    expect(job.creditsUsed).toBe(8);
    expect(await credits(withModel, key)).toBe(3000 - 8);
  }, 90_000);

  it('a summary per page; a model that cannot be reached fails the crawl and charges nothing', async () => {
    const key = await withModel.createKey('Pro');
    chat.script((call) => `Summary of ${productIn(textOf(call.messages[1])).name}.`);
    const job = await finishedCrawl(withModel, key, { url: `${shop.origin}/`, mode: 'recursive', format: 'summary', maxPages: 3 });
    expect(job.status).toBe('completed');
    expect((job.result.pages as Array<{ content: string }>).map((page) => page.content).sort()).toEqual(['Summary of Fog bell.', 'Summary of Harbour rope.', 'Summary of Lighthouse lamp.']);
    expect(job.creditsUsed).toBe(9);

    const other = await withModel.createKey('Pro');
    chat.script(() => {
      throw new ChatRefusal(401, 'invalid api key');
    });
    const failed = await finishedCrawl(withModel, other, { url: `${shop.origin}/`, mode: 'recursive', format: 'summary', maxPages: 3 });
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toMatch(/language model .* answered 401/);
    expect(await credits(withModel, other)).toBe(3000);
  }, 90_000);
});

describe('bounds of the new parameters', () => {
  it('every one out of bounds is a 400 naming it, and charges nothing', async () => {
    const key = await withModel.createKey('Pro');
    const url = `${shop.origin}/`;
    const bigSchema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`field${i}`, { type: 'string' }])) };
    const scrapes: Array<[Record<string, string>, RegExp]> = [
      [{ url, format: 'poem' }, /format/],
      [{ url, format: 'answer' }, /prompt.*question/],
      [{ url, format: 'answer', prompt: '   ' }, /prompt/],
      [{ url, format: 'answer', prompt: 'x'.repeat(2001) }, /prompt/],
      [{ url, format: 'json' }, /schema.*a schema, a prompt, or both/],
      [{ url, format: 'markdown', prompt: 'Price?' }, /prompt.*goes with format/],
      [{ url, format: 'summary', schema: JSON.stringify(schema) }, /schema.*goes with format json/],
      [{ url, format: 'json', schema: JSON.stringify({ type: 'not-a-type' }) }, /schema.*not a valid JSON Schema/],
      [{ url, format: 'json', schema: '{not json' }, /schema/],
    ];
    for (const [params, message] of scrapes) {
      const reply = await withModel.request('GET', scrapeQuery(params), { apiKey: key });
      expect(reply.status, JSON.stringify(params).slice(0, 100)).toBe(400);
      expect(reply.body.error.code).toBe('INVALID_REQUEST');
      expect(reply.body.error.message).toMatch(message);
    }
    const crawls: Array<[Record<string, unknown>, RegExp]> = [
      [{ url, format: 'summary', maxPages: 51 }, /maxPages.*at most 50/],
      [{ url, format: 'json', limit: 60, schema }, /at most 50/],
      [{ url, format: 'answer' }, /prompt/],
      [{ url, format: 'json', schema: { type: 'object', required: 'name' } }, /schema/],
      [{ url, format: 'json', schema: bigSchema }, /schema.*at most 10000/],
      [{ url, format: 'text', schema }, /schema.*goes with format json/],
    ];
    for (const [body, message] of crawls) {
      const reply = await withModel.request('POST', '/v1/web/crawl', { apiKey: key, body });
      expect(reply.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(reply.body.error.message).toMatch(message);
    }
    // Over MCP too: the same refusal, as an error result.
    const client = await connectMcp(withModel.baseUrl, key);
    const refused = await client.callTool({ name: 'web_scrape', arguments: { url, format: 'answer' } });
    expect(refused.isError).toBe(true);
    expect(errorEnvelope(refused).error.code).toBe('INVALID_REQUEST');
    // A schema past the bound (a query string could not even carry it: MCP and a crawl's body can).
    const big = await client.callTool({ name: 'web_scrape', arguments: { url, format: 'json', schema: bigSchema } });
    expect(errorEnvelope(big).error.message).toMatch(/schema.*at most 10000/);
    await client.close();
    expect(await credits(withModel, key)).toBe(3000);
  });
});
