/**
 * Documents: time and memory to read the real PDF and Word fixtures (test/fixtures/documents) into
 * markdown, each in its own plain Node process running the built dist/ (built here first): the first
 * read (loading pdf.js or mammoth included, as a fresh document thread does) and the median of the
 * warm reads, with peak RSS.
 */
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fs from 'node:fs';
import { DOCUMENTS_DIR } from '../test/support/document-site.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));

const FILES = ['GeoTopo-komprimiert.pdf', 'pdflatex-4-pages.pdf', 'testPDF.pdf', 'testWORD.docx'];
const ROUNDS = 3;

export async function benchDocuments(): Promise<void> {
  const root = path.join(here, '..');
  await run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { cwd: root });
  const dist = pathToFileURL(path.join(root, 'dist')).href;
  console.log(`\ndocuments: read to markdown, ${ROUNDS} reads each in a fresh process, on ${os.availableParallelism()} cores (load ${os.loadavg()[0].toFixed(1)})`);
  for (const name of FILES) {
    const file = path.join(DOCUMENTS_DIR, name);
    const size = fs.statSync(file).size;
    try {
      const { stdout } = await run(process.execPath, [path.join(here, 'documents-child.mjs'), dist, file, String(ROUNDS)], { maxBuffer: 1024 * 1024 });
      const line = stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
      const r = JSON.parse(line ?? '{}') as { pages: number; chars: number; firstMs: number; warmMs: number; peakRssMB: number; baseRssMB: number };
      console.log(
        `  ${name.padEnd(26)} ${(size / 1024).toFixed(0).padStart(5)} KB, ${String(r.pages).padStart(3)} page(s), ${String(r.chars).padStart(6)} chars: ` +
          `first ${r.firstMs.toFixed(0)} ms, warm ${r.warmMs.toFixed(0)} ms (${((r.warmMs / r.pages)).toFixed(1)} ms a page), peak RSS ${r.peakRssMB.toFixed(0)} MB (${(r.peakRssMB - r.baseRssMB).toFixed(0)} MB over the process at start)`,
      );
    } catch (error) {
      console.log(`  ${name}: failed: ${(error as Error).message.split('\n')[0]}`);
    }
  }
}
