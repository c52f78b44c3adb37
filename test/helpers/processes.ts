/** Real `gleaner` processes for tests that need several of them on one store. */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

export interface GleanerProcess {
  child: ChildProcess;
  /** stderr so far (the log). */
  log(): string;
  /** The base URL, for `serve`. */
  url?: string;
  /** Waits until the log contains `pattern`. */
  waitForLog(pattern: RegExp): Promise<RegExpExecArray>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startGleaner(args: string[], env: Record<string, string>): Promise<GleanerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ...process.env, GLEANER_LOG_LEVEL: 'info', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  child.stdout!.resume();
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
