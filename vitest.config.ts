import { defineConfig } from 'vitest/config';

/**
 * Three tiers, one folder each; `npm test` runs them all.
 * - unit: no socket and no child process (`npm run test:unit`, seconds);
 * - loopback: real servers on loopback inside the test process (recorded platform replies, a browser);
 * - processes: Gleaner's own processes (serve, mcp, worker, the CLI) or a redis-server beside them.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file starts its own servers on loopback; two cores run two files at once.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // One temporary folder for the run, removed at its end (test/support/temp-root.ts).
    globalSetup: ['./test/support/temp-root.ts'],
    projects: [
      // Unit files share their workers' module graph (isolate off): importing src once per worker rather than once
      // per file halves the tier's time (24 s to 14 s on an idle 2-core machine). A unit test that changes a global
      // (env, a process listener, a fake timer) restores it in its own hooks.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      // Loopback and processes tests start servers, worker threads, ffmpeg, Chromium or Gleaner's own processes,
      // which a loaded 2-core machine (load 30 measured) runs many times slower than an idle one: two minutes a
      // test and a hook by default where a test gives no limit of its own (docs/testing.md). A limit only turns a
      // hang into a failure; a passing test on an idle machine ends long before it.
      // Hooks that make media with espeak-ng and ffmpeg get five minutes (one took 147 s at load 30).
      { extends: true, test: { name: 'loopback', include: ['test/loopback/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000 } },
      // The processes tier starts the compiled CLI (test/support/built-cli.ts), compiled first when stale.
      {
        extends: true,
        test: {
          name: 'processes',
          include: ['test/processes/**/*.test.ts'],
          globalSetup: ['./test/support/temp-root.ts', './test/support/build-cli.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
