/**
 * The embedded SQLite file, through node-sqlite3-wasm: SQLite compiled to WebAssembly with a VFS on
 * Node's fs, so there is no native module to build or ship (see docs/architecture.md, "The store").
 *
 * Every access runs as a synchronous closure inside a database transaction. Closures queued in the
 * same turn of the event loop share one `BEGIN IMMEDIATE … COMMIT` (a group commit): one lock and one
 * fsync for many calls, each closure in its own savepoint so one that throws undoes only itself.
 * A caller's promise settles after the COMMIT, so nothing it wrote can be lost after it is told so.
 *
 * The VFS locks a database by creating the directory `<file>.lock` (SQLITE_BUSY while another process
 * holds it). Busy is retried asynchronously; a lock directory older than STALE_LOCK_MS belonged to a
 * process that died inside a transaction (ours are synchronous and last milliseconds) and is removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Database as DatabaseType } from 'node-sqlite3-wasm';

// The package is CommonJS with its class on module.exports; createRequire keeps types and ESM happy.
const { Database } = createRequire(import.meta.url)('node-sqlite3-wasm') as typeof import('node-sqlite3-wasm');

export type Db = DatabaseType;

/** A transaction of ours holds the lock for milliseconds; one this old was left by a dead process. */
const STALE_LOCK_MS = 10_000;
/** How long a caller waits for the lock before the store is reported unavailable. */
const BUSY_GIVE_UP_MS = 30_000;

/**
 * How long a lazy write waits for company (2 ms measured best of 1, 2 and 5 in bench/gate.ts). Lazy
 * writes (the credit ledger's) commit together, apart from reads, which commit every turn but need no
 * fsync: one commit (three fsyncs with the rollback journal) then covers every charge of a few
 * milliseconds instead of every turn's. Lazy writes run in the order they were queued.
 */
const LAZY_MS = 2;
/**
 * On a slow disk a lazy write waits as long as the last commit of lazy writes took (at most this):
 * fsync blocks the event loop, so gathering for as long as a commit lasts keeps commits to about half
 * of the loop's time (bench/gate.ts with every fsync made 5 ms long: 15% more charged calls a second).
 */
const LAZY_MAX_MS = 20;

interface Queued {
  lazy?: boolean;
  work: (db: Db) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class StoreFileError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`The store ${file} cannot be used: ${detail}`);
    this.name = 'StoreFileError';
  }
}

export class SqliteFile {
  private queue: Queued[] = [];
  /** Lazy writes, gathered for LAZY_MS into a commit of their own (reads commit without an fsync). */
  private lazy: Queued[] = [];
  private flushing = false;
  private lazyTimer?: NodeJS.Timeout;
  /** How long the last commit that carried lazy writes took (its fsync, mostly). */
  private lastLazyCommitMs = 0;
  private closed = false;

  private constructor(
    private readonly db: Db,
    readonly file: string,
  ) {}

