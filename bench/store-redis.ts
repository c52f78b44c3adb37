/**
 * The Redis store's own speed (issue 24, point 8: one Redis client): operations per second through
 * `Store` against a throwaway redis-server on loopback, one at a time (round-trip bound) and 64 in
 * flight (what several requests at once see). The credit charge is what every paid call does: a
 * reserve then a settle (each a GET of the account record and one Lua script). Prints figures;
 * asserts nothing. `npx tsx bench/store-redis.ts` runs it alone.
 */
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openStore, type Store } from '../src/store/store.js';

const SECONDS = Number(process.env.BENCH_STORE_SECONDS ?? 3);
const IN_FLIGHT = 64;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Runs `op` for SECONDS with `parallel` loops: operations per second, and this process's CPU time per
 * operation (the client's own cost, steadier than the rate on a busy machine).
 */
async function rate(parallel: number, op: (i: number) => Promise<unknown>): Promise<{ perSecond: number; cpuUs: number }> {
  for (let i = 0; i < 200; i++) await op(i); // warm-up (script cache, JIT)
  let done = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: parallel }, async (_, loop) => {
      for (let i = loop; performance.now() < until; i += parallel) {
        await op(i);
        done++;
      }
    }),
  );
  const perSecond = done / ((performance.now() - started) / 1000);
  const used = process.cpuUsage(cpu);
  return { perSecond, cpuUs: (used.user + used.system) / done };
}

export async function benchStoreRedis(): Promise<void> {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    console.log('store-redis: skipped (no redis-server on PATH)');
    return;
  }
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-redis-'));
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => redis.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve()));
  let store: Store | undefined;
  try {
    const loaded = performance.now();
    store = await openStore({ dataDir: dir, storeUrl: `redis://127.0.0.1:${port}` });
    const openMs = performance.now() - loaded;
    const s = store;
    await s.set('bench:account', { plan: 'Enterprise' });
    const ref = { account: 'bench', recordKey: 'bench:account', planCredits: { Enterprise: null } };
    const charge = async (i: number) => {
      const reservationId = `r${i}`;
      await s.ledger.reserve({ ...ref, period: '2025-01', amount: 1, reservationId, owner: 'bench' });
      await s.ledger.settle({ ...ref, period: '2025-01', actual: 1, reservationId });
    };
    const value = { status: 'done', text: 'x'.repeat(200) };
    const getSet = async (i: number) => {
      await s.set(`bench:k${i % 1000}`, value);
      await s.get(`bench:k${(i * 7) % 1000}`);
    };
    const token = (i: number) => s.takeToken(`bench:${i % 100}`, 60_000_000, 1_000_000, true, Date.now());
    const rows: string[] = [];
    for (const [name, op] of [
      ['credit charge (reserve + settle: 2 GET, 2 scripts)', charge],
      ['set + get (200-byte JSON)', getSet],
      ['rate bucket take (1 script)', token],
    ] as const) {
      const one = await rate(1, op);
      const many = await rate(IN_FLIGHT, op);
      rows.push(
        `store-redis: ${name}: ${one.perSecond.toFixed(0)}/s one at a time (${one.cpuUs.toFixed(0)} µs CPU each), ` +
          `${many.perSecond.toFixed(0)}/s with ${IN_FLIGHT} in flight (${many.cpuUs.toFixed(0)} µs CPU each)`,
      );
    }
    for (const row of rows) console.log(row);
    console.log(`store-redis: open (connect + ready) ${openMs.toFixed(1)} ms; ${SECONDS} s per figure, Node ${process.version}`);
    // Redis gone: how long a read takes to fail (STORE_UNAVAILABLE), nothing queued.
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const failures: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const code = await s.get('bench:k1').then(() => 'answered', (error: { code?: string }) => error.code);
      if (code !== 'STORE_UNAVAILABLE') throw new Error(`a read with Redis gone gave ${code}`);
      failures.push(performance.now() - started);
    }
    console.log(`store-redis: with Redis gone, a read fails with STORE_UNAVAILABLE in ${Math.max(...failures).toFixed(1)} ms at most (5 reads)`);
  } finally {
    await store?.close();
    if (redis.exitCode === null && redis.signalCode === null) {
      redis.kill('SIGKILL');
      await once(redis, 'exit');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStoreRedis();
