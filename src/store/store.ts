/**
 * The one store: SQLite in the data directory by default (node-sqlite3-wasm on every Node, docs/ledger.md), or
 * Redis named by GLEANER_STORE_URL when several processes or machines share state. JSON values by key,
 * plus the credit ledger (ledger.ts) and, on Redis, the shared rate buckets.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { GleanerError } from '../errors.js';
import { redactUrl } from '../redact.js';
import { KeyedMutex } from './mutex.js';
import { SqliteThreadStore } from './sqlite-thread.js';
import { RedisStore, REDIS_COMMAND_TIMEOUT_MS } from './redis-store.js';
import { StoreFileError } from './sqlite.js';
import type { CreditLedger } from './ledger.js';
import { SqliteRateBuckets } from './sqlite-rate.js';
import type { TokenStep } from './token-bucket.js';

export type StoreKind = 'sqlite' | 'redis';

/** How often one process sweeps expired rows from the embedded store, at most. */
const SWEEP_EVERY_MS = 60_000;
export { StoreFileError };

type Change<T, R> = (current: T | undefined) => { value: T | undefined; result: R } | Promise<{ value: T | undefined; result: R }>;

export class Store {
  private readonly mutex = new KeyedMutex();
  readonly ledger: CreditLedger;

  constructor(
    private readonly engine: SqliteThreadStore | RedisStore,
    readonly kind: StoreKind,
    readonly location: string,
    /** The embedded store's rate buckets (a file of their own); Redis keeps them itself. */
    private readonly rateBuckets?: SqliteRateBuckets,
  ) {
    this.ledger = engine.ledger;
  }

  /** One step of a per-minute token bucket shared by every process: refilled to `now` (Redis: its clock), a token taken if `take`. */
  takeToken(bucket: string, perMinute: number, burst: number, take: boolean, now: number): Promise<TokenStep> {
    if (this.engine instanceof RedisStore) return this.engine.takeToken(bucket, perMinute, burst, take);
    return this.rateBuckets!.takeToken(bucket, perMinute, burst, take, now);
  }

  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.guard(() => this.engine.get(key));
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  /** Reads `key`, then the key its value names (an index, then its record), in one step where the engine allows. */
  async getThrough<T>(key: string, next: (value: string) => string): Promise<T | undefined> {
    const raw = await this.guard(() => this.engine.getThrough(key, (first) => next(JSON.parse(first) as string)));
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    await this.guard(() => this.engine.set(key, JSON.stringify(value), ttlMs));
    if (ttlMs) this.sweepSoon();
  }

  private lastSweep = Number.NEGATIVE_INFINITY;

