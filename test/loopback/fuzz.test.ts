/**
 * A bounded fuzz of the REST API, driven by the served /v1/openapi.json (issue 11, acceptance):
 * a few hundred requests with valid-looking, mutated, wrong-typed, huge and unknown parameters and
 * broken bodies, while every upstream (platforms, CDNs, web pages, speech-to-text, language model)
 * is a loopback server answering errors and garbage. Asserts: no 5xx but the declared upstream
 * ones, every error in the envelope, and no credit charged for an error. Deterministic seed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { ERROR_CODES } from '../../src/errors.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { writeCookiesFile } from '../support/cookies-file.js';

// FUZZ_SEED replays or explores another sequence; the default keeps `npm test` deterministic.
const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_2026);
const REQUESTS = 300;
const CONCURRENCY = 6;

/** mulberry32: a small seeded PRNG, so a failing case can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The garbage upstream. These replies are made up by this test (no recording is needed: the point
 * is that they are wrong): errors, refusals, truncated JSON, empty and binary bodies.
 */
function startGarbageUpstream(): Promise<{ origin: string; close(): Promise<void> }> {
  let count = 0;
  const replies: Array<(res: http.ServerResponse) => void> = [
    (res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error'),
    (res) => res.writeHead(429, { 'content-type': 'text/plain' }).end('slow down'),
    (res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>Verify you are human</body></html>'),
    (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>g</title></head><body><a href="/next">n</a> \u0000 garbage'),
    (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"broken":'),
    (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(''),
    (res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not here</html>'),
    (res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0, 159, 146, 150, 255, 0, 1, 2])),
    (res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable'),
    (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"unexpected":[1,2,3]}'),
    (res) => res.writeHead(200, { 'content-type': 'text/vtt' }).end('WEBVTT\n\n00:00:0 --> garbage\n'),
  ];
  const server = http.createServer((req, res) => {
    req.resume();
    replies[count++ % replies.length](res);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () => {
          server.closeAllConnections();
          return new Promise<void>((done) => server.close(() => done()));
        },
      });
    });
  });
}

const UPSTREAM_HOSTS = [
  'youtube.com', 'youtu.be', 'googlevideo.com', 'ytimg.com', 'googleapis.com', 'tiktok.com', 'tiktokcdn.com', 'tiktokcdn-eu.com',
  'tiktokv.com', 'instagram.com', 'cdninstagram.com', 'x.com', 'twitter.com', 'twimg.com', 'facebook.com', 'fbcdn.net', 'fb.watch', 'fuzz.example',
];

/** URLs only on the overridden hosts (or refused ones), so nothing leaves loopback. */
const URLS = [
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'https://youtu.be/dQw4w9WgXcQ', 'https://www.youtube.com/@fuzzchannel',
  'https://www.youtube.com/playlist?list=PLfuzz0123456789', 'https://www.tiktok.com/@fuzz/video/7300000000000000000',
  'https://www.instagram.com/reel/Cfuzz123/', 'https://x.com/fuzz/status/1700000000000000000', 'https://www.facebook.com/watch?v=1234567890',
  'https://fuzz.example/page', 'https://fuzz.example/video.mp4', 'http://127.0.0.1:1/', 'http://[::1]/', 'ftp://fuzz.example/', 'not a url',
];

type Schema = { type?: string | string[]; enum?: unknown[]; format?: string; minimum?: number; maximum?: number; items?: Schema; properties?: Record<string, Schema>; anyOf?: Schema[] };

const WRONG_TYPES: unknown[] = [12345, true, 'text', [], {}, null, -1, 1.5];
const EDGES: unknown[] = ['', '%ZZ', '../../../etc/passwd', '\u0000', '😀'.repeat(200), 'x'.repeat(20_000), 1e308, -1e308, 2 ** 53 + 1, ' '];

function typeOf(schema: Schema): string {
  if (Array.isArray(schema.type)) return schema.type[0];
  return schema.type ?? schema.anyOf?.map(typeOf).find((t) => t !== 'null') ?? 'string';
}

function validish(name: string, schema: Schema, rnd: () => number): unknown {
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
  if (schema.enum?.length) return pick(schema.enum);
  switch (typeOf(schema)) {
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = Math.min(schema.maximum ?? min + 100, min + 1000);
      return Math.floor(min + rnd() * (max - min + 1));
    }
    case 'boolean':
      return rnd() < 0.5;
    case 'array':
      return Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => validish(name, schema.items ?? {}, rnd));
    case 'object':
      return {};
    default:
      if (schema.format === 'uri' || /url|webhook|link/i.test(name)) return pick(URLS);
      return pick(['fuzz', 'en', 'dQw4w9WgXcQ', 'json', 'hello world', 'fr', 'markdown']);
  }
}

