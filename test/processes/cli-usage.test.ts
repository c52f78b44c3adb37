/**
 * The CLI's exit-code rule (issue 28): 2 for a usage mistake, 1 for a failure, unknown options refused
 * by every command before it does anything; a port already taken said plainly with the way out.
 * Real `gleaner` processes; generous timeouts, as each loads TypeScript on a machine that may be busy.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SLOW = { timeout: 600_000 };
const dataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-cli-usage-'));

/** Runs the CLI; resolves with its exit code and output. */
function gleaner(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const full: Record<string, string | undefined> = { ...process.env, GLEANER_DATA_DIR: dataDir(), ...env };
  for (const name of ['GLEANER_STORE_URL', 'GLEANER_PLATFORM_PROFILE', 'GLEANER_API_KEY']) if (!(name in env)) delete full[name];
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: full }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('unknown options and arguments: exit 2, named, nothing done', () => {
  it.each([
    [['keys', 'list', '--bogus'], 'keys'],
    [['keys', 'create', '--bogus'], 'keys'],
    [['keys', 'create', '--plan', 'Free', '--bogus'], 'keys'],
    [['mcp', '--bogus'], 'mcp'],
    [['serve', '--bogus'], 'serve'],
    [['profile', '--bogus'], 'profile'],
    [['doctor', '--bogus'], 'doctor'],
    [['worker', '--bogus'], 'worker'],
    [['docs', '--bogus'], 'docs'],
  ])('gleaner %j', SLOW, async (args, command) => {
    const { code, stdout, stderr } = await gleaner(args);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`gleaner ${command}: Unknown option '--bogus'`);
    expect(stderr).toContain(`gleaner ${command} --help`);
    // Nothing ran: no key printed, no server, no MCP protocol on stdout.
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('usage mistakes are 2, failures of the work 1', SLOW, async () => {
    const [missingPlan, unknownPlan, badCredits, unknownAction, extraArgument, badPort, unknownKey] = await Promise.all([
      gleaner(['keys', 'create']),
      gleaner(['keys', 'create', '--plan', 'Platinum']),
      gleaner(['keys', 'create', '--plan', 'Free', '--credits', 'lots']),
      gleaner(['keys', 'frobnicate']),
      gleaner(['keys', 'list', 'extra']),
      gleaner(['serve', '--port', 'eighty']),
      gleaner(['keys', 'revoke', 'acct_does_not_exist']),
    ]);
    expect(missingPlan).toMatchObject({ code: 2, stderr: expect.stringContaining('Missing --plan') });
    expect(unknownPlan).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown plan "Platinum"') });
    expect(badCredits).toMatchObject({ code: 2, stderr: expect.stringContaining('--credits must be a whole number') });
    expect(unknownAction).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown keys action "frobnicate"') });
    expect(extraArgument).toMatchObject({ code: 2, stderr: expect.stringContaining('Unexpected argument') });
    expect(badPort).toMatchObject({ code: 2, stderr: expect.stringContaining('--port: "eighty" is not a port number') });
    expect(unknownKey.code, unknownKey.stderr).toBe(1);
    expect(unknownKey.stderr).not.toMatch(/\n\s+at /);
  });

  it('a profile file with CR/LF in a user agent stops `gleaner profile` with exit 2, the field named', SLOW, async () => {
    const file = path.join(dataDir(), 'profile.json');
    fs.writeFileSync(file, JSON.stringify({ browsers: { desktop: { userAgent: 'Mozilla/5.0\r\nX-Injected: 1' } } }));
    const { code, stdout, stderr } = await gleaner(['profile'], { GLEANER_PLATFORM_PROFILE: file });
    expect(code).toBe(2);
    expect(stderr).toContain('browsers.desktop.userAgent: must not contain control characters');
    expect(stdout).toBe('');
  });
});

describe('gleaner serve on a port already taken', () => {
  it('says EADDRINUSE plainly, names --port and GLEANER_PORT, exits 1 without a stack trace', SLOW, async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', String(port), '--host', '127.0.0.1'], {
        env: { ...process.env, GLEANER_DATA_DIR: dataDir(), GLEANER_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code, stderr).toBe(1);
      expect(stderr).toContain(`Cannot listen on 127.0.0.1:${port}`);
      expect(stderr).toContain('EADDRINUSE');
      expect(stderr).toContain('--port');
      expect(stderr).toContain('GLEANER_PORT');
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
