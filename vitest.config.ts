import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Each file starts its own servers on loopback; two cores run two files at once.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