  /**
   * Redis drops an expired key itself; SQLite keeps its row until it is deleted. So a write of an expiring
   * key (a pending sign-in, a kept page, a screenshot …) is followed, at most once a minute per process, by a
   * sweep of every expired row: what callers without a key can make never stays on the disk past its expiry.
   */
  private sweepSoon(): void {
    const now = Date.now();
    if (this.kind !== 'sqlite' || now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    this.sweepExpired('').catch(() => undefined);
  }

  async delete(key: string): Promise<void> {
    await this.guard(() => this.engine.delete(key));
  }

  /** Frees the expired keys under `prefix` (SQLite keeps their rows until then; Redis drops them itself). */
  async sweepExpired(prefix: string): Promise<void> {
    const engine = this.engine;
    if (engine instanceof SqliteThreadStore) await this.guard(() => engine.sweepExpired(prefix));
  }

  /**
   * Atomic read-modify-write of one key, across every process sharing the store. `change` returns the
   * new value (undefined deletes) and a result; throwing aborts without writing. SQLite: compare-and-swap.
   */
  async update<T, R>(key: string, change: Change<T, R>): Promise<R> {
    return this.mutex.run(key, () => this.guard(() => (this.engine instanceof SqliteThreadStore ? this.updateSqlite(this.engine, key, change) : this.updateRedis(this.engine, key, change))));
  }

  async close(): Promise<void> {
    await this.rateBuckets?.close();
    await this.engine.close();
  }

  /** Turns an engine failure into STORE_UNAVAILABLE naming the store: a call never succeeds without its write. */
  async guard<R>(work: () => Promise<R>): Promise<R> {
    try {
      return this.kind === 'redis' ? await withTimeout(work(), REDIS_COMMAND_TIMEOUT_MS) : await work();
    } catch (error) {
      if (error instanceof GleanerError) throw error;
      if (error instanceof StoreFileError || this.kind === 'redis') {
        const detail = error instanceof StoreFileError ? error.message : `the store ${this.location} did not answer (${(error as Error).message})`;
        throw new GleanerError('STORE_UNAVAILABLE', `${detail}. Nothing was charged for this request; try again shortly.`);
      }
      throw error;
    }
  }

  /** Compare-and-swap: the change runs on this thread, the write on the store's, retried if another process wrote the key meanwhile. */
  private async updateSqlite<T, R>(engine: SqliteThreadStore, key: string, change: Change<T, R>): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      const seen = await engine.get(key);
      const { value, result } = await change(seen === undefined ? undefined : (JSON.parse(seen) as T));
      const next = value === undefined ? undefined : JSON.stringify(value);
      if (await engine.compareAndSet(key, seen, next)) return result;
      if (attempt > 100) throw new Error(`store update of ${key} kept conflicting`);
    }
  }

  private async updateRedis<T, R>(engine: RedisStore, key: string, change: Change<T, R>): Promise<R> {
    const token = randomUUID();
    for (let attempt = 0; !(await engine.lock(key, token, 10_000)); attempt++) {
      if (attempt > 2_000) throw new Error(`store lock on ${key} not acquired`);
      await delay(Math.min(2 + attempt, 25));
    }
    try {
      const raw = await engine.get(key);
      const { value, result } = await change(raw === undefined ? undefined : (JSON.parse(raw) as T));
      if (value === undefined) await engine.delete(key);
      else await engine.set(key, JSON.stringify(value), await engine.ttl(key));
      return result;
    } finally {
      await engine.unlock(key, token);
    }
  }
}

/**
 * ioredis times out each command (commandTimeout, the same REDIS_COMMAND_TIMEOUT_MS); a step of
 * several commands (update's lock, read, write, unlock) is bounded here as a whole. The caller stops
 * waiting; a command already sent may still run when a frozen Redis wakes (see Accounts.reserve).
 */
async function withTimeout<R>(work: Promise<R>, ms: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function openStore(options: {
  dataDir: string;
  storeUrl?: string;
  onRedisError?: (error: Error) => void;
}): Promise<Store> {
  if (options.storeUrl && /^rediss?:/.test(options.storeUrl)) {
    const redis = await RedisStore.open(options.storeUrl, options.onRedisError ?? (() => undefined));
    // `location` is what messages and logs name: the URL without its password.
    return new Store(redis, 'redis', redactUrl(options.storeUrl));
  }
  if (options.storeUrl && !/^sqlite:/.test(options.storeUrl)) {
    throw new Error(`GLEANER_STORE_URL: unsupported store "${redactUrl(options.storeUrl)}" (use sqlite://<file> or redis://host:port)`);
  }
  const file = options.storeUrl ? options.storeUrl.replace(/^sqlite:\/\//, '') : path.join(options.dataDir, 'gleaner.sqlite');
  const sqlite = await SqliteThreadStore.open(file);
  // `gleaner.sqlite` -> `gleaner.rate.sqlite`, beside it.
  const rateFile = file.replace(/(\.sqlite3?|\.db)?$/, (extension) => `.rate${extension || '.sqlite'}`);
  const rate = await SqliteRateBuckets.open(rateFile).catch(async (error: unknown) => {
    await sqlite.close();
    throw new StoreFileError(rateFile, (error as Error).message);
  });
  return new Store(sqlite, 'sqlite', file, rate);
}
