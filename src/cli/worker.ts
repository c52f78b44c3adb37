/**
 * `gleaner worker`: works jobs from the shared queue (BullMQ on the Redis of GLEANER_STORE_URL)
 * without serving anything, GLEANER_JOB_CONCURRENCY at once. Start as many as the work needs.
 */
import type { Config } from '../config.js';
import { parseOptions } from './usage.js';

export async function runWorkerCommand(config: Config, args: string[], untilStopped: () => Promise<void>): Promise<number> {
  parseOptions(args, {});
  if (!config.GLEANER_STORE_URL || !/^rediss?:/.test(config.GLEANER_STORE_URL)) {
    process.stderr.write(
      'gleaner worker needs a shared queue: set GLEANER_STORE_URL to a Redis (e.g. redis://127.0.0.1:6379). On the embedded SQLite store, jobs run in the serve or mcp process that accepted them.\n',
    );
    return 2;
  }
  const { createApp } = await import('../app.js');
  const app = await createApp(config);
  (await import('./upstream-faults.js')).installUpstreamSafetyNet(app.log);
  // A worker exists to run jobs, crawls among them: start the page-extraction thread now, not on the first page.
  (await import('../web/extract-pool.js')).warmExtractPool();
  app.log.info({ store: app.services.store.location, concurrency: config.GLEANER_JOB_CONCURRENCY, process: app.services.jobs.processId }, 'Gleaner worker: working jobs');
  await untilStopped();
  await app.close();
  return 0;
}
