/**
 * The per-minute rate buckets of the embedded store, shared by every process on one data directory
 * (DESIGN.md: rate buckets are shared across processes), as Redis shares them with its Lua script.
 *
 * They live in a file of their own next to the store's, written from the event loop with no fsync
 * (synchronous=OFF): a bucket is worth nothing after a power cut, and a call must not wait for a disk
 * flush for it. The steps asked for in one turn of the event loop share one transaction (sqlite.ts).
 * A file that cannot be opened or read (a power cut mid-write, a file left in WAL mode) is thrown
 * away and made anew, since all it can lose is some minutes of buckets.
 */
import fs from 'node:fs';
import { SqliteFile } from './sqlite.js';
import { stepBucket, type TokenStep } from './token-bucket.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS buckets (name TEXT PRIMARY KEY, tokens REAL NOT NULL, at INTEGER NOT NULL);
`;

/**
 * A bucket untouched this long is full again whatever its rate (the slowest, a registration's, refills in an
 * hour), so its row says nothing a missing row does not: rows this old are deleted, at most once a minute. Keys
 * of callers without a key (their addresses) would otherwise add a row each for ever.
 */
const IDLE_BUCKET_MS = 24 * 60 * 60_000;
const PRUNE_EVERY_MS = 60_000;

export class SqliteRateBuckets {
  private lastPrune = Number.NEGATIVE_INFINITY;

  private constructor(private readonly file: SqliteFile) {}

  static async open(file: string): Promise<SqliteRateBuckets> {
    try {
      return new SqliteRateBuckets(await SqliteFile.open(file, SCHEMA, 'OFF'));
    } catch {
      for (const stale of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(stale, { force: true });
      return new SqliteRateBuckets(await SqliteFile.open(file, SCHEMA, 'OFF'));
    }
  }

  /** Refills `bucket` to `now` and takes one token if asked and there is one. */
  takeToken(bucket: string, perMinute: number, burst: number, take: boolean, now: number): Promise<TokenStep> {
    const prune = now - this.lastPrune >= PRUNE_EVERY_MS;
    if (prune) this.lastPrune = now;
    return this.file.transaction((db) => {
      if (prune) db.run('DELETE FROM buckets WHERE at < ?', [now - IDLE_BUCKET_MS]);
      const [row] = db.all('SELECT tokens, at FROM buckets WHERE name = ?', [bucket]);
      const result = row ? stepBucket(row.tokens as number, now - (row.at as number), perMinute, burst, take) : stepBucket(burst, 0, perMinute, burst, take);
      // A clock that went back (another process's, or a test's) never makes a bucket refill twice.
      const at = row ? Math.max(now, row.at as number) : now;
      db.run('INSERT INTO buckets(name, tokens, at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET tokens = excluded.tokens, at = excluded.at', [bucket, result.tokens, at]);
      return result;
    });
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
