/**
 * A real Gleaner server in a process of its own, for tests that need several processes on one store:
 * the product's app and HTTP surface plus one test operation costing 1 credit, which can be made slow.
 * Prints "READY <base url>" on stdout once it listens. Store from GLEANER_DATA_DIR / GLEANER_STORE_URL.
 */
import { z } from 'zod';
import { setTimeout as delay } from 'node:timers/promises';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/app.js';
import { startHttpServer } from '../../src/surfaces/http-server.js';
import { defineOperation } from '../../src/operations/define.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { silentLogger } from '../../src/log.js';

export const chargeOperation = defineOperation({
  name: 'test_charge',
  title: 'Charged call (test)',
  description: 'Costs one credit; waits `ms` milliseconds first.',
  http: { method: 'GET', path: '/v1/test/charge' },
  input: z.object({ ms: z.coerce.number().int().min(0).max(600_000).default(0) }),
  output: z.object({ ok: z.boolean() }),
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  async run(input) {
    if (input.ms) await delay(input.ms);
    return { ok: true };
  },
});

async function main(): Promise<void> {
  const config = loadConfig({ GLEANER_LOG_LEVEL: 'silent', ...process.env });
  const app = await createApp(config, { logger: silentLogger, operations: [...OPERATIONS, chargeOperation] });
  const server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  process.stdout.write(`READY ${server.url}\n`);
  process.on('SIGTERM', () => void server.close().then(() => app.close()).then(() => process.exit(0)));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) void main();
