/**
 * The store shared by several real processes: a CLI beside a server, two servers on one SQLite file,
 * a server killed with -9 in the middle of paid calls, and a store that cannot be used.
 */
import { spawnSync, execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { OPERATIONS } from '../../src/operations/table.js';
import { chargeOperation } from '../support/charged-server.js';
import { spawnChargedServer } from '../support/processes.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

const run = promisify(execFile);
const operations = [...OPERATIONS, chargeOperation];
const children: ChildProcess[] = [];
let server: TestServer | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await server?.close();
  server = undefined;
});

/** The CLI as a user runs it, in a process of its own. */
function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, [GLEANER_MAIN, ...args], { env: { ...process.env, GLEANER_LOG_LEVEL: 'silent', ...env } });
}

async function spawnServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const spawned = await spawnChargedServer(env);
  children.push(spawned.child);
  return spawned;
}

async function call(base: string, apiKey: string, pathAndQuery = '/v1/test/charge'): Promise<number> {
  const response = await fetch(`${base}${pathAndQuery}`, { headers: { 'x-api-key': apiKey } });
  await response.arrayBuffer();
  return response.status;
}

// Each CLI or server process starts tsx and the app: tens of seconds on a busy machine.
describe('one SQLite file, several processes', { timeout: 400_000 }, () => {
  it('keys set-plan and revoke from the CLI under traffic: never undone, and no charge lost', async () => {
    server = await startTestServer({ operations });
    const env = { GLEANER_DATA_DIR: server.dataDir };
    for (let round = 0; round < 2; round++) {
      const { account, apiKey } = await server.app.services.accounts.create({ plan: 'Enterprise', monthlyCredits: 100_000 });
      let stop = false;
      const statuses: number[] = [];
      const traffic = Promise.all(
        Array.from({ length: 8 }, async () => {
          while (!stop) statuses.push(await call(server!.baseUrl, apiKey));
        }),
      );
      await cli(['keys', 'set-plan', account.id, 'Apex'], env);
      await cli(['keys', 'revoke', account.id], env);
      stop = true;
      await traffic;
      const stored = await server.app.services.accounts.get(account.id);
      expect(stored.revokedAt, 'the revocation stays').toBeTruthy();
      expect(stored.plan).toBe('Apex');
      expect(await call(server.baseUrl, apiKey)).toBe(401);
      const succeeded = statuses.filter((s) => s === 200).length;
      expect(succeeded).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 200 || s === 401)).toBe(true);
      // Every call answered 200 was charged, none more.
      expect((await server.app.services.accounts.balance(stored)).used).toBe(succeeded);
    }
  });

  it('two servers on one data directory never overspend a 100-credit key', async () => {
    server = await startTestServer({ operations });
    const other = await spawnServer({ GLEANER_DATA_DIR: server.dataDir });
    const { account, apiKey } = await server.app.services.accounts.create({ plan: 'Enterprise', monthlyCredits: 100 });
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => call(i % 2 ? other.url : server!.baseUrl, apiKey)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 402)).toHaveLength(200);
    expect((await server.app.services.accounts.balance(account)).used).toBe(100);
  });

  it('credits reserved by a server killed with -9 during slow calls come back', async () => {
    server = await startTestServer({ operations });
    const doomed = await spawnServer({ GLEANER_DATA_DIR: server.dataDir });
    const accounts = server.app.services.accounts;
    const { account, apiKey } = await accounts.create({ plan: 'Enterprise', monthlyCredits: 100 });
    const calls = Array.from({ length: 10 }, () => call(doomed.url, apiKey, '/v1/test/charge?ms=600000').catch(() => 0));
    // The reservations are in the file before the slow work starts: wait until all ten are there.
    while ((await server.app.services.store.ledger.reservations()).filter((r) => r.account === account.id).length < 10) await new Promise((r) => setTimeout(r, 50));
    expect((await accounts.balance(account)).used).toBe(10);
    doomed.child.kill('SIGKILL');
    await once(doomed.child, 'exit');
    await Promise.all(calls);
    expect(await accounts.sweep()).toBe(10);
    expect((await accounts.balance(account)).used).toBe(0);
    expect(await server.app.services.store.ledger.reservations()).toHaveLength(0);
  });
  it('a server killed with -9 in the middle of a burst of 1-credit calls: every reply was charged, nothing else stays charged', async () => {
    server = await startTestServer({ operations });
    const doomed = await spawnServer({ GLEANER_DATA_DIR: server.dataDir });
    const accounts = server.app.services.accounts;
    const { account, apiKey } = await accounts.create({ plan: 'Enterprise', monthlyCredits: 1_000_000 });
    const concurrency = 16;
    let replies = 0;
    const statuses: number[] = [];
    let killed = false;
    let reachedEnough!: () => void;
    const enough = new Promise<void>((resolve) => (reachedEnough = resolve));
    const burst = Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (!killed) {
          const status = await call(doomed.url, apiKey).catch(() => 0);
          if (status === 200) replies++;
          else if (status !== 0) statuses.push(status);
          // Killed while the burst runs at full speed: charges are being committed in every batch.
          if (replies >= 300) reachedEnough();
          if (status === 0) return;
        }
      }),
    );
    await Promise.race([enough, burst]);
    doomed.child.kill('SIGKILL');
    killed = true;
    await once(doomed.child, 'exit');
    // Every reply the process wrote before it died has arrived once the calls end.
    await burst;
    const repliesAtKill = replies;
    expect(statuses, 'only 200s before the kill').toEqual([]);
    // The reservations of calls cut short go back; a charge whose reply was on its way when the process died stays.
    await accounts.sweep();
    const { used } = await accounts.balance(account);
    expect(repliesAtKill).toBeGreaterThanOrEqual(300);
    expect(used, 'no reply went out uncharged').toBeGreaterThanOrEqual(repliesAtKill);
    expect(used - repliesAtKill, 'only calls in flight at the kill can be charged without a reply').toBeLessThanOrEqual(concurrency);
    expect((await server.app.services.store.ledger.reservations()).filter((r) => r.account === account.id)).toHaveLength(0);
  });
});

