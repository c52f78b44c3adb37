/**
 * The job records in the store: one record per job, the list of active jobs (which a process that
 * takes over dead processes' jobs walks), and each key's list of its jobs. Every change of a record
 * is one atomic update; what the changes mean (claims, leases, endings) is the runner's (jobs.ts).
 */
import type { Store } from '../store/store.js';
import { GleanerError } from '../errors.js';
import { isFinal, type JobRecord } from './record.js';

const jobKey = (id: string) => `job:${id}`;
const ownerKey = (ownerId: string) => `jobs:of:${ownerId}`;
const ACTIVE_KEY = 'jobs:active';
/** Finished jobs stay readable for a week. */
const FINISHED_TTL_MS = 7 * 24 * 3600 * 1000;
/** Jobs listed per key (newest kept). */
const OWNER_INDEX_CAP = 500;

export type RecordChange<R> = (job: JobRecord | undefined) => { value: JobRecord | undefined; result: R };

export class JobRecords {
  constructor(private readonly store: Store) {}

  /** Writes a new job's record and lists it as active and as its owner's. */
  async create(job: JobRecord): Promise<void> {
    await this.store.set(jobKey(job.jobId), job);
    await this.store.update<string[], void>(ACTIVE_KEY, (ids = []) => ({ value: [...ids, job.jobId], result: undefined }));
    await this.store.update<string[], void>(ownerKey(job.ownerId), (ids = []) => ({ value: [...ids, job.jobId].slice(-OWNER_INDEX_CAP), result: undefined }));
  }

  /** The job if it exists and belongs to `ownerId`; NOT_FOUND otherwise, so ids of others leak nothing. */
  async get(jobId: string, ownerId: string): Promise<JobRecord> {
    const job = await this.store.get<JobRecord>(jobKey(jobId));
    if (!job || job.ownerId !== ownerId) throw new GleanerError('NOT_FOUND', `No job with id "${jobId}" for this key.`);
    return job;
  }

  /** The raw record, whoever owns it (for internal use: webhooks, tests). */
  async record(jobId: string): Promise<JobRecord | undefined> {
    return this.store.get<JobRecord>(jobKey(jobId));
  }

  /** The owner's jobs, newest first; `cursor` is where the previous page stopped. */
  async list(ownerId: string, options: { limit: number; cursor?: number }): Promise<{ jobs: JobRecord[]; nextCursor: number | null }> {
    const ids = ((await this.store.get<string[]>(ownerKey(ownerId))) ?? []).slice().reverse();
    const start = options.cursor ?? 0;
    const jobs: JobRecord[] = [];
    let index = start;
    for (; index < ids.length && jobs.length < options.limit; index++) {
      const job = await this.store.get<JobRecord>(jobKey(ids[index]));
      if (job && job.ownerId === ownerId) jobs.push(job);
    }
    return { jobs, nextCursor: index < ids.length ? index : null };
  }

  /** One atomic change of a record. */
  async update<R>(jobId: string, change: RecordChange<R>): Promise<R> {
    return this.store.update<JobRecord, R>(jobKey(jobId), change);
  }

  /** Merges `meta` into the job's record (e.g. credits reserved while it runs, so a takeover can refund them). */
  async updateMeta(jobId: string, meta: Record<string, unknown>): Promise<void> {
    await this.update<void>(jobId, (job) => ({ value: job && { ...job, meta: { ...job.meta, ...meta } }, result: undefined }));
  }

  /** Gives a finished record its expiry again (an update of the record, e.g. its webhook state, drops it). */
  async keepFinished(jobId: string): Promise<JobRecord | undefined> {
    const latest = await this.store.get<JobRecord>(jobKey(jobId));
    if (latest && isFinal(latest.status)) await this.store.set(jobKey(jobId), latest, FINISHED_TTL_MS);
    return latest;
  }

  /** The jobs not yet ended (or ended by a process that died before it took them off this list). */
  async active(): Promise<string[]> {
    return (await this.store.get<string[]>(ACTIVE_KEY)) ?? [];
  }

  async dropActive(jobId: string): Promise<void> {
    await this.store.update<string[], void>(ACTIVE_KEY, (ids = []) => ({ value: ids.filter((id) => id !== jobId), result: undefined }));
  }
}