  /**
   * Opens (creating if needed) the file, with the data directory 0700 and the file 0600, and proves
   * it can be read and written: a corrupt, unreadable or read-only store fails here, naming the file.
   */
  static async open(file: string, schema: string): Promise<SqliteFile> {
    const dir = path.dirname(file);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Create the file ourselves so it is 0600 whatever the umask (SQLite would make it 0644).
      fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
      fs.chmodSync(file, 0o600);
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    } catch (error) {
      throw new StoreFileError(file, (error as Error).message);
    }
    let db: Db;
    try {
      db = new Database(file);
    } catch (error) {
      throw new StoreFileError(file, (error as Error).message);
    }
    const store = new SqliteFile(db, file);
    try {
      await store.transaction((d) => {
        // The rollback journal (the VFS has no shared memory for WAL), truncated rather than deleted.
        d.exec('PRAGMA journal_mode=TRUNCATE');
        d.exec(schema);
        // A write and a read back: read-only media and corrupt pages fail now, not on a paying call.
        d.run("INSERT OR REPLACE INTO meta(name, value) VALUES ('opened', ?)", [new Date().toISOString()]);
        d.all('PRAGMA quick_check');
      });
    } catch (error) {
      try {
        db.close();
      } catch {
        // Already unusable; the error below says why.
      }
      throw error instanceof StoreFileError ? error : new StoreFileError(file, (error as Error).message);
    }
    return store;
  }

  /**
   * Runs `work` inside a transaction, grouped with the others queued in the same turn. A `lazy` one
   * waits up to LAZY_MS to commit with the other lazy ones; work queued meanwhile that is not lazy may
   * run before it, so only work whose caller waits for it (or whose delay changes nothing another
   * caller reads, such as closing a reservation already counted) may be lazy.
   */
  transaction<T>(work: (db: Db) => T, options: { lazy?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new StoreFileError(this.file, 'the store is closed'));
    return new Promise<T>((resolve, reject) => {
      const item: Queued = { lazy: options.lazy, work, resolve: resolve as (value: unknown) => void, reject };
      if (options.lazy) {
        this.lazy.push(item);
        this.lazyTimer ??= setTimeout(() => this.flushSoon(), Math.min(LAZY_MAX_MS, Math.max(LAZY_MS, this.lastLazyCommitMs)));
        return;
      }
      this.queue.push(item);
      if (!this.flushing) this.flushSoon(setImmediate);
    });
  }

  /** Starts a flush, taking the lazy writes along when their time has come (or the file closes). */
  private flushSoon(defer?: (run: () => void) => unknown): void {
    if (!defer) {
      clearTimeout(this.lazyTimer);
      this.lazyTimer = undefined;
      this.queue.push(...this.lazy);
      this.lazy = [];
    }
    if (this.flushing) return;
    this.flushing = true;
    if (defer) defer(() => void this.flush());
    else void this.flush();
  }

  async close(): Promise<void> {
    // Lazy writes still waiting are committed before the file closes.
    if (this.queue.length > 0 || this.lazy.length > 0) this.flushSoon();
    while (this.flushing) await delay(1);
    this.closed = true;
    if (this.db.isOpen) this.db.close();
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        try {
          await this.begin();
        } catch (error) {
          for (const item of batch) item.reject(error);
          continue;
        }
        const outcomes = batch.map((item) => this.runOne(item));
        try {
          const started = performance.now();
          this.db.exec('COMMIT');
          if (batch.some((item) => item.lazy)) this.lastLazyCommitMs = performance.now() - started;
        } catch (error) {
          this.rollback();
          const failure = new StoreFileError(this.file, `a write failed (${(error as Error).message})`);
          for (const item of batch) item.reject(failure);
          continue;
        }
        batch.forEach((item, i) => {
          const outcome = outcomes[i]!;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(outcome.error);
        });
      }
    } finally {
      this.flushing = false;
    }
  }

  private runOne(item: Queued): { ok: true; value: unknown } | { ok: false; error: unknown } {
    try {
      this.db.exec('SAVEPOINT one');
      const value = item.work(this.db);
      this.db.exec('RELEASE one');
      return { ok: true, value };
    } catch (error) {
      try {
        this.db.exec('ROLLBACK TO one');
        this.db.exec('RELEASE one');
      } catch {
        // The outer transaction is gone too; COMMIT will fail and say so.
      }
      return { ok: false, error };
    }
  }

  /** BEGIN IMMEDIATE, retried without blocking the event loop while another process holds the lock. */
  private async begin(): Promise<void> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        this.db.exec('BEGIN IMMEDIATE');
        return;
      } catch (error) {
        const message = (error as Error).message;
        if (!/locked|busy/i.test(message)) throw new StoreFileError(this.file, message);
        if (this.removeStaleLock()) continue;
        if (Date.now() - started > BUSY_GIVE_UP_MS) throw new StoreFileError(this.file, `it stayed locked by another process for ${BUSY_GIVE_UP_MS / 1000} s`);
        // Jittered so processes that collided do not collide again in step.
        await delay(Math.min(1 + attempt, 20) * (0.5 + Math.random()));
      }
    }
  }

  private rollback(): void {
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // Nothing more to undo.
    }
  }

  /**
   * Removes the lock directory of a process that died holding it. It is first renamed to a name of
   * our own (atomic: of several processes doing this, one wins), then checked again before removal.
   */
  private removeStaleLock(): boolean {
    const lock = `${this.file}.lock`;
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs < STALE_LOCK_MS) return false;
      const taken = `${lock}.stale-${randomUUID()}`;
      fs.renameSync(lock, taken);
      if (Date.now() - fs.statSync(taken).mtimeMs < STALE_LOCK_MS) {
        // A live lock slipped in between the two looks: give it back.
        fs.renameSync(taken, lock);
        return false;
      }
      fs.rmdirSync(taken);
      return true;
    } catch {
      return false;
    }
  }
}
