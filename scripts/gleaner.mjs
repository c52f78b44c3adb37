#!/usr/bin/env node
/**
 * `npm start`, `npm run gleaner` and `npm run mcp` run the built CLI (dist/), which starts in well under a second,
 * instead of compiling TypeScript at every start (tsx: 10 to 25 s on a busy machine). dist/ is built at install
 * (the `prepare` script) and rebuilt here first when a file under src/ is newer than the last build, so an edited
 * checkout never runs stale code. The compiler's output goes to stderr: stdout stays the MCP protocol.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.built');
const entry = path.join(root, 'dist', 'cli', 'main.js');

/** The newest modification time among the files the build reads. */
function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, item.name);
      if (item.isDirectory()) visit(full);
      else newest = Math.max(newest, fs.statSync(full).mtimeMs);
    }
  };
  visit(path.join(root, 'src'));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) newest = Math.max(newest, fs.statSync(path.join(root, file)).mtimeMs);
  return newest;
}

function builtAt() {
  try {
    return fs.existsSync(entry) ? fs.statSync(stamp).mtimeMs : 0;
  } catch {
    return 0;
  }
}

if (process.argv[2] === '--build' || builtAt() < newestSource()) {
  process.stderr.write('gleaner: building dist/ from src/ (npm run build)…\n');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
  fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
  if (process.argv[2] === '--build') process.exit(0);
}
await import(pathToFileURL(entry).href);
