/**
 * Gate throughput: REST calls per second through key -> plan -> rate -> credits -> run -> charge,
 * on the real server and the real SQLite store, for a free call and a charged one, beside a bare
 * node:http handler in the same process as the ceiling. Credits are counted after the run.
 *
 * Twice: on the real disk, then on a slow disk, simulated by running the same measure in a child
 * process with bench/slow-fsync.c preloaded (every fsync of every thread made to last 5 ms, as on a
 * cloud volume). Compiling it needs a C compiler (`cc`); without one that half is skipped, and says so.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../test/support/server.js';
import { chargeOperation as charged } from '../test/support/charged-server.js';
import { OPERATIONS } from '../src/operations/table.js';

const SLOW_FSYNC_MS = 5;
const here = path.dirname(fileURLToPath(import.meta.url));

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

/** One disk: the ceiling, the free call, the 1-credit call, and the credits counted after. */
export async function gateOnThisDisk(disk: string): Promise<void> {
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
    // Free and charged calls alternate in rounds, so a change of the machine's load (it is shared)
    // falls on both alike; the share is of the summed calls and seconds of all rounds.
    const rounds = 4;
    const perRound = 1_000;
    const store = server.app.services.store;
    console.log(`gate, ${disk}: node ${process.version}, store ${store.kind}, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    await measure(`gate, ${disk}, bare node:http handler (ceiling)`, perRound * 2, 32, get(`http://127.0.0.1:${(bare.address() as AddressInfo).port}`, '/'));
    // A round of each first, not counted: the first thousand calls run on code not yet optimized.
    await measure(`gate, ${disk}, warm-up, free call`, perRound, 32, get(server.baseUrl, '/v1/me'));
    await measure(`gate, ${disk}, warm-up, 1-credit call`, perRound, 32, get(server.baseUrl, '/v1/test/charge'));
    let freeSeconds = 0;
    let paidSeconds = 0;
    const shares: string[] = [];
    for (let round = 1; round <= rounds; round++) {
      const free = await measure(`gate, ${disk}, round ${round}, free call (GET /v1/me)`, perRound, 32, get(server.baseUrl, '/v1/me'));
      const paid = await measure(`gate, ${disk}, round ${round}, 1-credit call (SQLite, atomic charge)`, perRound, 32, get(server.baseUrl, '/v1/test/charge'));
      freeSeconds += perRound / free;
      paidSeconds += perRound / paid;
      shares.push(`${((paid / free) * 100).toFixed(0)}%`);
    }
    const total = (rounds + 1) * perRound;
    const { used } = await server.app.services.accounts.balance(account);
    console.log(
      `gate, ${disk}: 1-credit throughput ${((freeSeconds / paidSeconds) * 100).toFixed(0)}% of the free call's over ${rounds} alternating rounds (rounds: ${shares.join(', ')}; node ${process.version}, store ${store.kind}); credits charged ${used} for ${total} calls (${used === total ? 'none lost' : 'MISMATCH'})`,
    );
  } finally {
    bare.close();
    await server.close();
  }
}

/** Compiles the slow-disk library into a temporary folder; undefined without a C compiler. */
function slowFsyncLibrary(): string | undefined {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-slow-fsync-')), 'slow-fsync.so');
  try {
    execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', out, path.join(here, 'slow-fsync.c'), '-ldl'], { stdio: ['ignore', 'ignore', 'pipe'] });
    return out;
  } catch (error) {
    console.log(`gate, slow disk: skipped, bench/slow-fsync.c did not compile (${(error as Error).message.split('\n')[0]})`);
    return undefined;
  }
}

export async function benchGate(): Promise<void> {
  await gateOnThisDisk('real disk');
  const library = slowFsyncLibrary();
  if (!library) return;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'gate-slow.ts')], {
    env: { ...process.env, LD_PRELOAD: library, GLEANER_BENCH_FSYNC_MS: String(SLOW_FSYNC_MS) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`gate on the slow disk exited ${code}`);
}
