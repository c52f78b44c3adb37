import pLimit from 'p-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestServer, type TestServer } from '../support/server.js';
import { defineOperation } from '../../src/operations/define.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { GleanerError } from '../../src/errors.js';
import { connectMcp } from '../support/mcp.js';

/** Operations of the tests' own, to drive the gate; the product ships none of them. */
const echo = defineOperation({
  name: 'test_echo',
  title: 'Echo (test)',
  description: 'Returns its input; costs one credit.',
  http: { method: 'GET', path: '/v1/test/echo' },
  input: z.object({ value: z.number().int().min(0).max(10).default(1) }),
  output: z.object({ value: z.number().int() }),
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  async run(input) {
    return { value: input.value };
  },
});

const proOnly = defineOperation({
  ...echo,
  name: 'test_pro_only',
  http: { method: 'GET', path: '/v1/test/pro' },
  plan: 'Pro',
});

const failing = defineOperation({
  ...echo,
  name: 'test_failing',
  http: { method: 'GET', path: '/v1/test/failing' },
  async run(): Promise<never> {
    throw new GleanerError('UPSTREAM_UNAVAILABLE', 'upstream down');
  },
});

/** Reserves 10, then learns the work cost 3. */
const variable = defineOperation({
  ...echo,
  name: 'test_variable',
  http: { method: 'GET', path: '/v1/test/variable' },
  output: z.object({ used: z.number().int() }),
  cost: { reserve: () => 10, settle: (_input, result: { used: number }) => result.used },
  async run() {
    return { used: 3 };
  },
});

