/**
 * The Claude Desktop bundle, as a user gets it: unpacked alone into an empty directory, with an empty
 * data directory and no key, its stdio server answers `account` as the local owner.
 *
 * Building the bundle installs the production dependencies from the lockfile (minutes), so `npm test`
 * does not build it: this file runs when `.bundle/gleaner-<version>.mcpb` exists (`npm run bundle`),
 * and `.ci/run` builds it and runs this file with GLEANER_BUNDLE_TEST=1, where a missing bundle fails.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { version } = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
const BUNDLE = path.resolve('.bundle', `gleaner-${version}.mcpb`);
const required = process.env.GLEANER_BUNDLE_TEST === '1';

/** Every file under root, as a path relative to it. */
function filesUnder(root: string, dir = root): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(root, full) : [path.relative(root, full).split(path.sep).join('/')];
  });
}

describe.skipIf(!required && !fs.existsSync(BUNDLE))('the .mcpb bundle (npm run bundle)', () => {
  it('is under 30 MB, holds no tests, fixtures or sources, and runs alone as the local owner', { timeout: 180_000 }, async () => {
    expect(fs.existsSync(BUNDLE), `${BUNDLE} is missing: run npm run bundle`).toBe(true);
    expect(fs.statSync(BUNDLE).size).toBeLessThan(30 * 1024 * 1024);

    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-bundle-'));
    const unpacked = path.join(home, 'gleaner');
    execFileSync(process.execPath, [path.resolve('node_modules/@anthropic-ai/mcpb/dist/cli/cli.js'), 'unpack', BUNDLE, unpacked], { stdio: 'ignore' });
    const files = filesUnder(unpacked);
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('manifest.json');
    // The project's own tests, fixtures (under test/), sources, benchmarks and scripts stay out.
    expect(files.filter((f) => /^(test|src|bench|scripts|\.ci)\//.test(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // No native module: the manifest names macOS, Windows and Linux, so nothing built for this machine.
    expect(files.filter((f) => f.endsWith('.node'))).toEqual([]);

    // Only the unpacked directory: no project node_modules on the way (cwd and NODE_PATH elsewhere).
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, GLEANER_DATA_DIR: path.join(home, 'data') };
    const client = new Client({ name: 'bundle-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(unpacked, 'dist/cli/main.js'), 'mcp'], env, cwd: home, stderr: 'pipe' }));
    try {
      const result = await client.callTool({ name: 'account', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ plan: 'Enterprise', credits: 2147483647, unlimited: true });
    } finally {
      await client.close();
    }
  });
});
