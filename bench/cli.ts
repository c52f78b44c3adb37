/**
 * CLI start-up: wall time of `node dist/cli/main.js` for commands that must stay fast (they load
 * only their own modules). Builds dist/ when it is missing. Prints the median and the slowest of
 * a few runs each; nothing is asserted.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const RUNS = 7;

function time(args: string[], env: NodeJS.ProcessEnv): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args.length ? ['dist/cli/main.js', ...args] : ['-e', '0'], { env, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`gleaner ${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function benchCli(): Promise<void> {
  if (!fs.existsSync('dist/cli/main.js')) spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  const env = { ...process.env, GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-cli-')) };
  spawnSync(process.execPath, ['dist/cli/main.js', 'keys', 'create', '--plan', 'Free', '--name', 'bench'], { env, stdio: 'ignore' });
  process.stdout.write(`\nCLI start-up (node dist/cli/main.js, ${RUNS} runs each)\n`);
  // `node -e 0` first: what any command costs before Gleaner's own code (the machine's floor).
  for (const args of [[], ['--version'], ['--help'], ['keys', 'list']]) {
    const times = Array.from({ length: RUNS }, () => time(args, env)).sort((a, b) => a - b);
    const label = args.length ? `gleaner ${args.join(' ')}` : 'node -e 0';
    process.stdout.write(`  ${label.padEnd(18)} median ${times[Math.floor(RUNS / 2)].toFixed(0)} ms, slowest ${times.at(-1)!.toFixed(0)} ms\n`);
  }
}

/** Milliseconds from `start` until `ready()` resolves true (polled every 20 ms), or throws after `limitMs`. */
async function until(ready: () => Promise<boolean>, start: bigint, limitMs = 120_000): Promise<number> {
  for (;;) {
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (await ready().catch(() => false)) return elapsed;
    if (elapsed > limitMs) throw new Error('no answer in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * What a newcomer meets, through the README's own commands (npm scripts, built code): `npm start` until the
 * first /v1/me answers, `npm run -s gleaner -- keys create`, and an MCP stdio client's initialize answered by
 * `npm run -s mcp`. With BENCH_CLI_CLONE=1 it first clones this checkout and runs `npm install` there (minutes),
 * so the figures are those of a fresh clone.
 */
export async function benchFirstStart(): Promise<void> {
  const { spawn, execFileSync } = await import('node:child_process');
  let cwd = process.cwd();
  if (process.env.BENCH_CLI_CLONE === '1') {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-clone-'));
    const t0 = process.hrtime.bigint();
    execFileSync('git', ['clone', '-q', process.cwd(), cwd]);
    const t1 = process.hrtime.bigint();
    execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd, stdio: 'ignore' });
    const t2 = process.hrtime.bigint();
    process.stdout.write(`\nFresh clone: git clone ${(Number(t1 - t0) / 1e6).toFixed(0)} ms, npm install (with the build) ${(Number(t2 - t1) / 1e6).toFixed(0)} ms\n`);
  } else if (!fs.existsSync(path.join(cwd, 'dist', '.built'))) {
    execFileSync('npm', ['run', 'build'], { cwd, stdio: 'ignore' });
  }
  const env = { ...process.env, GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-bench-first-')), GLEANER_LOG_LEVEL: 'warn' };
  process.stdout.write(`\nFirst answers through the README's commands (npm scripts, one run each after a warm-up; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)\n`);

  // keys create: the key alone on stdout.
  const keysCreate = () => {
    const start = process.hrtime.bigint();
    const key = execFileSync('npm', ['run', '-s', 'gleaner', '--', 'keys', 'create', '--plan', 'Pro', '--name', 'bench'], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    return { key, ms: Number(process.hrtime.bigint() - start) / 1e6 };
  };
  keysCreate();
  const { key, ms: keysMs } = keysCreate();
  process.stdout.write(`  npm run -s gleaner -- keys create   ${keysMs.toFixed(0)} ms\n`);

  // npm start → first /v1/me.
  const port = 18_000 + Math.floor(Math.random() * 2_000);
  const start = process.hrtime.bigint();
  const server = spawn('npm', ['start'], { cwd, env: { ...env, GLEANER_PORT: String(port) }, stdio: 'ignore', detached: true });
  try {
    const meMs = await until(async () => (await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { 'x-api-key': key } })).ok, start);
    process.stdout.write(`  npm start → first GET /v1/me        ${meMs.toFixed(0)} ms\n`);
  } finally {
    process.kill(-server.pid!, 'SIGTERM');
  }

  // npm run -s mcp → the answer to initialize on stdout.
  const mcpStart = process.hrtime.bigint();
  const mcp = spawn('npm', ['run', '-s', 'mcp'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'], detached: true });
  try {
    const answered = new Promise<void>((resolve) => mcp.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('"result"') && resolve()));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };
    mcp.stdin.write(`${JSON.stringify(initialize)}\n`);
    await answered;
    process.stdout.write(`  npm run -s mcp → initialize answered ${(Number(process.hrtime.bigint() - mcpStart) / 1e6).toFixed(0)} ms\n`);
  } finally {
    process.kill(-mcp.pid!, 'SIGTERM');
  }
}