const operations = [...OPERATIONS, echo, proOnly, failing, variable];

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('keys and the account', () => {
  it('a Free key sees its account with all five headers', async () => {
    server = await startTestServer();
    const key = await server.createKey('Free');
    const response = await server.request('GET', '/v1/me', { apiKey: key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ plan: 'Free', credits: 100 });
    expect(response.body.id).toMatch(/^acct_/);
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Credits-Used', 'X-Credits-Remaining']) {
      expect(response.headers.get(header), header).not.toBeNull();
    }
    expect(response.headers.get('X-RateLimit-Limit')).toBe('10');
    expect(response.headers.get('X-Credits-Remaining')).toBe('100');
    expect(Number(response.headers.get('X-RateLimit-Reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
  });

  it('no key or a wrong key is 401 in the envelope with a request id', async () => {
    server = await startTestServer();
    for (const apiKey of [undefined, 'gl_not-a-key']) {
      const response = await server.request('GET', '/v1/me', { apiKey });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
      expect(response.body.error.requestId).toBe(response.headers.get('X-Request-Id'));
    }
  });

  it('a revoked key is refused; keys are stored only hashed', async () => {
    server = await startTestServer();
    const { account, apiKey } = await server.app.services.accounts.create({ plan: 'Pro' });
    const stored = JSON.stringify(await server.app.services.store.get(`account:${account.id}`));
    expect(stored).not.toContain(apiKey);
    await server.app.services.accounts.revoke(account.id);
    expect((await server.request('GET', '/v1/me', { apiKey })).status).toBe(401);
  });

  it('a request reads its key from the store once, on REST and on /mcp', async () => {
    server = await startTestServer({ operations });
    const key = await server.createKey('Pro');
    const store = server.app.services.store;
    let keyReads = 0;
    const getThrough = store.getThrough.bind(store);
    store.getThrough = ((storeKey: string, next: (value: string) => string) => {
      if (storeKey.startsWith('keyhash:')) keyReads += 1;
      return getThrough(storeKey, next);
    }) as typeof store.getThrough;

    for (const path of ['/v1/me', '/v1/test/echo?value=2']) {
      keyReads = 0;
      expect((await server.request('GET', path, { apiKey: key })).status).toBe(200);
      expect(keyReads, path).toBe(1);
    }

    const client = await connectMcp(server.baseUrl, key);
    try {
      keyReads = 0;
      const result = await client.callTool({ name: 'account', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(keyReads, 'one tools/call over /mcp').toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('rate limits', () => {
  it('a Free key gets exactly 10 requests in a burst; the 11th is 429 with Retry-After', async () => {
    server = await startTestServer();
    const key = await server.createKey('Free');
    const responses = await Promise.all(Array.from({ length: 11 }, () => server!.request('GET', '/v1/me', { apiKey: key })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toMatch(/too many requests/i);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  it('a Pro key gets 200 in a burst, then tokens come back at 100 a minute', async () => {
    server = await startTestServer();
    const key = await server.createKey('Pro');
    const me = () => server!.request('GET', '/v1/me', { apiKey: key });
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 200 }, me));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(200);
    const more = await Promise.all(Array.from({ length: 50 }, me));
    // 100 a minute is one token every 600 ms: only what refilled since the burst began gets through.
    const refilled = Math.floor((Date.now() - started) / 600) + 1;
    expect(more.filter((r) => r.status === 200).length).toBeLessThanOrEqual(refilled);
    expect(more.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(50 - refilled);

    const waitStarted = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const after = await Promise.all(Array.from({ length: 10 }, me));
    const passed = after.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(2);
    expect(passed).toBeLessThanOrEqual(Math.floor((Date.now() - waitStarted) / 600) + 1);
  });
});

describe('credits', () => {
  it('1,000 1-credit calls, 200 at once, on 100 credits: exactly 100 succeed, and the balance stays 0 after a restart', async () => {
    server = await startTestServer({ operations });
    const key = await server.createKey('Enterprise', { credits: 100 });
    // 200 in flight at once, more than the credits: a burst of 1,000 new connections overflows the accept
    // queue of a loaded 2-core machine (ECONNRESET at load 20), which tests the kernel, not the gate.
    const inFlight = pLimit(200);
    const responses = await Promise.all(Array.from({ length: 1000 }, () => inFlight(() => server!.request('GET', '/v1/test/echo', { apiKey: key }))));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(100);
    const refused = responses.filter((r) => r.status === 402);
    expect(refused).toHaveLength(900);
    expect(refused.every((r) => r.body.error.code === 'CREDITS_EXHAUSTED')).toBe(true);
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(0);

    const dataDir = server.dataDir;
    await server.close();
    server = await startTestServer({ operations, dataDir });
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(0);
  });

  it('a Pro+ operation on a Basic key is 402 UPGRADE_REQUIRED and charges nothing', async () => {
    server = await startTestServer({ operations });
    const key = await server.createKey('Basic');
    const response = await server.request('GET', '/v1/test/pro', { apiKey: key });
    expect(response.status).toBe(402);
    expect(response.body.error.code).toBe('UPGRADE_REQUIRED');
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(300);
  });

  it('failed work and bad input charge nothing', async () => {
    server = await startTestServer({ operations });
    const key = await server.createKey('Pro');
    const failed = await server.request('GET', '/v1/test/failing', { apiKey: key });
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    const bad = await server.request('GET', '/v1/test/echo?value=11', { apiKey: key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    expect(bad.body.error.message).toContain('value');
    expect(bad.body.error.message).toContain('10');
    expect((await server.request('GET', '/v1/me', { apiKey: key })).body.credits).toBe(3000);
  });

  it('a variable cost reserves its estimate and settles the actual amount', async () => {
    server = await startTestServer({ operations });
    const key = await server.createKey('Free');
    const response = await server.request('GET', '/v1/test/variable', { apiKey: key });
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Credits-Used')).toBe('3');
    expect(response.headers.get('X-Credits-Remaining')).toBe('97');
  });

  it('the allowance resets at 00:00 UTC on the first of the month', async () => {
    let now = new Date('2026-11-30T23:59:00Z');
    server = await startTestServer({ operations, clock: () => now });
    const key = await server.createKey('Free', { credits: 2 });
    expect((await server.request('GET', '/v1/test/echo', { apiKey: key })).status).toBe(200);
    expect((await server.request('GET', '/v1/test/echo', { apiKey: key })).status).toBe(200);
    expect((await server.request('GET', '/v1/test/echo', { apiKey: key })).body.error.code).toBe('CREDITS_EXHAUSTED');
    now = new Date('2026-12-01T00:00:00Z');
    const renewed = await server.request('GET', '/v1/me', { apiKey: key });
    expect(renewed.body.credits).toBe(2);
    expect(renewed.body.creditsResetAt).toBe('2027-01-01T00:00:00.000Z');
    expect((await server.request('GET', '/v1/test/echo', { apiKey: key })).status).toBe(200);
  });
});
