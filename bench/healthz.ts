/**
 * A /healthz flood beside paying traffic (issue 20, finding 5): the latency of a 1-credit call, one
 * at a time, quiet and then while 64 connections ask /healthz as fast as they can; and how many of
 * the flood's probes said the (healthy) store was down. Prints figures; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../test/support/server.js';
import { chargeOperation as charged } from '../test/support/charged-server.js';
import { OPERATIONS } from '../src/operations/table.js';

const FLOOD_CONNECTIONS = 64;
/** The flooding process: `connections` loops asking /healthz until its stdin closes, then the status counts. */
const FLOOD_SCRIPT = `
const [base, connections] = process.argv.slice(1);
let stop = false;
const statuses = {};
process.stdin.on('end', () => (stop = true)).resume();
process.stdout.write('FLOODING\\n');
await Promise.all(Array.from({ length: Number(connections) }, async () => {
  while (!stop) {
    const response = await fetch(base + '/healthz');
    await response.arrayBuffer();
    statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  }
}));
process.stdout.write(JSON.stringify(statuses));
`;
const CALLS = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export async function benchHealthz(): Promise<void> {
  const server = await startTestServer({ operations: [...OPERATIONS, charged] });
  try {
    const key = await server.createKey('Enterprise', { credits: 1_000_000 });
    const paidCalls = async (label: string) => {
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const started = performance.now();
        const response = await fetch(`${server.baseUrl}/v1/test/charge`, { headers: { 'x-api-key': key } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`charged call answered ${response.status}`);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(`healthz: ${label}: 1-credit call median ${percentile(times, 0.5).toFixed(2)} ms, p95 ${percentile(times, 0.95).toFixed(2)} ms (${CALLS} calls, one at a time)`);
    };
    await paidCalls('quiet');
    // The flood comes from another process, as a load balancer's or an attacker's would.
    const flood = spawn(process.execPath, ['--input-type=module', '-e', FLOOD_SCRIPT, server.baseUrl, String(FLOOD_CONNECTIONS)], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    flood.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    while (!out.includes('FLOODING')) await once(flood.stdout!, 'data');
    const started = performance.now();
    await paidCalls(`during a ${FLOOD_CONNECTIONS}-connection /healthz flood`);
    const seconds = (performance.now() - started) / 1000;
    flood.stdin!.end();
    await once(flood, 'exit');
    const statuses = JSON.parse(out.slice(out.indexOf('{'))) as Record<string, number>;
    const probes = Object.values(statuses).reduce((a, b) => a + b, 0);
    console.log(`healthz: flood answered ${probes} probes (${(probes / seconds).toFixed(0)}/s), statuses ${JSON.stringify(statuses)}`);
  } finally {
    await server.close();
  }
}
