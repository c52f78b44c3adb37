/**
 * Hostile JSON Schemas over REST (issue 39, the review's High findings 1 and 3): a catastrophic
 * `pattern` is checked without freezing the server, and schemas are compiled after the call's rate
 * token, each on its own, without growing the process for every new schema a key sends.
 */
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { startChatServer, type ChatServer } from '../support/chat-server.js';

let site: http.Server;
let origin: string;
let chat: ChatServer;
let server: TestServer;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><title>Letters</title></head><body><article><h1>Letters</h1><p>The page lists the letter a many times over, then an exclamation mark.</p></article></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  chat = await startChatServer();
  server = await startTestServer({ env: { GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_LLM_URL: chat.url, GLEANER_LLM_API_KEY: 'sk-local', GLEANER_LLM_MODEL: 'local-model' } });
});
afterAll(async () => {
  await server?.close();
  await chat?.close();
  await new Promise((resolve) => site?.close(resolve));
});

const scrape = (params: Record<string, string>) => `/v1/web/scrape?${new URLSearchParams(params)}`;
const credits = async (key: string) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number;

describe('a catastrophic pattern', () => {
  it('an answer against ^(a|a)*$ is checked and refused on its merits while another key is answered', { timeout: 60_000 }, async () => {
    const attacker = await server.createKey('Pro');
    const other = await server.createKey('Free');
    // 40 a's and a "!": 2^40 backtracking steps for a backtracking engine, twice with the retry.
    chat.script(JSON.stringify({ v: `${'a'.repeat(40)}!` }));
    const schema = { type: 'object', properties: { v: { type: 'string', pattern: '^(a|a)*$' } }, required: ['v'] };
    const [hostile, me] = await Promise.all([
      server.request('GET', scrape({ url: `${origin}/`, format: 'json', schema: JSON.stringify(schema) }), { apiKey: attacker }),
      server.request('GET', '/v1/me', { apiKey: other }),
    ]);
    expect(me.status).toBe(200);
    expect(hostile.status).toBe(502);
    expect(hostile.body.error.message).toMatch(/did not follow the schema, even after a retry: \/v must match pattern "\^\(a\|a\)\*\$"/);
    expect(await credits(attacker)).toBe(3000);
  });

  it('a pattern RE2 cannot take (a backreference) is a 400 before the page is read or anything charged', async () => {
    const key = await server.createKey('Pro');
    const asked = chat.calls.length;
    const reply = await server.request('GET', scrape({ url: `${origin}/`, format: 'json', schema: JSON.stringify({ type: 'string', pattern: '(a+)\\1' }) }), { apiKey: key });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/schema: is not a valid JSON Schema: pattern "\(a\+\)\\1" is not supported/);
    expect(chat.calls.length).toBe(asked);
    expect(await credits(key)).toBe(3000);
  });
});

describe('schemas compiled after the rate, per schema', () => {
  it('refused calls with schemas count against the per-minute rate (429 when over) and charge nothing', async () => {
    const key = await server.createKey('Free');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const reply = await server.request('GET', scrape({ url: `${origin}/`, format: 'markdown', schema: JSON.stringify({ title: `schema ${i}`, type: 'object' }) }), { apiKey: key });
      statuses.push(reply.status);
    }
    // The Free plan's 10 requests a minute: ten refusals (schema goes with format json), then 429.
    expect(statuses).toEqual([...Array(10).fill(400), 429]);
    // Read past the gate: /v1/me would be the twelfth request of the minute.
    const { accounts } = server.app.services;
    expect((await accounts.balance(await accounts.authenticate(key))).remaining).toBe(100);
  });

  it("one key's $id neither breaks nor reaches another key's schema", async () => {
    const first = await server.createKey('Pro');
    const second = await server.createKey('Pro');
    const id = 'https://example.test/product';
    chat.script(JSON.stringify({ name: 'Letters' }));
    const own = await server.request('GET', scrape({ url: `${origin}/`, format: 'json', schema: JSON.stringify({ $id: id, type: 'object', required: ['name'] }) }), { apiKey: first });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    // The second key's schema with the same $id is its own: compiled, and followed.
    chat.script(JSON.stringify({ price: 3 }));
    const same = await server.request('GET', scrape({ url: `${origin}/`, format: 'json', schema: JSON.stringify({ $id: id, type: 'object', required: ['price'] }) }), { apiKey: second });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body.data).toEqual({ price: 3 });
    // A $ref to the first key's $id reaches nothing.
    const reach = await server.request('GET', scrape({ url: `${origin}/`, format: 'json', schema: JSON.stringify({ $ref: id }) }), { apiKey: second });
    expect(reach.status).toBe(400);
    expect(reach.body.error.message).toMatch(/\$ref "https:\/\/example\.test\/product" is not a place inside this schema/);
  });

  it('2,000 refused calls with distinct schemas grow the memory by under 100 MB', { timeout: 300_000 }, async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const key = await server.createKey('Enterprise');
    // A schema of some size, as the review sent: twenty properties, each with its own pattern.
    const schemaOf = (n: number) => ({
      $id: `https://example.test/s${n}`,
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 20 }, (_, p) => [`field${p}`, { type: 'string', pattern: `^${n}-${p}[a-z]+$`, minLength: 2 }])),
    });
    const send = (n: number) => server.request('GET', scrape({ url: `${origin}/`, format: 'markdown', schema: JSON.stringify(schemaOf(n)) }), { apiKey: key });
    for (let n = 0; n < 50; n++) expect((await send(n)).status).toBe(400);
    gc();
    // RSS, not the heap alone: compiled validators are code (main's code grew it by 203 MB here).
    const before = process.memoryUsage().rss;
    for (let n = 50; n < 2_050; n += 4) {
      const replies = await Promise.all([send(n), send(n + 1), send(n + 2), send(n + 3)]);
      expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400, 400]);
    }
    gc();
    const grown = process.memoryUsage().rss - before;
    expect(grown / 1e6).toBeLessThan(100);
  });
});
