/**
 * The processes tier's globalSetup: compiles src/ into .test-build/dist (test/support/built-cli.ts says
 * why there) when it is missing or older than any source, so every test of the tier starts the built
 * CLI. The compiled code finds package.json two folders above dist/cli, as in a checkout, so a copy is
 * kept beside it; node_modules is found in the repository above.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';
import { TEST_BUILD_DIR } from './built-cli.js';

const STAMP = path.join(TEST_BUILD_DIR, 'built-from');
const INPUTS = ['src', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function newestChange(file: string): number {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...fs.readdirSync(file).map((name) => newestChange(path.join(file, name))));
}

export default function setup(): void {
  const inputs = Math.max(...INPUTS.map((name) => newestChange(path.join(REPO_ROOT, name))));
  if (fs.existsSync(STAMP) && fs.statSync(STAMP).mtimeMs >= inputs) return;
  // A fresh folder beside the old one, swapped in when complete: an old build is never half-overwritten.
  const next = `${TEST_BUILD_DIR}.next-${process.pid}`;
  fs.rmSync(next, { recursive: true, force: true });
  const started = Date.now();
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(next, 'dist')], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(next, 'package.json'));
  fs.writeFileSync(path.join(next, 'built-from'), `${new Date(inputs).toISOString()}\n`);
  fs.rmSync(TEST_BUILD_DIR, { recursive: true, force: true });
  fs.renameSync(next, TEST_BUILD_DIR);
  // The stamp's time is the build's start: a source saved during the build makes the next run build again.
  fs.utimesSync(STAMP, new Date(started), new Date(started));
  process.stderr.write(`compiled src/ into ${path.relative(REPO_ROOT, TEST_BUILD_DIR)}/dist for the processes tier (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
}