/** A value for one field: mostly plausible at a low `rate` of mutation, mostly broken at a high one. */
function mutate(name: string, schema: Schema, rnd: () => number, rate = 0.55): unknown {
  const r = rnd();
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
  if (r < 1 - rate) return validish(name, schema, rnd);
  if (r < 1 - rate * 0.65) return pick(WRONG_TYPES);
  if (r < 1 - rate * 0.25) return pick(EDGES);
  return undefined; // omitted
}

function toQuery(values: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) value.forEach((v) => params.append(name, typeof v === 'string' ? v : JSON.stringify(v)));
    else params.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

interface Planned {
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
}

let upstream: Awaited<ReturnType<typeof startGarbageUpstream>>;
let server: TestServer;
let key: string;

beforeAll(async () => {
  upstream = await startGarbageUpstream();
  server = await startTestServer({
    env: {
      GLEANER_UPSTREAM_OVERRIDES: UPSTREAM_HOSTS.map((h) => `${h}=${upstream.origin}`).join(','),
      GLEANER_STT_URL: `${upstream.origin}/v1`,
      GLEANER_STT_API_KEY: 'sk-fuzz',
      GLEANER_LLM_URL: `${upstream.origin}/v1`,
      GLEANER_LLM_API_KEY: 'sk-fuzz',
      GLEANER_HTTP_TIMEOUT_MS: '3000',
    },
  });
  key = await server.createKey('Giga');
}, 60_000);

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

function plan(document: any, rnd: () => number): Planned[] {
  const operations: Array<{ method: string; path: string; spec: any }> = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    for (const [method, spec] of Object.entries(methods)) operations.push({ method: method.toUpperCase(), path, spec });
  }
  const planned: Planned[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const { method, path, spec } = operations[i % operations.length];
    const headers: Record<string, string> = {};
    const auth = rnd();
    if (auth < 0.85) headers['x-api-key'] = key;
    else if (auth < 0.9) headers.authorization = `Bearer ${key}`;
    else if (auth < 0.95) headers['x-api-key'] = 'gl_not_a_real_key';
    const parameters: Array<{ name: string; in: string; schema: Schema }> = spec.parameters ?? [];
    let concrete = path;
    for (const p of parameters.filter((p) => p.in === 'path')) {
      const value = rnd() < 0.6 ? String(validish(p.name, p.schema, rnd)) : String(mutate(p.name, p.schema, rnd) ?? '');
      const raw = rnd() < 0.15 ? '%ZZ' : encodeURIComponent(value || 'x');
      concrete = concrete.replace(`{${p.name}}`, raw);
    }
    const values: Record<string, unknown> = {};
    const bodySchema: Schema | undefined = spec.requestBody?.content?.['application/json']?.schema;
    const fields = bodySchema ? Object.entries(bodySchema.properties ?? {}) : parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema] as [string, Schema]);
    // Half the requests are nearly valid (to reach the upstreams), half are thoroughly broken.
    const rate = rnd() < 0.5 ? 0.08 : 0.6;
    const required = new Set<string>(bodySchema ? ((bodySchema as { required?: string[] }).required ?? []) : parameters.filter((p) => (p as { required?: boolean }).required).map((p) => p.name));
    for (const [name, schema] of fields) {
      if (parameters.some((p) => p.in === 'path' && p.name === name)) continue;
      // Optional fields are often left out, as real callers do.
      values[name] = !required.has(name) && rnd() < 0.5 ? undefined : mutate(name, schema, rnd, rate);
    }
    if (rnd() < 0.15) values[`unknown_${Math.floor(rnd() * 100)}`] = 'surprise';
    if (method === 'GET') {
      planned.push({ method, path: `${concrete}${toQuery(values)}`, headers });
    } else {
      headers['content-type'] = 'application/json';
      const shape = rnd();
      const body = shape < 0.8 ? JSON.stringify(values) : shape < 0.87 ? '{"broken": ' : shape < 0.94 ? '[1,2,3]' : JSON.stringify({ nested: JSON.parse('['.repeat(500) + ']'.repeat(500)) });
      planned.push({ method, path: concrete, headers, body });
    }
  }
  return planned;
}

