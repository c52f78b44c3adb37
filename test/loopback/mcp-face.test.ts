/**
 * The MCP face's loose ends (issue 41): a Free key pages a long reply to its end in one go, and a
 * 2026-07-28 notifications/cancelled arriving as its own POST cancels the call's job. Real servers
 * on loopback, the SDK's clients and raw POSTs as clients send them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp, errorEnvelope } from '../support/mcp.js';
import { longArticle, startLongPageSite } from '../support/long-replies.js';
import { startGatedSite, type GatedSite } from '../support/gated-site.js';
import { lastRpcMessage, MODERN } from '../support/mcp-v2.js';
import { PAGE_RATE_SCALE } from '../../src/gate/gate.js';
import { PLANS } from '../../src/accounts/plans.js';

const env = { GLEANER_ALLOW_PRIVATE_URLS: 'true' };
const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function serve(extra: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer({ env: { ...env, ...extra } });
  stops.push(() => server.close());
  return server;
}

/** The footer block of a paged result: `[Page k of N…]`. */
const footerOf = (result: any) => (result.content as Array<{ text: string }>).at(-1)!.text;
const cursorIn = (footer: string) => /cursor="([^"]+)"/.exec(footer)?.[1];

describe('paging with a Free key', () => {
  it('reads a 300 KB page to its end in one go: later pages do not use up the rate meant for new work', async () => {
    const server = await serve();
    const site = await startLongPageSite(longArticle(6));
    stops.push(() => site.close());
    const key = await server.createKey('Free');
    const client = await connectMcp(server.baseUrl, key);
    stops.push(() => client.close());

    const footers: string[] = [];
    let result: any = await client.callTool({ name: 'web_scrape', arguments: { url: site.url } });
    for (;;) {
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      footers.push(footerOf(result));
      const cursor = cursorIn(footers.at(-1)!);
      if (!cursor) break;
      result = await client.callTool({ name: 'web_scrape', arguments: { cursor } });
    }
    // More pages than the Free plan's burst of calls, every one answered.
    expect(footers.length).toBeGreaterThan(PLANS.Free.burst! + 4);
    expect(footers.at(-1)).toBe(`[Page ${footers.length} of ${footers.length}: the last.]`);
    console.info(`a Free key paged ${site.url} to its end: ${footers.length} pages, none refused`);
    // The rate for new work is untouched but for the first call.
    expect((await server.app.gate.rateStatus(await server.app.services.accounts.authenticate(key))).remaining).toBeGreaterThanOrEqual(PLANS.Free.burst! - 1);
  }, 120_000);

  it('a refused page says the cursor stays valid and when to come back, and the same cursor then works', async () => {
    let now = Date.parse('2026-11-28T12:00:00Z');
    const server = await startTestServer({ env, clock: () => new Date(now) });
    stops.push(() => server.close());
    const site = await startLongPageSite();
    stops.push(() => site.close());
    const key = await server.createKey('Free');
    const client = await connectMcp(server.baseUrl, key);
    stops.push(() => client.close());
    const first = await client.callTool({ name: 'web_scrape', arguments: { url: site.url } });
    const cursor = cursorIn(footerOf(first))!;
    const account = await server.app.services.accounts.authenticate(key);
    for (let i = 0; i < PLANS.Free.burst! * PAGE_RATE_SCALE; i++) await server.app.gate.admitPage(account);

    const refused = errorEnvelope(await client.callTool({ name: 'web_scrape', arguments: { cursor } }));
    expect(refused.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.error.message).toMatch(/The cursor stays valid: call again with the same cursor in \d+ s \(nothing is charged\)\./);
    now += 60_000;
    const again: any = await client.callTool({ name: 'web_scrape', arguments: { cursor } });
    expect(again.isError).toBeFalsy();
    expect(footerOf(again)).toMatch(/^\[Page 2 of /);
  }, 60_000);
});

describe('a 2026-07-28 notifications/cancelled over HTTP', () => {
  /** One 2026-07-28 message as a client (or mcp-remote, for one) posts it. */
  const post = (server: TestServer, key: string, message: any) =>
    fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, 'mcp-protocol-version': MODERN, 'mcp-method': message.method, ...(message.params.name ? { 'mcp-name': message.params.name } : {}) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        ...message,
        params: { ...message.params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });

  it('cancels the crawl the call started: it ends cancelled, charged the pages it read', async () => {
    const server = await serve({ GLEANER_MCP_WAIT_SECONDS: '120' });
    const site: GatedSite = await startGatedSite(30);
    stops.push(async () => {
      site.releaseAll();
      await site.close();
    });
    const key = await server.createKey('Pro', { credits: 100 });
    const call = post(server, key, { id: 41, method: 'tools/call', params: { name: 'web_crawl', arguments: { url: `${site.origin}/`, maxPages: 30 } } });
    site.release(2);
    await site.requestedAtLeast(3);
    const cancelled = await post(server, key, { method: 'notifications/cancelled', params: { requestId: 41, reason: 'the user stopped it' } });
    expect(cancelled.status).toBe(202);
    await cancelled.text();
    const { jobs } = (await server.request('GET', '/v1/jobs', { apiKey: key })).body as { jobs: Array<{ jobId: string }> };
    expect(jobs).toHaveLength(1);
    // The job is asked to stop (without the fix it never is, and the test times out here).
    while ((await server.app.services.jobs.record(jobs[0].jobId))?.cancelRequested !== true) await new Promise((resolve) => setTimeout(resolve, 50));
    site.releaseAll();
    const reply = await call.then((response) => response.text());
    let job: any;
    do job = (await server.request('GET', `/v1/jobs/${jobs[0].jobId}`, { apiKey: key })).body;
    while (!['completed', 'failed', 'cancelled'].includes(job.status) && (await new Promise((resolve) => setTimeout(resolve, 50)), true));
    expect(job.status, reply).toBe('cancelled');
    // Charged what it used: the pages read before the cancel, not the 30 it was allowed.
    const used = 100 - ((await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number);
    expect(used).toBeLessThan(30);
    expect(lastRpcMessage(reply) ?? {}).not.toHaveProperty('result.structuredContent.status', 'completed');
  }, 60_000);
});
