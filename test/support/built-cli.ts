/**
 * The `gleaner` command as tests start it: the compiled CLI, run by plain node, as a user runs it after
 * `npm run build`. Starting it through tsx compiled every source file on each start (seconds on a
 * loaded machine, five starts in one test outlasting its time limit); the compiled one starts in a
 * fraction of that. test/support/build-cli.ts (the processes tier's globalSetup) compiles it into
 * .test-build/ before the tier runs, again only when a source file changed since.
 *
 * .test-build/, not dist/: a Claude Desktop entry may be running this checkout's dist/ (README), and a
 * test run must not rewrite it under that entry.
 */
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export const TEST_BUILD_DIR = path.join(REPO_ROOT, '.test-build');
/** The compiled entry point. */
export const GLEANER_MAIN = path.join(TEST_BUILD_DIR, 'dist', 'cli', 'main.js');
