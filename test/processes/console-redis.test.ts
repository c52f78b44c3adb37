/**
 * Two `gleaner serve` processes on one Redis: a console session started on one is accepted by the
 * other, a call answered by one shows in the usage the other renders, and signing out on one ends
 * the session on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, createKeyWithCli, hasRedis, startGleaner, startRedis, type GleanerProcess } from '../support/processes.js';
import { consoleSession, formToken, postForm } from '../support/console-session.js';

const TIMEOUT = 180_000;
let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
const servers: GleanerProcess[] = [];

describe.skipIf(!hasRedis())('the console on two processes sharing Redis', () => {
  beforeAll(async () => {
    redis = await startRedis();
    const env = { GLEANER_STORE_URL: redis.url, GLEANER_PORT: '0' };
    // One first, so only it creates the owner key of an empty store.
    servers.push(await startGleaner(['serve'], env));
    servers.push(await startGleaner(['serve'], env));
  }, TIMEOUT);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await redis?.stop();
  }, TIMEOUT);

  it(
    'one session, one usage log, one sign-out',
    async () => {
      const [a, b] = servers.map((server) => server.url!);
      const key = await createKeyWithCli({ GLEANER_STORE_URL: redis!.url }, 'Pro', 100);
      const cookie = await consoleSession(a, key);
      const onB = await fetch(`${b}/console`, { headers: { cookie }, redirect: 'manual' });
      expect(onB.status).toBe(200);
      expect(await onB.text()).toContain('id="plan">Pro<');

      // A call answered by B reaches the usage page of A (B writes its log within a quarter second).
      expect((await callApi(b, key, 'GET', '/v1/me')).status).toBe(200);
      let usage = '';
      for (let attempt = 0; attempt < 600 && !usage.includes('<td class="mono">account</td>'); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        usage = await (await fetch(`${a}/console/usage`, { headers: { cookie } })).text();
      }
      expect(usage).toContain('<td class="mono">account</td>');

      const out = await postForm(b, '/console/sign-out', cookie, { csrf: await formToken(b, cookie) });
      expect(out.status).toBe(303);
      const afterOnA = await fetch(`${a}/console`, { headers: { cookie }, redirect: 'manual' });
      expect(afterOnA.status).toBe(303);
      expect(afterOnA.headers.get('location')).toBe('/console/sign-in');
    },
    TIMEOUT,
  );
});
