/** Where the tests' files are: the repository, the recorded fixtures, this support folder. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SUPPORT_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(SUPPORT_DIR, '..', '..');
export const FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'fixtures');

/** A recorded fixture's text, by its path under test/fixtures. */
export const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8');