const DECLARED_5XX = new Set(['UPSTREAM_ERROR', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'UPSTREAM_BLOCKED', 'UPSTREAM_CHANGED', 'NOT_CONFIGURED']);

describe('fuzz from the OpenAPI document', () => {
  it(`${REQUESTS} requests: no undeclared 5xx, every error in the envelope, no credit for an error`, async () => {
    const document = (await server.request('GET', '/v1/openapi.json')).body;
    const before = (await server.request('GET', '/v1/me', { apiKey: key })).body.creditsUsed as number;
    const requests = plan(document, prng(SEED));
    const problems: string[] = [];
    const seen = new Map<string, number>();
    let syncCharged = 0;
    const jobs: Array<{ jobId: string; reserved: number }> = [];
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const index = next++;
        const { method, path, body, headers } = requests[index];
        const response = await fetch(`${server.baseUrl}${path}`, { method, headers, body });
        const text = await response.text();
        const where = `#${index} ${method} ${path.slice(0, 160)} -> ${response.status}`;
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          problems.push(`${where}: not JSON: ${text.slice(0, 120)}`);
          continue;
        }
        const credits = Number(response.headers.get('x-credits-used') ?? 0);
        const label = `${response.status} ${parsed?.error?.code ?? ''}`.trim();
        seen.set(label, (seen.get(label) ?? 0) + 1);
        if (response.status >= 400) {
          const error = parsed?.error;
          if (!error || !(error.code in ERROR_CODES) || typeof error.message !== 'string' || error.requestId !== response.headers.get('x-request-id')) {
            problems.push(`${where}: not an error envelope: ${text.slice(0, 200)}`);
          } else if (response.status >= 500 && !DECLARED_5XX.has(error.code)) {
            problems.push(`${where}: undeclared ${error.code}: ${error.message}`);
          } else if (ERROR_CODES[error.code as keyof typeof ERROR_CODES].status !== response.status) {
            problems.push(`${where}: status does not match ${error.code}`);
          }
          if (credits !== 0) problems.push(`${where}: an error reported ${credits} credits used`);
        } else if (response.status === 202 && parsed?.jobId) {
          // A job start charges nothing yet (X-Credits-Used 0): it holds X-Credits-Reserved until it ends.
          if (credits !== 0) problems.push(`${where}: a job start reported ${credits} credits used`);
          jobs.push({ jobId: parsed.jobId, reserved: Number(response.headers.get('x-credits-reserved') ?? 0) });
        } else {
          syncCharged += credits;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    // Jobs settle on their own (every upstream answers quickly); a job's charge is at most what it reserved.
    let completedReserve = 0;
    for (const job of jobs) {
      for (;;) {
        const status = await server.request('GET', `/v1/jobs/${job.jobId}`, { apiKey: key });
        if (status.body.status === 'completed') completedReserve += job.reserved;
        if (status.body.status === 'completed' || status.body.status === 'failed') break;
        await new Promise<void>((resolve) => setTimeout(resolve, 50));
      }
    }
    const after = (await server.request('GET', '/v1/me', { apiKey: key })).body.creditsUsed as number;
    expect(problems).toEqual([]);
    // The fuzz reached past validation: some calls got to the garbage upstreams, some succeeded.
    const tally = Object.fromEntries([...seen].sort());
    expect(Object.keys(tally).some((k) => /UPSTREAM_/.test(k)), JSON.stringify(tally)).toBe(true);
    expect(Object.keys(tally).some((k) => /^20[02]$/.test(k)), JSON.stringify(tally)).toBe(true);
    console.log(`fuzz outcomes (seed ${SEED}): ${JSON.stringify(tally)}`);
    expect(after - before).toBeGreaterThanOrEqual(syncCharged);
    expect(after - before).toBeLessThanOrEqual(syncCharged + completedReserve);
  }, 240_000);

  it('120 MCP tool calls with mutated arguments: every failure an isError result in the envelope, none internal', async () => {
    const used = async () => (await server.request('GET', '/v1/me', { apiKey: key })).body.creditsUsed as number;
    // Once a job is left running in the background, its later charge would blur the per-call check.
    let jobsInFlight = false;
    const client = await connectMcp(server.baseUrl, key);
    const { tools } = await client.listTools();
    const rnd = prng(SEED ^ 0x4d4350);
    const problems: string[] = [];
    for (let i = 0; i < 120; i++) {
      const tool = tools[i % tools.length];
      const schema = tool.inputSchema as Schema & { required?: string[] };
      const rate = rnd() < 0.5 ? 0.08 : 0.6;
      const args: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const value = !(schema.required ?? []).includes(name) && rnd() < 0.5 ? undefined : mutate(name, property, rnd, rate);
        if (value !== undefined) args[name] = value;
      }
      if (rnd() < 0.1) args[`unknown_${i}`] = 'surprise';
      const where = `#${i} ${tool.name} ${JSON.stringify(args).slice(0, 160)}`;
      try {
        const before = jobsInFlight ? 0 : await used();
        // Job tools wait for their job; the short-lived garbage upstream keeps that brief.
        const result = await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: 60_000 });
        const body = result.isError ? errorEnvelope(result) : (result.structuredContent as any);
        if (result.isError) {
          const code = body?.error?.code as keyof typeof ERROR_CODES | undefined;
          if (!code || !(code in ERROR_CODES) || typeof body.error.message !== 'string') problems.push(`${where}: not an envelope: ${JSON.stringify(body).slice(0, 200)}`);
          else if (ERROR_CODES[code].status >= 500 && !DECLARED_5XX.has(code)) problems.push(`${where}: undeclared ${code}: ${body.error.message}`);
          if (!jobsInFlight && (await used()) !== before) problems.push(`${where}: ${code} charged credits`);
        } else if (body?.jobId && body.status !== 'completed' && body.status !== 'failed') {
          jobsInFlight = true;
        }
      } catch (error) {
        problems.push(`${where}: JSON-RPC error ${(error as Error).message.slice(0, 200)}`);
      }
    }
    await client.close();
    expect(problems).toEqual([]);
  }, 240_000);
});

