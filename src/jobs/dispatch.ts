/**
 * How a queued job reaches the process that works it. On the embedded store the process that
 * accepted a job works it (a bounded in-process runner); on Redis the job goes through BullMQ, so
 * any `serve` or `worker` on that Redis may take it, and BullMQ's stalled-job check hands the work
 * of a killed worker to another.
 */
import Bottleneck from 'bottleneck';
import type { Logger } from '../log.js';

export interface Dispatcher {
  /** True when queued jobs wait in this process's memory (they then carry its lease). */
  readonly holdsQueued: boolean;
  /** Starts working jobs with `work` (not called on a process that only enqueues). */
  start(work: (jobId: string) => Promise<void>): Promise<void>;
  dispatch(jobId: string): Promise<void>;
  /** Takes a job that has not started out of the queue (best effort: the worker checks the record anyway). */
  withdraw(jobId: string): Promise<void>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export class LocalDispatcher implements Dispatcher {
  readonly holdsQueued = true;
  private readonly runner: Bottleneck;
  private work?: (jobId: string) => Promise<void>;

  constructor(
    concurrency: number,
    private readonly log: Logger,
  ) {
    this.runner = new Bottleneck({ maxConcurrent: concurrency });
  }

  async start(work: (jobId: string) => Promise<void>): Promise<void> {
    this.work = work;
  }

  async dispatch(jobId: string): Promise<void> {
    const work = this.work;
    if (!work) return;
    void this.runner.schedule(() => work(jobId)).catch((error) => this.log.error({ err: error, jobId }, 'job runner failed'));
  }

  async withdraw(): Promise<void> {
    // The runner checks the record before starting: a cancelled job is skipped.
  }

  async idle(): Promise<void> {
    const counts = this.runner.counts();
    if (counts.RECEIVED + counts.QUEUED + counts.RUNNING + counts.EXECUTING === 0) return;
    await new Promise<void>((resolve) => this.runner.once('idle', () => resolve()));
  }

  async close(): Promise<void> {
    void this.runner.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }
}