describe('a store that cannot be used', { timeout: 200_000 }, () => {
  const fresh = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-store-'));

  it('creates the data directory 0700 and the store 0600', async () => {
    const dataDir = path.join(fresh(), 'data');
    server = await startTestServer({ dataDir });
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dataDir, 'gleaner.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('a corrupt store: keys create and serve stop naming the file, and print no key', async () => {
    const dataDir = fresh();
    const file = path.join(dataDir, 'gleaner.sqlite');
    fs.writeFileSync(file, Buffer.alloc(8192, 'not a database '));
    for (const args of [['keys', 'create', '--plan', 'Free'], ['serve', '--port', '0']]) {
      const failure = await cli(args, { GLEANER_DATA_DIR: dataDir }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure, args.join(' ')).toBeDefined();
      expect(failure!.code).not.toBe(0);
      expect(failure!.stdout).toBe('');
      expect(failure!.stderr).toContain(file);
    }
  });

  it('a data directory that is a file: serve stops naming it', async () => {
    const dataDir = path.join(fresh(), 'data');
    fs.writeFileSync(dataDir, 'a file where the data directory should be');
    const failure = await cli(['serve', '--port', '0'], { GLEANER_DATA_DIR: dataDir }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure!.stderr).toContain(dataDir);
  });

  // A read-only mount is refused even to root (tests may run as root, which ignores file modes).
  // `unshare -rm` gives the CLI a private mount namespace where the data directory is mounted read-only.
  const canUnshare = spawnSync('unshare', ['-rm', 'true'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!canUnshare)('a read-only store: keys create stops naming the file and prints no key', async () => {
    const dataDir = fresh();
    await cli(['keys', 'list'], { GLEANER_DATA_DIR: dataDir });
    const script = `mount --bind -o ro "$0" "$0" && exec "${process.execPath}" --import tsx src/cli/main.ts keys create --plan Free`;
    const failure = await run('unshare', ['-rm', 'sh', '-c', script, dataDir], { env: { ...process.env, GLEANER_DATA_DIR: dataDir, GLEANER_LOG_LEVEL: 'silent' } }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure!.stdout).toBe('');
    expect(failure!.stderr).toContain(path.join(dataDir, 'gleaner.sqlite'));
  });
});
