/**
 * npm's postinstall: applies patches/ (docs/architecture.md, "One patched dependency") with the project's own
 * patch-package, a development dependency, where it is installed: a clone, CI, the image build. Gleaner installed
 * from the registry as a package (npx gleaner) has no development dependencies and shares a hoisted node_modules
 * it must not rewrite: there nothing is patched, and linkedom runs as published (the same output, slower).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const patchPackage = path.join(root, 'node_modules', 'patch-package', 'index.js');
if (existsSync(patchPackage)) {
  const run = spawnSync(process.execPath, [patchPackage, '--error-on-fail'], { cwd: root, stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
}
