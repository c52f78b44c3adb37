/**
 * Gate throughput: REST calls per second through key -> plan -> rate -> credits -> run -> charge,
 * on the real server and the real SQLite store, for a free call and a charged one, beside a bare
 * node:http handler in the same process as the ceiling. Credits are counted after the run.
 */
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../test/support/server.js';
import { chargeOperation as charged } from '../test/support/charged-server.js';
import { OPERATIONS } from '../src/operations/table.js';

const SLOW_FSYNC_MS = 5;

async function measure(label: string, total: number, concurrency: number, call: () => Promise<number>): Promise<number> {
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
  return total / seconds;
}

export async function benchGate(): Promise<void> {
  const server = await startTestServer({ operations: [...OPERATIONS, charged] });
  const bare = http.createServer((_request, response) => response.end('{"ok":true}')).listen(0, '127.0.0.1');
  await once(bare, 'listening');
  try {
    const { account, apiKey: key } = await server.app.services.accounts.create({ plan: 'Enterprise', monthlyCredits: 1_000_000 });
    const get = (base: string, path: string) => async () => {
      const response = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
      await response.arrayBuffer();
      return response.status;
    };
    const total = 2_000;
    await measure('gate, bare node:http handler (ceiling)', total, 32, get(`http://127.0.0.1:${(bare.address() as AddressInfo).port}`, '/'));
    const free = await measure('gate, free call (GET /v1/me)', total, 32, get(server.baseUrl, '/v1/me'));
    const paid = await measure('gate, 1-credit call (SQLite, atomic charge)', total, 32, get(server.baseUrl, '/v1/test/charge'));
    const { used } = await server.app.services.accounts.balance(account);
    console.log(`gate: 1-credit throughput ${((paid / free) * 100).toFixed(0)}% of the free call's; credits charged ${used} for ${total} calls (${used === total ? 'none lost' : 'MISMATCH'})`);
    // A slow disk, simulated: every fsync (SQLite's, which blocks the event loop) made to last 5 ms.
    const fsync = fs.fsyncSync;
    fs.fsyncSync = (fd: number) => {
      const until = performance.now() + SLOW_FSYNC_MS;
      fsync(fd);
      while (performance.now() < until);
    };
    try {
      const slowFree = await measure(`gate, free call, every fsync ${SLOW_FSYNC_MS} ms (slow disk)`, total, 32, get(server.baseUrl, '/v1/me'));
      const slowPaid = await measure(`gate, 1-credit call, every fsync ${SLOW_FSYNC_MS} ms (slow disk)`, total, 32, get(server.baseUrl, '/v1/test/charge'));
      console.log(`gate on the slow disk: 1-credit throughput ${((slowPaid / slowFree) * 100).toFixed(0)}% of the free call's`);
    } finally {
      fs.fsyncSync = fsync;
    }
    const after = await server.app.services.accounts.balance(account);
    console.log(`gate: credits charged ${after.used} for ${total * 2} charged calls in all (${after.used === total * 2 ? 'none lost' : 'MISMATCH'})`);
    const rss = process.memoryUsage().rss / 1024 / 1024;
    console.log(`gate: RSS after runs ${rss.toFixed(0)} MiB`);
  } finally {
    bare.close();
    await server.close();
  }
}
