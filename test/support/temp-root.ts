/**
 * Every tier's globalSetup: one temporary folder for the whole run, set as TMPDIR before the test
 * workers start, so the folders tests make with `os.tmpdir()` (stores, data directories, Chromium
 * profiles) and those of the processes they start are in it, and removed with it at the end. Tests
 * that clean up after themselves still do; this catches the rest, which left hundreds of folders in
 * /tmp on each run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MARK = 'GLEANER_TEST_TEMP_ROOT';

export default function setup(): (() => void) | undefined {
  // Once per run, however many projects list it: Chromium's sockets live under TMPDIR and a path must stay short.
  if (process.env[MARK]) return undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gleaner-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  process.env[MARK] = root;
  return () => {
    delete process.env[MARK];
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
