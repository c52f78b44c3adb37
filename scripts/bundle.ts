/**
 * `npm run bundle`: a Claude Desktop bundle (.mcpb) holding only what runs: dist/ (without source
 * maps), manifest.json, package.json and the production dependencies, installed from the lockfile
 * into a staging directory (.bundle/gleaner). Prints the bundle's size and any native module in it.
 *
 * The JavaScript is compiled into .bundle/build, never into the project's dist/: a Claude Desktop
 * entry may be running `node dist/cli/main.js` from this very checkout while a bundle is made.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stage = path.join(root, '.bundle', 'gleaner');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
const output = path.join(root, '.bundle', `gleaner-${version}.mcpb`);
const build = path.join(root, '.bundle', 'build');

const sh = (command: string, args: string[], cwd = root) => execFileSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

fs.rmSync(build, { recursive: true, force: true });
sh(npx, ['tsc', '-p', 'tsconfig.build.json', '--outDir', build]);

fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });
fs.cpSync(build, path.join(stage, 'dist'), { recursive: true, filter: (file) => !file.endsWith('.map') });
for (const file of ['manifest.json', 'package.json', 'package-lock.json', 'README.md', 'LICENSE', 'icon.png', '.mcpbignore']) {
  if (fs.existsSync(path.join(root, file))) fs.copyFileSync(path.join(root, file), path.join(stage, file));
}
// From the lockfile, production dependencies only, and no optional ones: the only optional
// dependency is msgpackr's native accelerator (through BullMQ), which falls back to plain
// JavaScript, so the bundle holds no native module and runs on every platform the manifest names.
// --ignore-scripts: the project's own `prepare` (a build from src/) has nothing to build in the stage.
sh(npm, ['ci', '--omit=dev', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], stage);
// The patches of patches/ (docs/architecture.md, "One patched dependency"), which --ignore-scripts skipped, applied by the
// project's own patch-package; the patch files themselves stay out of the bundle.
fs.cpSync(path.join(root, 'patches'), path.join(stage, 'patches'), { recursive: true });
sh(path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'patch-package.cmd' : 'patch-package'), ['--error-on-fail'], stage);
fs.rmSync(path.join(stage, 'patches'), { recursive: true, force: true });

fs.rmSync(output, { force: true });
sh(npx, ['mcpb', 'pack', stage, output]);

const natives: string[] = [];
const walk = (dir: string) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (entry.name.endsWith('.node')) natives.push(path.relative(stage, full));
  }
};
walk(path.join(stage, 'node_modules'));
const mb = (fs.statSync(output).size / 1024 / 1024).toFixed(1);
process.stdout.write(`\n${path.relative(root, output)}: ${mb} MB\n`);
process.stdout.write(natives.length ? `Native modules inside (built for ${process.platform}-${process.arch}): ${natives.join(', ')}\n` : 'No native module inside.\n');