describe('hostile MCP tool calls (issue 20.2)', () => {
  /** The series of Gleaner's own metrics (process and runtime metrics aside), one line each. */
  async function series(baseUrl: string): Promise<Set<string>> {
    const text = await (await fetch(`${baseUrl}/metrics`)).text();
    return new Set(
      text
        .split('\n')
        // Upstream series are left out: the hostile calls reach no upstream, while jobs that earlier tests
        // of this file started may still be fetching (their platform and status labels are a closed set).
        .filter((line) => /^gleaner_(requests|jobs?|credits)_/.test(line))
        .map((line) => line.replace(/ [^ ]+$/, '')),
    );
  }

  /**
   * 10,000 hostile tools/call of one client: with a Free key, or in keyless mode (GLEANER_MCP_KEYLESS,
   * no key at all: the session opens without one and every tool call is refused, but the name is
   * read before the refusal, which is where the old code recorded it).
   */
  async function hostileCalls(keyless: boolean): Promise<void> {
    const hostile = await startTestServer(keyless ? { env: { GLEANER_MCP_KEYLESS: 'true' } } : {});
    try {
      const key = keyless ? undefined : await hostile.createKey('Free');
      const client = key ? await connectMcp(hostile.baseUrl, key) : new Client({ name: 'keyless-fuzz', version: '1' });
      if (!key) {
        await client.connect(new StreamableHTTPClientTransport(new URL(`${hostile.baseUrl}/mcp`)));
        await client.listTools();
      }
      // Since issue 27 a 2025 client without sampling has no session: every call stands alone.
      expect((client as unknown as { transport: { sessionId?: string } }).transport.sessionId).toBeUndefined();
      const rnd = prng(SEED ^ 0x20_02);
      const shapes: unknown[] = ['a string', [1, 2], 42, null, true, { nested: { deep: [null] } }, undefined];
      const name = (i: number): unknown => {
        if (i % 1000 === 0) return 'n'.repeat(256 * 1024);
        if (i % 97 === 0) return 42;
        if (i % 89 === 0) return undefined;
        if (i % 5 === 0) return 'account'; // a real tool, with arguments of the wrong shape
        return `tool_${Math.floor(rnd() * 1e9).toString(36)}`;
      };
      const call = async (i: number) => {
        const toolName = name(i);
        // A real tool gets arguments of a wrong shape only: with good ones it would be a real call.
        const shape = shapes[i % shapes.length];
        const callable = shape === undefined || (shape !== null && typeof shape === 'object' && !Array.isArray(shape));
        const args = toolName === 'account' && callable ? 'a string' : shape;
        const params = { ...(toolName === undefined ? {} : { name: toolName }), ...(args === undefined ? {} : { arguments: args }) };
        const response = await fetch(`${hostile.baseUrl}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { 'x-api-key': key } : {}), 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params }),
        });
        await response.text();
        return response.status;
      };
      // One of each kind first: the series they may add (the /mcp request count, the refusals of
      // `account`) exist from then on; the 10,000 after them must add none.
      for (let i = 0; i < 1000; i += 1) if (i < shapes.length * 5 || i % 97 === 0 || i % 89 === 0) await call(i);
      await call(0);
      await series(hostile.baseUrl); // the scrape counts itself from the second one on
      const before = await series(hostile.baseUrl);
      const statuses = new Set<number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < 10_000) statuses.add(await call(next++));
        }),
      );
      const after = await series(hostile.baseUrl);
      expect([...after].filter((s) => !before.has(s))).toEqual([]);
      expect([...statuses]).toEqual([200]);
      // Every operation label is a tool of the table or a fixed word of the server.
      const known = new Set([...hostile.app.operations.map((o) => o.name), 'none', 'mcp', 'healthz', 'metrics', 'openapi', 'oauth']);
      const labels = [...after].map((s) => /operation="([^"]*)"/.exec(s)?.[1]).filter((v): v is string => v !== undefined);
      expect(labels.filter((label) => !known.has(label))).toEqual([]);
      await client.close();
    } finally {
      await hostile.close();
    }
  }

  it('10,000 calls with made-up, huge and missing tool names and every shape of arguments add no metric series', () => hostileCalls(false), 300_000);

  it('in keyless mode (no key at all), 10,000 such calls add no metric series either', () => hostileCalls(true), 300_000);
});

/**
 * Issue 20, findings 3 and 4, fuzzed: caller URLs on the operator's configured origins, and web
 * operations on platform hosts while a cookies file is configured. Each server below records what
 * reached it. (Imports for these cases are loaded here, so the file's head stays as it was.)
 */
async function startRecorder(): Promise<{ origin: string; port: number; hits: Array<{ path: string; headers: http.IncomingHttpHeaders }>; close(): Promise<void> }> {
  const hits: Array<{ path: string; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((req, res) => {
    req.resume();
    hits.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html><head><title>r</title></head><body><p>recorded</p><a href="/next">next</a></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Spellings of this machine a caller may use for an origin's port. */
const LOOPBACK_SPELLINGS = ['127.0.0.1', 'localhost', '[::1]', '0x7f000001', '2130706433', '127.1', '[::ffff:127.0.0.1]', '127.0.0.2'];

/** One caller-facing use of a URL: the request and whether the URL rides as the start or as a webhook. */
const URL_USES: Array<(url: string) => { method: 'GET' | 'POST'; path: string; body?: unknown }> = [
  (url) => ({ method: 'GET', path: `/v1/web/scrape?url=${encodeURIComponent(url)}` }),
  (url) => ({ method: 'GET', path: `/v1/web/map?url=${encodeURIComponent(url)}` }),
  (url) => ({ method: 'GET', path: `/v1/metadata?url=${encodeURIComponent(url)}` }),
  (url) => ({ method: 'GET', path: `/v1/video/transcript?url=${encodeURIComponent(url)}` }),
  (url) => ({ method: 'POST', path: '/v1/web/crawl', body: { url, maxPages: 2 } }),
  (url) => ({ method: 'POST', path: '/v1/web/crawl', body: { url: 'https://fuzz.example/', maxPages: 1, webhook: url } }),
];

describe("the operator's origins and credentials under fuzz (issue 20)", () => {
  it("caller URLs on the operator's configured origins (STT, LLM, PO-token provider, proxy, override targets) are refused unless private URLs are allowed", async () => {
    const [stt, llm, pot, proxy, target] = await Promise.all([startRecorder(), startRecorder(), startRecorder(), startRecorder(), startRecorder()]);
    const origins = [stt, llm, pot, proxy, target];
    const env = {
      GLEANER_STT_URL: `${stt.origin}/v1`,
      GLEANER_LLM_URL: `${llm.origin}/v1`,
      GLEANER_YOUTUBE_POT_PROVIDER_URL: pot.origin,
      GLEANER_PROXY_URL: proxy.origin,
      GLEANER_UPSTREAM_OVERRIDES: `fuzz.example=${target.origin}`,
      GLEANER_HTTP_TIMEOUT_MS: '3000',
    };
    const guarded = await startTestServer({ env });
    const open = await startTestServer({ env: { ...env, GLEANER_ALLOW_PRIVATE_URLS: 'true', GLEANER_PROXY_URL: '' } });
    try {
      const rnd = prng(SEED ^ 0x0e1);
      const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
      const cases = Array.from({ length: 60 }, (_, i) => {
        const where = pick(origins);
        const path = pick(['/', '/v1/models', '/v1/audio/transcriptions', '/get_pot', '/admin/secret?x=1', `/${'a'.repeat(1 + (i % 40))}`, '/%2e%2e/etc']);
        return { url: `${pick(['http', 'http', 'https'])}://${pick(LOOPBACK_SPELLINGS)}:${where.port}${path}`, use: pick(URL_USES) };
      });
      const keyGuarded = await guarded.createKey('Giga');
      const problems: string[] = [];
      for (const { url, use } of cases) {
        const call = use(url);
        const reply = await guarded.request(call.method, call.path, { apiKey: keyGuarded, body: call.body });
        if (reply.status !== 400 || reply.body.error?.code !== 'URL_NOT_ALLOWED') problems.push(`${call.method} ${call.path} ${JSON.stringify(call.body ?? '')} -> ${reply.status} ${JSON.stringify(reply.body).slice(0, 160)}`);
      }
      expect(problems).toEqual([]);
      // Nothing of it reached an operator endpoint, nor an override's target.
      expect(origins.flatMap((o) => o.hits)).toEqual([]);

      // With private URLs allowed (tests, intranets) the same URLs are the caller's to fetch.
      const keyOpen = await open.createKey('Giga');
      for (const { url } of cases.slice(0, 10)) {
        const reply = await open.request('GET', `/v1/web/scrape?url=${encodeURIComponent(url.replace(/^https:/, 'http:'))}`, { apiKey: keyOpen });
        expect(reply.body.error?.code, url).not.toBe('URL_NOT_ALLOWED');
      }
    } finally {
      await Promise.all([guarded.close(), open.close()]);
      await Promise.all(origins.map((o) => o.close()));
    }
  }, 180_000);

  it('platform hosts in web operations and webhooks carry no cookie of the operator', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const site = await startRecorder();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-fuzz-cookies-'));
    const domains = ['youtube.com', 'google.com', 'instagram.com', 'facebook.com', 'x.com', 'twitter.com'];
    const rnd = prng(SEED ^ 0xc00c1e);
    const secrets = domains.map((d, i) => `operator-${d.replace(/\W/g, '')}-${Math.floor(rnd() * 1e9)}-${i}`);
    const file = writeCookiesFile(dir, domains.map((domain, i) => ({ domain, name: `secret${i}`, value: secrets[i], secure: false })));
    const hosts = [...domains, 'fuzz.example'];
    const server = await startTestServer({
      env: { GLEANER_COOKIES_FILE: file, GLEANER_UPSTREAM_OVERRIDES: hosts.map((h) => `${h}=${site.origin}`).join(','), GLEANER_HTTP_TIMEOUT_MS: '3000' },
    });
    try {
      const key = await server.createKey('Giga');
      const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
      // Web operations only: /v1/metadata and transcripts of a platform URL are the adapters' own requests.
      const webUses = [URL_USES[0], URL_USES[1], URL_USES[4], URL_USES[5]];
      for (let i = 0; i < 40; i++) {
        const host = `${pick(['', 'www.', 'm.', 'api.', 'accounts.', 'myaccount.'])}${pick(domains)}`;
        const url = `${pick(['https', 'http'])}://${host}${pick(['/', '/accounts/edit/', '/youtubei/v1/like/like', '/settings?tab=1', `/p/${i}`])}`;
        const call = pick(webUses)(url);
        const reply = await server.request(call.method, call.path, { apiKey: key, body: call.body });
        expect(reply.status, `${call.path} ${JSON.stringify(call.body ?? '')}`).toBeLessThan(500);
      }
      // Jobs (crawls and their webhooks) finish on their own against the quick recorder.
      await expect.poll(async () => (await server.app.services.store.get<unknown[]>('webhooks:pending'))?.length ?? 0, { timeout: 60_000 }).toBe(0);
      expect(site.hits.length).toBeGreaterThan(20);
      const carried = site.hits.filter((hit) => secrets.some((secret) => JSON.stringify(hit.headers).includes(secret)));
      expect(carried.map((hit) => `${hit.headers['x-forwarded-host']}${hit.path}`)).toEqual([]);
    } finally {
      await server.close();
      await site.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

// Issue 20, finding 1: a caller's URL carrying credentials (userinfo, token and key parameters) in
// every URL-taking operation, against the garbage upstreams: no error message quotes a password or
// a token (messages are redacted), none is a 500, and the configured STT/LLM key never shows.
it('hostile URLs with credentials in them: no error quotes a credential, none internal', async () => {
  const password = 'FuzzUserinfoPw-31';
  const token = 'FuzzQueryToken-47';
  const targets = [
    `https://fuzzuser:${password}@fuzz.example/page?token=${token}`,
    `https://fuzz.example/video.mp4?api_key=${token}&x=1`,
    `https://www.youtube.com/watch?v=dQw4w9WgXcQ&sig=${token}`,
    `http://fuzzuser:${password}@127.0.0.1:1/?access_token=${token}`,
    `https://:${password}@www.tiktok.com/@fuzz/video/7300000000000000000?session=${token}`,
  ];
  const paths = (url: string) => [
    `/v1/web/scrape?url=${encodeURIComponent(url)}`,
    `/v1/metadata?url=${encodeURIComponent(url)}`,
    `/v1/transcript?url=${encodeURIComponent(url)}&mode=auto`,
    `/v1/web/map?url=${encodeURIComponent(url)}`,
  ];
  const problems: string[] = [];
  for (const url of targets) {
    for (const path of paths(url)) {
      const response = await fetch(`${server.baseUrl}${path}`, { headers: { 'x-api-key': key } });
      const text = await response.text();
      // A success may echo the caller's own URL back (it is theirs); an error message never quotes a
      // credential, and the operator's key shows in nothing.
      const secrets = response.status >= 400 ? [password, token, 'sk-fuzz'] : ['sk-fuzz'];
      for (const secret of secrets) if (text.includes(secret)) problems.push(`${path} -> ${response.status} quotes ${secret}: ${text.slice(0, 200)}`);
      if (response.status === 500) problems.push(`${path} -> 500`);
    }
  }
  expect(problems).toEqual([]);
}, 240_000);

// Issue 20, finding 5: a /healthz flood beside garbage traffic: a healthy store is never reported down.
it('a /healthz flood of 200 probes beside fuzzed calls: every probe 200', async () => {
  const traffic = Promise.all(Array.from({ length: 20 }, () => fetch(`${server.baseUrl}/v1/web/scrape?url=${encodeURIComponent('https://fuzz.example/page')}`, { headers: { 'x-api-key': key } }).then((r) => r.text())));
  const statuses = await Promise.all(Array.from({ length: 200 }, async () => (await fetch(`${server.baseUrl}/healthz`)).status));
  await traffic;
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
}, 120_000);
