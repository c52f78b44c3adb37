import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadConfig } from '../../src/config.js';
import { GLEANER_MAIN } from '../support/built-cli.js';

const run = promisify(execFile);

function gleaner(args: string[], env: Record<string, string>) {
  return run(process.execPath, [GLEANER_MAIN, ...args], { env: { ...process.env, ...env } });
}

/**
 * Tests that start the CLI several times in a row: one start of the compiled CLI took up to 24 s at load 30
 * plus a CPU burner on 2 cores (docs/testing.md), so they get ten minutes.
 */
const SEVERAL_STARTS = { timeout: 600_000 };

describe('gleaner keys', () => {
  it('creates a key (alone on stdout), lists, re-plans and revokes it', SEVERAL_STARTS, async () => {
    const env = { GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-cli-')) };
    const created = await gleaner(['keys', 'create', '--plan', 'free', '--name', 'alice', '--credits', '250'], env);
    expect(created.stdout).toMatch(/^gl_[A-Za-z0-9_-]{32}\n$/);
    const listed = await gleaner(['keys', 'list'], env);
    const row = listed.stdout.split('\n').find((line) => line.includes('alice'))!;
    expect(row).toContain('Free');
    expect(row).toContain('0/250');
    expect(listed.stdout).not.toContain(created.stdout.trim());
    const id = row.split('\t')[0];
    expect((await gleaner(['keys', 'set-plan', id, 'Pro'], env)).stdout).toContain('Pro plan');
    expect((await gleaner(['keys', 'revoke', id], env)).stdout).toContain('Revoked');
    expect((await gleaner(['keys', 'list'], env)).stdout).toMatch(/Pro.*revoked/);
  });

  it('refuses an unknown plan and a bad configuration with a message naming it', SEVERAL_STARTS, async () => {
    const env = { GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-cli-')) };
    await expect(gleaner(['keys', 'create', '--plan', 'Platinum'], env)).rejects.toMatchObject({ stderr: expect.stringContaining('Unknown plan "Platinum"') });
    await expect(gleaner(['keys', 'list'], { ...env, GLEANER_PORT: 'eighty' })).rejects.toMatchObject({ stderr: expect.stringContaining('GLEANER_PORT') });
  });
});

describe('conventional CLI', () => {
  // Several CLI processes per test: slow on a busy machine.
  const SPAWNS = SEVERAL_STARTS;
  const env = () => ({ GLEANER_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-cli-')) });

  it('prints help on stdout and exits 0, for the whole and for each command', SPAWNS, async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const { stdout, stderr } = await gleaner(args, env());
      expect(stdout).toMatch(/Usage: gleaner <command>/);
      for (const command of ['serve', 'mcp', 'keys', 'doctor', 'docs']) expect(stdout).toContain(`  ${command} `);
      expect(stderr).toBe('');
    }
    expect((await gleaner(['keys', '--help'], env())).stdout).toMatch(/^Usage: gleaner keys create --plan <plan>/);
    expect((await gleaner(['doctor', '-h'], env())).stdout).toMatch(/^Usage: gleaner doctor \[--json\] \[URL \.\.\.\]/);
    expect((await gleaner(['help', 'serve'], env())).stdout).toMatch(/^Usage: gleaner serve/);
  });

  it('prints the package version', SPAWNS, async () => {
    const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    expect((await gleaner(['--version'], env())).stdout).toBe(`${version}\n`);
  });

  it('names a missing option and an unknown command plainly', SPAWNS, async () => {
    await expect(gleaner(['keys', 'create'], env())).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Missing --plan. Plans: Free, Basic, Pro, Mega, Giga, Apex, Enterprise.'),
    });
    await expect(gleaner(['keys', 'set-plan', 'acct_1'], env())).rejects.toMatchObject({ stderr: expect.stringContaining('Missing the plan. Plans: Free') });
    await expect(gleaner(['frobnicate'], env())).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown command "frobnicate"') });
  });
});

describe('gleaner mcp without a key', () => {
  it('acts as the local owner of its store, the same account on every start', SEVERAL_STARTS, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-owner-'));
    const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), GLEANER_DATA_DIR: dataDir };
    delete childEnv.GLEANER_API_KEY;
    const accountOnce = async () => {
      const client = new Client({ name: 'local-owner-test', version: '1' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [GLEANER_MAIN, 'mcp'], env: childEnv, stderr: 'pipe' }));
      try {
        const result = await client.callTool({ name: 'account', arguments: {} });
        expect(result.isError).toBeFalsy();
        return result.structuredContent as { id: string; plan: string };
      } finally {
        await client.close();
      }
    };
    const first = await accountOnce();
    expect(first.plan).toBe('Enterprise');
    expect((await accountOnce()).id).toBe(first.id);
    const listed = await gleaner(['keys', 'list'], { GLEANER_DATA_DIR: dataDir });
    expect(listed.stdout.split('\n').filter((line) => line.includes('local-owner'))).toHaveLength(1);
  });
});

describe('gleaner serve', () => {
  it('creates and prints an owner key when none exists, and serves /v1/me with it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-serve-'));
    const child = spawn(process.execPath, [GLEANER_MAIN, 'serve', '--port', '0'], {
      env: { ...process.env, GLEANER_DATA_DIR: dataDir, GLEANER_LOG_LEVEL: 'info' },
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const found = /"url":"(http:\/\/[^"]+)"/.exec(stderr);
          if (found) resolve(found[1]);
        });
        child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
      });
      const key = /(gl_[A-Za-z0-9_-]{32})/.exec(stdout)?.[1];
      expect(key).toBeDefined();
      const response = await fetch(`${url}/v1/me`, { headers: { 'x-api-key': key! } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ plan: 'Enterprise', credits: 2147483647, unlimited: true });
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

describe('configuration', () => {
  it('treats an unfilled bundle placeholder as unset', () => {
    const config = loadConfig({ GLEANER_API_KEY: '${user_config.api_key}', GLEANER_STT_URL: '${user_config.stt_url}' });
    expect(config.GLEANER_API_KEY).toBeUndefined();
    expect(config.GLEANER_STT_URL).toBeUndefined();
  });

  it('parses upstream overrides and refuses a malformed one', () => {
    const config = loadConfig({ GLEANER_UPSTREAM_OVERRIDES: 'youtube.com=http://127.0.0.1:9000, googlevideo.com=http://127.0.0.1:9001/' });
    expect(config.GLEANER_UPSTREAM_OVERRIDES).toEqual([
      { host: 'youtube.com', origin: 'http://127.0.0.1:9000' },
      { host: 'googlevideo.com', origin: 'http://127.0.0.1:9001' },
    ]);
    expect(() => loadConfig({ GLEANER_UPSTREAM_OVERRIDES: 'youtube.com' })).toThrow(/GLEANER_UPSTREAM_OVERRIDES/);
  });
});
