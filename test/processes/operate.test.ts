/**
 * Issue 15 items 3 and 4: /healthz, /metrics, the access log, Bearer auth and WWW-Authenticate.
 * Real servers on loopback; the access-log case runs `gleaner serve` as its own process and reads
 * its stderr.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { errorEnvelope } from '../support/mcp.js';
import { TEST_OPERATIONS, gates } from '../support/test-operations.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer({ operations: TEST_OPERATIONS });
  key = await server.createKey('Pro');
});
afterAll(() => server.close());

/** The value of one sample of the served /metrics (0 when the series does not exist yet). */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const response = await fetch(`${server.baseUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await response.text();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}'));
    const found = Object.fromEntries([...inner.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v) && Object.keys(found).length === Object.keys(labels).length) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return 0;
}

describe('auth headers (issue 15.4)', () => {
  it('REST accepts Authorization: Bearer beside x-api-key', async () => {
    const bearer = await server.request('GET', '/v1/me', { headers: { authorization: `Bearer ${key}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.body.plan).toBe('Pro');
  });

  it('a 401 carries WWW-Authenticate, on REST and /mcp', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-key' }, { authorization: 'Basic abc' }] as Array<Record<string, string>>) {
      const rest = await server.request('GET', '/v1/me', { headers });
      expect(rest.status).toBe(401);
      expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer realm="gleaner"/);
      expect(rest.headers.get('www-authenticate')).toMatch(/x-api-key/);
    }
    const mcp = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toMatch(/^Bearer realm="gleaner"/);
    await mcp.text();
  });

  it('/mcp accepts Authorization: Bearer', async () => {
    const client = new Client({ name: 'bearer-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    const result = await client.callTool({ name: 'account', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as any).plan).toBe('Pro');
    await client.close();
  });

  it('stdio with a bad GLEANER_API_KEY says to set GLEANER_API_KEY (and pretty logs keep stdout clean)', async () => {
    // Pretty logs at info level: any line on stdout would break the protocol and fail the client.
    // (Without any key the stdio server acts as the store's local owner: see test/processes/cli.test.ts.)
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      GLEANER_DATA_DIR: server.dataDir,
      GLEANER_LOG_LEVEL: 'info',
      GLEANER_LOG_FORMAT: 'pretty',
      GLEANER_API_KEY: 'gl_not_a_key_of_this_store',
    };
    const client = new Client({ name: 'stdio-test', version: '1' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [GLEANER_MAIN, 'mcp'], env, stderr: 'pipe' });
    const stderr: string[] = [];
    transport.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    await client.connect(transport);
    const result = await client.callTool({ name: 'account', arguments: {} });
    expect(result.isError).toBe(true);
    expect(errorEnvelope(result).error.code).toBe('UNAUTHORIZED');
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(/GLEANER_API_KEY/);
    expect((result.content as Array<{ text: string }>)[0].text).not.toMatch(/header/);
    // The start-up warning went to stderr, formatted for people (not a JSON line).
    while (!/INFO/.test(stderr.join(''))) await once(transport.stderr!, 'data');
    expect(stderr.join('')).not.toMatch(/^\{"level"/m);
    await client.close();
  }, 120_000);
});

describe('/healthz (issue 15.3)', () => {
  it('answers 200 without a key when the store is reachable', async () => {
    const response = await server.request('GET', '/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok', store: { status: 'ok' } });
  });

  it('answers 503 when the store is not reachable', async () => {
    const broken = await startTestServer();
    try {
      await broken.app.services.store.close();
      const response = await broken.request('GET', '/healthz');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ status: 'unavailable', store: { status: 'unreachable' } });
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

describe('/metrics (issue 15.3)', () => {
  it('counts requests by operation and status, credits charged, upstream failures and jobs', async () => {
    const ok = { surface: 'rest', operation: 'account', status: '200' };
    const unauthorized = { surface: 'rest', operation: 'account', status: '401' };
    const credits = { operation: 'test_post_echo' };
    const upstream = { platform: 'web', code: 'UPSTREAM_ERROR' };
    const failedJobs = { operation: 'test_job', status: 'failed' };
    const counters = () =>
      Promise.all([
        sample('gleaner_requests_total', ok),
        sample('gleaner_requests_total', unauthorized),
        sample('gleaner_credits_charged_total', credits),
        sample('gleaner_upstream_failures_total', upstream),
        sample('gleaner_jobs_total', failedJobs),
        sample('gleaner_job_duration_seconds_count', failedJobs),
      ]);
    const before = await counters();

    expect((await server.request('GET', '/v1/me', { apiKey: key })).status).toBe(200);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).status).toBe(200);
    expect((await server.request('GET', '/v1/me')).status).toBe(401);
    expect((await server.request('POST', '/v1/test/post-echo', { apiKey: key, body: { items: ['https://example.com/'] } })).status).toBe(200);
    const started = await server.request('POST', '/v1/test/job', { apiKey: key, body: { steps: 1, fail: true } });
    expect(started.status).toBe(202);
    const jobId = started.body.jobId;
    for (;;) {
      if (gates.listenerCount('step') > 0) gates.emit('step');
      const job = await server.request('GET', `/v1/jobs/${jobId}`, { apiKey: key });
      if (job.body.status === 'failed') break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }

    const after = await counters();
    expect(after.map((value, i) => value - before[i])).toEqual([2, 1, 1, 1, 1, 1]);
  });
});

