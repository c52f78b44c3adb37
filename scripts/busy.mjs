#!/usr/bin/env node
// Runs a command beside CPU burners that hold the machine's 1-minute load average at a target (default 8),
// and prints the load it actually ran at: how docs/testing.md's "npm test beside a burner" runs are made.
//   node scripts/busy.mjs [--load 8] -- npm test
// Burners are added while the load is below the target and taken away while it is two above it, so other work
// on the machine counts toward the target instead of piling on top of it.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';

const args = process.argv.slice(2);
const split = args.indexOf('--');
const options = split === -1 ? args : args.slice(0, split);
const command = split === -1 ? [] : args.slice(split + 1);
const loadAt = options.indexOf('--load');
const target = loadAt === -1 ? 8 : Number(options[loadAt + 1]);
if (!command.length || !Number.isFinite(target) || target <= 0) {
  process.stderr.write('usage: node scripts/busy.mjs [--load 8] -- <command> [args...]\n');
  process.exit(2);
}

const burners = [];
const samples = [];
const burn = () => burners.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const adjust = () => {
  const now = loadavg()[0];
  if (now < target && burners.length < 32) burn();
  else if (now > target + 2 && burners.length) burners.pop().kill('SIGKILL');
};
const sample = () => samples.push(loadavg()[0]);

for (let i = 0; i < Math.max(0, Math.ceil(target - loadavg()[0])); i++) burn();
const adjusting = setInterval(adjust, 5_000);
// The 1-minute average lags: the command starts once the load has reached the target (or after 3 minutes).
const warmUntil = Date.now() + 180_000;
while (loadavg()[0] < target && Date.now() < warmUntil) await new Promise((resolve) => setTimeout(resolve, 5_000));
const sampling = setInterval(sample, 15_000);
const started = Date.now();
const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  clearInterval(adjusting);
  clearInterval(sampling);
  for (const burner of burners) burner.kill('SIGKILL');
  sample();
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  process.stderr.write(
    `\nbusy.mjs: ${command.join(' ')} ran ${minutes} min beside burners for load ${target}; ` +
      `1-minute load sampled every 15 s: min ${at(0)}, median ${at(0.5)}, max ${at(1)} (${samples.length} samples); ` +
      `exit ${code ?? signal}\n`,
  );
  process.exit(code ?? 1);
});
