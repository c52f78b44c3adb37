/**
 * Jobs through BullMQ on the Redis of GLEANER_STORE_URL. BullMQ carries only the job id: the
 * record in the store stays the one truth, and the worker claims it there before running it.
 *
 * A worker holds each job with a lock it renews; a worker killed with kill -9 stops renewing, and
 * BullMQ's stalled-job check on any live worker puts the job back in the queue. The next worker
 * finds the record `processing` under an expired lease and fails it with a refund (see Jobs.run):
 * the dead worker never settled, so nothing is charged twice.
 */
import { Queue, Worker } from 'bullmq';
import type { Logger } from '../log.js';
import { bullmqRedisOptions } from '../store/redis-connection.js';
import type { Dispatcher } from './dispatch.js';

const QUEUE_NAME = 'gleaner-jobs';
const PREFIX = 'gleaner-bull';

export class BullMqDispatcher implements Dispatcher {
  readonly holdsQueued = false;
  private readonly queue: Queue;
  private worker?: Worker;

  constructor(
    private readonly redisUrl: string,
    private readonly options: { concurrency: number; leaseMs: number },
    private readonly log: Logger,
  ) {
    this.queue = new Queue(QUEUE_NAME, { connection: this.connection(), prefix: PREFIX });
    this.queue.on('error', (error) => this.log.warn({ err: error }, 'job queue connection error'));
  }

  async start(work: (jobId: string) => Promise<void>): Promise<void> {
    this.worker = new Worker<{ jobId: string }>(QUEUE_NAME, async (job) => work(job.data.jobId), {
      connection: this.connection(),
      prefix: PREFIX,
      concurrency: this.options.concurrency,
      // The BullMQ lock and the lease expire together, so a stalled job is taken over once its lease is gone.
      lockDuration: this.options.leaseMs,
      stalledInterval: this.options.leaseMs,
      maxStalledCount: 1,
    });
    this.worker.on('error', (error) => this.log.warn({ err: error }, 'job worker connection error'));
    await this.worker.waitUntilReady();
  }

  async dispatch(jobId: string): Promise<void> {
    await this.queue.add('run', { jobId }, { jobId, removeOnComplete: true, removeOnFail: true, attempts: 1 });
  }

  async withdraw(jobId: string): Promise<void> {
    await this.queue.remove(jobId).catch(() => 0);
  }

  async idle(): Promise<void> {
    // Nothing to wait for in this process beyond what Jobs tracks itself.
  }

  async close(): Promise<void> {
    // force: a stopping process does not outlive its jobs; their leases expire and another takes over.
    await this.worker?.close(true).catch(() => undefined);
    await this.queue.close().catch(() => undefined);
  }

  /** The store's address and connection rules, with BullMQ's exceptions (see store/redis-connection.ts). */
  private connection() {
    return bullmqRedisOptions(this.redisUrl);
  }
}
