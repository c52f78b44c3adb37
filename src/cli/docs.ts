/** `gleaner docs`: writes the README table and the manifest's tools from the table of operations. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPERATIONS } from '../operations/table.js';
import { parseOptions } from './usage.js';
import { manifestTools, operationsTable, replaceTable } from '../surfaces/docs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function runDocsCommand(args: string[]): Promise<number> {
  const check = parseOptions(args, { check: { type: 'boolean', default: false } }).values.check;
  const readmePath = path.join(root, 'README.md');
  const manifestPath = path.join(root, 'manifest.json');
  const readme = fs.readFileSync(readmePath, 'utf8');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  const newReadme = replaceTable(readme, operationsTable(OPERATIONS));
  const newManifest = `${JSON.stringify({ ...manifest, tools: manifestTools(OPERATIONS) }, null, 2)}\n`;
  const stale = newReadme !== readme || newManifest !== fs.readFileSync(manifestPath, 'utf8');
  if (check) {
    process.stderr.write(stale ? 'README.md or manifest.json is out of date: run npm run docs\n' : 'docs are current\n');
    return stale ? 1 : 0;
  }
  fs.writeFileSync(readmePath, newReadme);
  fs.writeFileSync(manifestPath, newManifest);
  process.stderr.write('README.md and manifest.json updated from the operation table\n');
  return 0;
}
