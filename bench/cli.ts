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
