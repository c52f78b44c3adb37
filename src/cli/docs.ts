/** `gleaner docs`: writes the README table, the manifest's tools and docs/errors.md from the tables they come from. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPERATIONS } from '../operations/table.js';
import { parseOptions } from './usage.js';
import { errorCodesDocument, manifestTools, operationsTable, replaceTable } from '../surfaces/docs.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function runDocsCommand(args: string[]): Promise<number> {
  const check = parseOptions(args, { check: { type: 'boolean', default: false } }).values.check;
  const readmePath = path.join(root, 'README.md');
  const manifestPath = path.join(root, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
  const generated: Array<[string, string]> = [
    [readmePath, replaceTable(fs.readFileSync(readmePath, 'utf8'), operationsTable(OPERATIONS))],
    [manifestPath, `${JSON.stringify({ ...manifest, tools: manifestTools(OPERATIONS) }, null, 2)}\n`],
    [path.join(root, 'docs', 'errors.md'), errorCodesDocument()],
  ];
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);
  const stale = generated.filter(([file, text]) => read(file) !== text).map(([file]) => path.relative(root, file));
  if (check) {
    process.stderr.write(stale.length ? `${stale.join(', ')} out of date: run npm run docs\n` : 'docs are current\n');
    return stale.length ? 1 : 0;
  }
  for (const [file, text] of generated) fs.writeFileSync(file, text);
  process.stderr.write('README.md, manifest.json and docs/errors.md updated from the operation table and the error codes\n');
  return 0;
}
