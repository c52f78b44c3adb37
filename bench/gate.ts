/**
 * Gate throughput: REST calls per second through key -> plan -> rate -> credits -> run -> charge,
 * on the real server and the real SQLite store, for a free call and a charged one.
 */
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { startTestServer } from '../test/helpers/server.js';
import { defineOperation } from '../src/operations/define.js';
import { OPERATIONS } from '../src/operations/table.js';

const charged = defineOperation({
  name: 'bench_charged',
  title: 'Charged no-op (benchmark)',
  description: 'Costs one credit and does nothing.',
  http: { method: 'GET', path: '/v1/bench/charged' },
  input: z.object({}),
  output: z.object({ ok: z.boolean() }),
  plan: 'Free',
  cost: 1,
  kind: 'sync',
  async run() {
    return { ok: true };
  },
});

async function measure(label: string, total: number, concurrency: number, call: () => Promise<number>) {
  let next = 0;
  const statuses = new Map<number, number>();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const status = await call();
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label}: ${total} calls, concurrency ${concurrency}: ${(total / seconds).toFixed(0)} calls/s, ${((seconds / total) * 1000).toFixed(2)} ms/call; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
}

export async function benchGate(): Promise<void> {
  const server = await startTestServer({ operations: [...OPERATIONS, charged] });
  try {
    const key = await server.createKey('Enterprise', { credits: 1_000_000 });
    const get = (path: string) => async () => {
      const response = await fetch(`${server.baseUrl}${path}`, { headers: { 'x-api-key': key } });
      await response.arrayBuffer();
      return response.status;
    };
    await measure('gate, free call (GET /v1/me)', 2_000, 32, get('/v1/me'));
    await measure('gate, 1-credit call (SQLite, atomic charge)', 2_000, 32, get('/v1/bench/charged'));
    const rss = process.memoryUsage().rss / 1024 / 1024;
    console.log(`gate: RSS after runs ${rss.toFixed(0)} MiB`);
  } finally {
    await server.close();
  }
}
