/**
 * The per-minute rate buckets of the embedded store, shared by every process on one data directory
 * (DESIGN.md: rate buckets are shared across processes), as Redis shares them with its Lua script.
 *
 * They live in a file of their own next to the store's, written from the event loop with no fsync
 * (synchronous=OFF): a bucket is worth nothing after a power cut, and a charged call must not wait for
 * a second disk flush. A process killed mid-step leaves a journal SQLite rolls back; a file that cannot
 * be opened or read (a power cut mid-write, a file left in WAL mode) is thrown away and made anew,
 * since all it can lose is some minutes of buckets.
 */
import fs from 'node:fs';
import { Db } from './sqlite-db.js';
import { retryBusy } from './sqlite-lock.js';
import { stepBucket, type TokenStep } from './token-bucket.js';

const SCHEMA = 'CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, tokens REAL NOT NULL, at INTEGER NOT NULL)';

interface Queued {
  step: () => TokenStep;
  resolve: (step: TokenStep) => void;
  reject: (error: unknown) => void;
}

export class SqliteRateBuckets {
  private readonly queue: Queued[] = [];

  private constructor(
    private readonly db: Db,
    readonly file: string,
  ) {}

  static async open(file: string): Promise<SqliteRateBuckets> {
    try {
      return await SqliteRateBuckets.openOnce(file);
    } catch {
      for (const stale of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(stale, { force: true });
      return SqliteRateBuckets.openOnce(file);
    }
  }

  private static async openOnce(file: string): Promise<SqliteRateBuckets> {
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
    const db = new Db(file);
    try {
      await retryBusy(file, () => db.exec('PRAGMA synchronous=OFF'));
      // The store's journal mode (sqlite.ts). A file left in WAL by earlier versions fails here and is made anew.
      await retryBusy(file, () => db.exec('PRAGMA journal_mode=TRUNCATE'));
      await retryBusy(file, () => db.exec(SCHEMA));
      await retryBusy(file, () => void db.all('SELECT COUNT(*) FROM buckets'));
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteRateBuckets(db, file);
  }

  /**
   * Refills `bucket` to `now` and takes one token if asked and there is one. The steps asked for in
   * one turn of the event loop share one transaction: a transaction costs about 2 ms whatever it
   * holds (its lock is a directory, made and removed).
   */
  takeToken(bucket: string, perMinute: number, burst: number, take: boolean, now: number): Promise<TokenStep> {
    return new Promise((resolve, reject) => {
      this.queue.push({ step: () => this.step(bucket, perMinute, burst, take, now), resolve, reject });
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0);
    let results: TokenStep[] = [];
    try {
      await retryBusy(this.file, () => {
        results = this.inTransaction(() => batch.map((queued) => queued.step()));
      });
    } catch (error) {
      for (const queued of batch) queued.reject(error);
      return;
    }
    batch.forEach((queued, i) => queued.resolve(results[i]!));
  }

  private step(bucket: string, perMinute: number, burst: number, take: boolean, now: number): TokenStep {
    const [row] = this.db.all('SELECT tokens, at FROM buckets WHERE name = ?', [bucket]);
    const result = row ? stepBucket(row.tokens as number, now - (row.at as number), perMinute, burst, take) : stepBucket(burst, 0, perMinute, burst, take);
    // A clock that went back (another process's, or a test's) never makes a bucket refill twice.
    const at = row ? Math.max(now, row.at as number) : now;
    this.db.run('INSERT INTO buckets(name, tokens, at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET tokens = excluded.tokens, at = excluded.at', [bucket, result.tokens, at]);
    return result;
  }

  close(): void {
    this.db.close();
  }

  private inTransaction<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }
}
