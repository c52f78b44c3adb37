/** Real `gleaner` processes for tests that need several of them on one store. */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { once } from 'node:events';
import net from 'node:net';
import { GLEANER_MAIN } from './built-cli.js';

export interface GleanerProcess {
  child: ChildProcess;
  /** stderr so far (the log). */
  log(): string;
  /** stdout so far (an owner key printed on a first start). */
  output(): string;
  /** The base URL, for `serve`. */
  url?: string;
  /** Waits until the log contains `pattern`. */
  waitForLog(pattern: RegExp): Promise<RegExpExecArray>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startGleaner(args: string[], env: Record<string, string>): Promise<GleanerProcess> {
  const child = spawn(process.execPath, [GLEANER_MAIN, ...args], {
    env: { ...process.env, GLEANER_LOG_LEVEL: 'info', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = once(child, 'exit');
  const waitForLog = async (pattern: RegExp) => {
    for (;;) {
      const found = pattern.exec(stderr);
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`gleaner ${args[0]} exited: ${stderr}`);
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
    }
  };
  const proc: GleanerProcess = {
    child,
    log: () => stderr,
    output: () => stdout,
    waitForLog,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
  if (args[0] === 'serve') proc.url = (await waitForLog(/"url":"(http:\/\/[^"]+)"/))[1];
  if (args[0] === 'worker') await waitForLog(/working jobs/);
  return proc;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const run = promisify(execFile);

/** A key made by the `gleaner keys create` command on the store `env` names. */
export async function createKeyWithCli(env: Record<string, string>, plan: string, credits: number): Promise<string> {
  const { stdout } = await run(process.execPath, [GLEANER_MAIN, 'keys', 'create', '--plan', plan, '--credits', String(credits)], {
    env: { ...process.env, ...env },
  });
  return stdout.trim();
}

/** One REST call with a key; the parsed reply. */
export async function callApi(base: string, key: string, method: string, pathAndQuery: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${pathAndQuery}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Polls a job over REST until it leaves queued/processing. */
export async function jobEnd(base: string, key: string, jobId: string): Promise<any> {
  for (;;) {
    const { body } = await callApi(base, key, 'GET', `/v1/jobs/${jobId}`);
    if (body.status !== 'queued' && body.status !== 'processing') return body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function hasRedis(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A throwaway redis-server on a free loopback port. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'pipe' });
  await new Promise<void>((resolve) => redis.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve()));
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      redis.kill();
      await once(redis, 'exit');
    },
  };
}

/**
 * test/support/charged-server.ts (the app plus a 1-credit operation) in a process of its own, on `node`
 * (this one by default); resolves with its base URL once it listens.
 */
export async function spawnChargedServer(env: Record<string, string>, node = process.execPath): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(node, ['--import', 'tsx', 'test/support/charged-server.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return { url, child };
}
