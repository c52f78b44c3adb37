/**
 * A running job's progress: told to this process's waiters at once, and written to the job's
 * record at most every 250 ms so a fast crawl does not hammer the store (the last report always
 * lands, and never on a record that has ended meanwhile).
 */
import { isFinal, type JobProgress } from './record.js';
import type { JobRecords } from './job-records.js';

const WRITE_EVERY_MS = 250;

export class ProgressWriter {
  /** The last progress reported. */
  latest?: JobProgress;
  private lastWrite = 0;
  private trailing?: NodeJS.Timeout;

  constructor(
    private readonly records: JobRecords,
    private readonly jobId: string,
    private readonly announce: (progress: JobProgress) => void,
  ) {}

  readonly report = (progress: JobProgress): void => {
    this.announce(progress);
    this.latest = progress;
    const wait = WRITE_EVERY_MS - (Date.now() - this.lastWrite);
    if (wait <= 0) this.write();
    else this.trailing ??= setTimeout(() => this.write(), wait);
  };

  /** The job ended: no write is pending any more (its ending records the last progress). */
  stop(): void {
    clearTimeout(this.trailing);
  }

  private write(): void {
    this.trailing = undefined;
    this.lastWrite = Date.now();
    const progress = this.latest;
    void this.records
      .update<void>(this.jobId, (current) => ({ value: current && !isFinal(current.status) ? { ...current, progress: progress ?? null, updatedAt: new Date().toISOString() } : current, result: undefined }))
      .catch(() => undefined);
  }
}