describe('the access log (issue 15.3)', () => {
  it('N requests to `gleaner serve` write N access-log lines on stderr', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-access-'));
    const child = spawn(process.execPath, [GLEANER_MAIN, 'serve', '--port', '0'], {
      env: { ...(process.env as Record<string, string>), GLEANER_DATA_DIR: dataDir, GLEANER_LOG_LEVEL: 'info', GLEANER_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const lines = readline.createInterface({ input: child.stderr });
      const stdout: string[] = [];
      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk.toString('utf8')));
      const records: Array<Record<string, any>> = [];
      const waiters: Array<() => void> = [];
      lines.on('line', (line) => {
        records.push(JSON.parse(line));
        waiters.splice(0).forEach((wake) => wake());
      });
      const until = async (test: () => boolean) => {
        while (!test()) await new Promise<void>((resolve) => waiters.push(resolve));
      };
      await until(() => records.some((r) => r.url));
      const url = records.find((r) => r.url)!.url as string;
      const ownerKey = /\n {2}(\S+)\n/.exec(stdout.join(''))![1];

      const calls: Array<[string, Record<string, string>]> = [
        ['/v1/me', { 'x-api-key': ownerKey }],
        ['/v1/me', { authorization: `Bearer ${ownerKey}` }],
        ['/v1/me', {}],
        ['/v1/nowhere', {}],
        ['/healthz', {}],
        ['/v1/jobs/%ZZ', {}],
      ];
      for (const [pathname, headers] of calls) await (await fetch(`${url}${pathname}`, { headers })).text();
      const access = () => records.filter((r) => r.msg === 'request');
      await until(() => access().length >= calls.length);
      // One more request proves there was no extra line in flight.
      await (await fetch(`${url}/healthz`)).text();
      await until(() => access().length >= calls.length + 1);
      expect(access()).toHaveLength(calls.length + 1);
      const [first, second, third, fourth, fifth, sixth] = access();
      expect(first).toMatchObject({ method: 'GET', route: '/v1/me', operation: 'account', status: 200, credits: 0 });
      expect(typeof first.ms).toBe('number');
      expect(typeof first.accountId).toBe('string');
      expect(second).toMatchObject({ status: 200, accountId: first.accountId });
      expect(third).toMatchObject({ status: 401 });
      expect(third.accountId).toBeUndefined();
      expect(fourth).toMatchObject({ status: 404, route: 'unmatched' });
      expect(fifth).toMatchObject({ status: 200, route: '/healthz' });
      expect(sixth).toMatchObject({ status: 400 });
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);
});

describe('/metrics: upstream requests (issue 15.3)', () => {
  it('counts outbound exchanges by platform and status', async () => {
    const http = await import('node:http');
    // A page of this test's own, served on loopback in place of a site.
    const site = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>t</title></head><body><p>hello</p></body></html>'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
    const origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
    const scraping = await startTestServer({ env: { GLEANER_UPSTREAM_OVERRIDES: `page.example=${origin}` } });
    try {
      const scrapeKey = await scraping.createKey('Pro');
      const labels = { platform: 'web', status: '200' };
      const before = await sample('gleaner_upstream_requests_total', labels);
      const response = await scraping.request('GET', '/v1/web/scrape?url=https://page.example/', { apiKey: scrapeKey });
      expect(response.status).toBe(200);
      expect(await sample('gleaner_upstream_requests_total', labels)).toBe(before + 1);
    } finally {
      await scraping.close();
      site.closeAllConnections();
      site.close();
    }
  });
});

describe('log lines for jobs and upstream failures (issue 15.3)', () => {
  it('a job writes "job started" and "job finished"; its upstream failure writes "upstream failure"', async () => {
    const { Writable } = await import('node:stream');
    const { pino } = await import('pino');
    const records: Array<Record<string, any>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) records.push(JSON.parse(line));
        done();
      },
    });
    const logged = await startTestServer({ operations: TEST_OPERATIONS, logger: pino({ level: 'info' }, sink) });
    try {
      const jobKey = await logged.createKey('Pro');
      const started = await logged.request('POST', '/v1/test/job', { apiKey: jobKey, body: { steps: 1, fail: true } });
      expect(started.status).toBe(202);
      const jobId = started.body.jobId as string;
      for (;;) {
        if (gates.listenerCount('step') > 0) gates.emit('step');
        const job = await logged.request('GET', `/v1/jobs/${jobId}`, { apiKey: jobKey });
        if (job.body.status === 'failed') break;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const mine = records.filter((r) => r.jobId === jobId);
      expect(mine.find((r) => r.msg === 'job started')).toMatchObject({ operation: 'test_job' });
      expect(mine.find((r) => r.msg === 'job finished')).toMatchObject({ operation: 'test_job', status: 'failed', code: 'UPSTREAM_ERROR' });
      expect(typeof mine.find((r) => r.msg === 'job finished')!.ms).toBe('number');
      expect(records.find((r) => r.msg === 'upstream failure' && r.operation === 'test_job')).toMatchObject({ platform: 'web', code: 'UPSTREAM_ERROR' });
      // Each HTTP request above wrote its access line to the same logger.
      expect(records.filter((r) => r.msg === 'request').length).toBeGreaterThanOrEqual(2);
    } finally {
      await logged.close();
    }
  });
});
