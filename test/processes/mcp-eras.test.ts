/**
 * One MCP endpoint for both protocol eras, on two `gleaner serve` processes that share one Redis,
 * behind a proxy that sends each request to the other process (issue 27): nothing of a
 * conversation may live in one process's memory. A 2026-07-28 client (the SDK's v2 Client, with
 * the Tasks extension through @modelcontextprotocol/ext-tasks) and a 2025 client (the SDK 1.x
 * Client) both list the tools, page a 200 KB scrape to the end, start crawls, follow one as a task
 * (v2) or a job (1.x), and cancel one, every request landing on the process the last did not.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import { callApi, createKeyWithCli, hasRedis, jobEnd, startGleaner, startRedis, type GleanerProcess } from '../support/processes.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';
import { connectMcp, pageData } from '../support/mcp.js';
import { connectMcpV2, modernDispatch, tasksSession, TASKS } from '../support/mcp-v2.js';

/** A proxy that sends request n to backend n mod 2, and records where each went. */
async function roundRobin(backends: string[]): Promise<{ url: string; routed: number[]; close(): Promise<void> }> {
  const routed: number[] = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const index = next++ % backends.length;
    routed.push(index);
    const target = new URL(req.url ?? '/', backends[index]);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routed,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A 200 KB article: numbered paragraphs of plain words. */
function bigPage(): string {
  const words = 'gleaner reads the page and hands its text to an assistant in pages of about twenty thousand characters'.split(' ');
  const paragraphs = Array.from({ length: 900 }, (_, i) => `<p>Paragraph ${i + 1}. ${Array.from({ length: 36 }, (_, j) => words[(i + j) % words.length]).join(' ')}.</p>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A long page</title></head><body><article><h1>A long page</h1>${paragraphs.join('\n')}</article></body></html>`;
}

interface Page {
  content: string;
  nextCursor?: string | null;
}

/** Every page of web_scrape, following nextCursor with the cursor alone. */
async function allPages(call: (args: Record<string, unknown>) => Promise<any>, url: string): Promise<Page[]> {
  const pages: Page[] = [];
  let args: Record<string, unknown> = { url };
  for (;;) {
    const result = await call(args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    pages.push(pageData(result) as Page);
    const cursor = (pageData(result) as Page).nextCursor;
    if (!cursor) return pages;
    args = { cursor };
    expect(pages.length).toBeLessThan(100);
  }
}

const credits = async (base: string, key: string) => (await callApi(base, key, 'GET', '/v1/me')).body.credits as number;

describe.skipIf(!hasRedis())('MCP of both eras on two processes behind a round-robin proxy (issue 27)', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  const stops: Array<() => Promise<void>> = [];
  let a: GleanerProcess;
  let b: GleanerProcess;
  let proxy: Awaited<ReturnType<typeof roundRobin>>;
  let pageUrl: string;
  let key: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = await startRedis();
    const html = bigPage();
    const site = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    stops.push(async () => {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    });
    pageUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/long`;
    env = {
      GLEANER_STORE_URL: redis.url,
      GLEANER_ALLOW_PRIVATE_URLS: 'true',
      GLEANER_JOB_LEASE_SECONDS: '3',
      // A 2025 client's crawl returns its job handle after a second; the test follows it with job_status.
      GLEANER_MCP_WAIT_SECONDS: '1',
      GLEANER_HTTP_TIMEOUT_MS: '600000',
      GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-mcp-eras-')),
    };
    key = await createKeyWithCli(env, 'Mega', 2_000);
    a = await startGleaner(['serve', '--port', '0'], env);
    stops.push(() => a.stop());
    b = await startGleaner(['serve', '--port', '0'], env);
    stops.push(() => b.stop());
    proxy = await roundRobin([a.url!, b.url!]);
    stops.push(() => proxy.close());
  }, 180_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await redis?.stop();
  });

  /** Every request the proxy forwarded went to the other process than the one before. */
  const alternated = () => {
    expect(proxy.routed.length).toBeGreaterThan(10);
    proxy.routed.forEach((backend, i) => i > 0 && expect(backend).not.toBe(proxy.routed[i - 1]));
  };

  it('a v2 client and a 1.x client list the tools and page a 200 KB scrape to the end, charged once each', async () => {
    const rest = await callApi(a.url!, key, 'GET', `/v1/web/scrape?url=${encodeURIComponent(pageUrl)}`);
    expect(rest.status).toBe(200);
    expect(rest.body.content.length).toBeGreaterThan(200_000);

    const modern: ClientV2 = await connectMcpV2(proxy.url, key);
    expect(modern.getProtocolEra()).toBe('modern');
    const legacy: ClientV1 = await connectMcp(proxy.url, key);
    const modernTools = (await modern.listTools()).tools.map((t) => t.name);
    const legacyTools = (await legacy.listTools()).tools.map((t) => t.name);
    expect(modernTools).toEqual(legacyTools);
    expect(modernTools).toContain('web_scrape');

    for (const call of [(args: Record<string, unknown>) => modern.callTool({ name: 'web_scrape', arguments: args }), (args: Record<string, unknown>) => legacy.callTool({ name: 'web_scrape', arguments: args })]) {
      const before = await credits(a.url!, key);
      const pages = await allPages(call, pageUrl);
      expect(pages.length).toBeGreaterThanOrEqual(10);
      expect(pages.map((p) => p.content).join('')).toBe(rest.body.content);
      expect(before - (await credits(a.url!, key))).toBe(1);
    }
    await modern.close();
    await legacy.close();
    alternated();
  }, 300_000);

  it('the v2 client follows a crawl as a task and cancels another; the 1.x client follows one as a job and cancels another', async () => {
    const site: GatedSite = await startGatedSite(20);
    stops.push(() => site.close());
    const capabilities = { extensions: { [TASKS]: {} } };
    const modern = await connectMcpV2(proxy.url, key, capabilities);
    const session = tasksSession(modern, modernDispatch(proxy.url, key, capabilities), capabilities);
    const legacy = await connectMcp(proxy.url, key);
    const start = await credits(a.url!, key);

    // v2: a task at once, then its result once the site lets the pages through.
    const crawl = await session.callTool('web_crawl', { url: `${site.origin}/`, maxPages: 4 });
    expect(crawl.kind).toBe('task');
    const taskId = crawl.handle!.taskId;
    site.release(4);
    const settled = await crawl.settle();
    expect(settled.outcome.status).toBe('completed');
    const result = (settled.outcome as { result: any }).result;
    expect(result.structuredContent.jobId).toBe(taskId);
    expect(result.structuredContent.status).toBe('completed');
    expect(await credits(a.url!, key)).toBe(start - 4);

    // 1.x: the job handle after the wait, then job_status (on alternating processes) until it ends.
    // (Each crawl gets a site of its own: pages already read are not asked for again.)
    const site2: GatedSite = await startGatedSite(20);
    stops.push(() => site2.close());
    const handle = await legacy.callTool({ name: 'web_crawl', arguments: { url: `${site2.origin}/`, maxPages: 3 } });
    const jobId = (handle.structuredContent as { jobId: string }).jobId;
    expect(jobId).toMatch(/^job_/);
    // The handle's words: the state, then (a block of its own) what to call next.
    expect((handle.content as Array<{ text: string }>).map((block) => block.text).join('\n')).toContain('job_status');
    site2.release(3);
    let status = handle.structuredContent as { status: string };
    for (let tries = 0; status.status !== 'completed' && tries < 600; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = (await legacy.callTool({ name: 'job_status', arguments: { jobId } })).structuredContent as { status: string };
      expect(['queued', 'processing', 'completed']).toContain(status.status);
    }
    expect(status.status).toBe('completed');
    expect(await credits(a.url!, key)).toBe(start - 7);

    // v2 cancels a task whose crawl fetched 2 pages; 1.x cancels a job whose crawl fetched none.
    const site3: GatedSite = await startGatedSite(20);
    stops.push(() => site3.close());
    const held = await session.callTool('web_crawl', { url: `${site3.origin}/`, maxPages: 8 });
    expect(held.kind).toBe('task');
    await site3.requestedAtLeast(1);
    site3.release(2);
    await site3.requestedAtLeast(3);
    await held.cancel();
    // The held page request is dropped by the stopping crawl: nothing more is released until it has ended.
    const cancelledTask = await jobEnd(b.url!, key, held.handle!.taskId);
    site3.releaseAll();
    expect(cancelledTask.status).toBe('cancelled');

    const afterTask = await credits(a.url!, key);
    expect(start - 7 - afterTask).toBe(cancelledTask.creditsUsed);
    // The pages fetched before the cancel, no more.
    expect(cancelledTask.creditsUsed).toBe(2);
    expect(cancelledTask.result.pages).toHaveLength(cancelledTask.creditsUsed);

    const gated: GatedSite = await startGatedSite(20);
    stops.push(() => gated.close());
    const second = await legacy.callTool({ name: 'web_crawl', arguments: { url: `${gated.origin}/`, maxPages: 8 } });
    const secondId = (second.structuredContent as { jobId: string }).jobId;
    await gated.requestedAtLeast(1);
    const cancelled = await legacy.callTool({ name: 'job_cancel', arguments: { jobId: secondId } });
    expect(cancelled.isError).toBeFalsy();
    const cancelledJob = await jobEnd(a.url!, key, secondId);
    gated.releaseAll();
    expect(cancelledJob.status).toBe('cancelled');
    expect(cancelledJob.creditsUsed).toBe(0);
    expect(await credits(a.url!, key)).toBe(afterTask - cancelledJob.creditsUsed);

    await session.close();
    await modern.close();
    await legacy.close();
    alternated();
  }, 300_000);

  it('a 300-page crawl is a task at once, then its result; a cancelled one charges only the pages fetched', async () => {
    const site: GatedSite = await startGatedSite(300);
    stops.push(() => site.close());
    const capabilities = { extensions: { [TASKS]: {} } };
    const modern = await connectMcpV2(proxy.url, key, capabilities);
    const session = tasksSession(modern, modernDispatch(proxy.url, key, capabilities), capabilities);
    const start = await credits(a.url!, key);

    const began = performance.now();
    const crawl = await session.callTool('web_crawl', { url: `${site.origin}/`, maxPages: 300 });
    const tookMs = performance.now() - began;
    // Measured, not asserted (the machine may be busy): reported in the log of the run.
    console.log(`MCP_TASK_CREATED_MS=${tookMs.toFixed(0)}`);
    expect(crawl.kind).toBe('task');
    site.releaseAll();
    const settled = await crawl.settle();
    expect(settled.outcome.status).toBe('completed');
    const result = (settled.outcome as { result: any }).result.structuredContent;
    expect(result.status).toBe('completed');
    const job = await jobEnd(a.url!, key, crawl.handle!.taskId);
    expect(job.result.pages).toHaveLength(300);
    expect(await credits(a.url!, key)).toBe(start - 300);

    const gated: GatedSite = await startGatedSite(300);
    stops.push(() => gated.close());
    const second = await session.callTool('web_crawl', { url: `${gated.origin}/`, maxPages: 300 });
    expect(second.kind).toBe('task');
    await gated.requestedAtLeast(1);
    gated.release(5);
    await gated.requestedAtLeast(6);
    await second.cancel();
    const cancelled = await jobEnd(b.url!, key, second.handle!.taskId);
    gated.releaseAll();
    expect(cancelled.status).toBe('cancelled');
    // The pages fetched before the cancel took effect, and no more.
    expect(cancelled.creditsUsed).toBe(5);
    expect(cancelled.result?.pages?.length ?? 0).toBe(cancelled.creditsUsed);
    expect(await credits(a.url!, key)).toBe(start - 300 - cancelled.creditsUsed);
    // The task says it was cancelled, asked of the other process.
    const seen = await modernDispatch(proxy.url, key, capabilities)({ jsonrpc: '2.0', method: 'tasks/get', params: { taskId: second.handle!.taskId } });
    expect(seen.result).toMatchObject({ taskId: second.handle!.taskId, status: 'cancelled', resultType: 'complete' });

    await session.close();
    await modern.close();
    alternated();
  }, 600_000);

  it('a 2025 client that declares sampling connects and calls tools through both processes: served without sampling where its session is not (issue 41)', async () => {
    const client = new Client({ name: 'sampling-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    const from = proxy.routed.length;
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(10);
    for (let i = 0; i < 4; i++) {
      const result = await client.callTool({ name: 'account', arguments: {} });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    }
    // Its requests reached both processes, the one holding its session and the other.
    expect(new Set(proxy.routed.slice(from))).toEqual(new Set([0, 1]));
    await client.close();
  }, 60_000);
});
