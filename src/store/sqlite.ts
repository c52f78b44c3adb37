/**
 * The embedded SQLite file (sqlite-db.ts), used from the store's own thread (sqlite-worker.ts), so
 * the fsyncs of its commits never block the event loop. One journal mode for every process, chosen
 * once: TRUNCATE with synchronous=FULL (a commit survives a power cut). Never WAL: the engine has no
 * shared memory for it (a file left in WAL by earlier versions: sqlite-wal.ts).
 *
 * Closures queued while the previous commit ran share one `BEGIN IMMEDIATE … COMMIT` (a group commit),
 * each in its own savepoint so one that throws undoes only itself. A write's caller hears after the
 * COMMIT. A read, or a reserve (`early`), is answered as soon as it has run: the batch holds the
 * file's lock, so what it saw is what the file holds until the commit. The steps those answers lead
 * to may join the same transaction (see commit).
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Db } from './sqlite-db.js';
import { retryBusy, StoreFileError } from './sqlite-lock.js';
import { leaveWal } from './sqlite-wal.js';

export { Db, StoreFileError };

/** `early`: answered before the COMMIT; `lost`, called should that COMMIT then fail. */
type Early = { early?: boolean; lost?: () => void };

interface Queued extends Early {
  work: (db: Db) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Rounds one transaction takes at most: a charged call's lookup, reserve and keep, and one to spare. */
const MAX_ROUNDS = 4;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class SqliteFile {
  private queue: Queued[] = [];
  private flushing = false;
  /**
   * Resolves once the early answers sent so far were handled by their callers and the steps they
   * led to were queued. On the event loop, a turn of it; on the store's thread, the event loop says so.
   */
  answered = () => new Promise<void>((resolve) => setImmediate(resolve));
  private closed = false;

  private constructor(
    private readonly db: Db,
    readonly file: string,
  ) {}

  /**
   * Opens (creating if needed) the file, with the data directory 0700 and the file 0600, and proves
   * it can be read and written: a corrupt, unreadable or read-only store fails here, naming the file.
   * `synchronous` OFF only for what a power cut may lose (the rate buckets, sqlite-rate.ts).
   */
  static async open(file: string, schema: string, synchronous: 'FULL' | 'OFF' = 'FULL'): Promise<SqliteFile> {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Create the file ourselves so it is 0600 whatever the umask (SQLite would make it 0644).
      fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
      fs.chmodSync(file, 0o600);
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    } catch (error) {
      throw new StoreFileError(file, (error as Error).message);
    }
    await leaveWal(file);
    let db: Db | undefined;
    try {
      const opened = (db = new Db(file));
      // The pragmas read the schema, so they wait for the lock like a transaction. journal_mode is set
      // outside a transaction: inside one SQLite keeps DELETE, whose unlink this VFS never syncs.
      await retryBusy(file, () => opened.exec(`PRAGMA synchronous=${synchronous}`));
      await retryBusy(file, () => opened.exec('PRAGMA journal_mode=TRUNCATE'));
      const store = new SqliteFile(opened, file);
      await store.transaction((d) => {
        d.exec(schema);
        // A write and a read back: read-only media and corrupt pages fail now, not on a paying call.
        d.run("INSERT OR REPLACE INTO meta(name, value) VALUES ('opened', ?)", [new Date().toISOString()]);
        d.all('PRAGMA quick_check');
      });
      return store;
    } catch (error) {
      try {
        db?.close();
      } catch {
        // Already unusable; the error below says why.
      }
      throw error instanceof StoreFileError ? error : new StoreFileError(file, (error as Error).message);
    }
  }

  /**
   * Runs `work` inside a transaction, grouped with everything else queued until the file is free:
   * while one commit waits for the disk, the next batch gathers. Work runs in the order it was queued.
   * `early` (reads, reserves): answered before the COMMIT.
   */
  transaction<T>(work: (db: Db) => T, options: Early = {}): Promise<T> {
    if (this.closed) return Promise.reject(new StoreFileError(this.file, 'the store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, ...options, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  async close(): Promise<void> {
    while (this.flushing) await delay(1);
    this.closed = true;
    this.db.close();
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        await this.commit(this.queue.splice(0));
        // Let the replies go out and the next requests arrive before the next batch.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * One transaction for `batch` and for what its early answers lead to: each step in its own savepoint,
   * the early ones answered before the COMMIT. While the transaction holds a write (a step whose caller
   * waits for the COMMIT anyway, or a reserve, whose keep or settle follows), the steps queued once the
   * early answers were handled (`answered`) join it, for up to MAX_ROUNDS rounds: a charged call's
   * lookup, reserve and keep can share one round of fsyncs.
   */
  private async commit(batch: Queued[]): Promise<void> {
    try {
      await retryBusy(this.file, () => this.db.exec('BEGIN IMMEDIATE'));
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    const outcomes: Outcome[] = [];
    const settle = (item: Queued, outcome: Outcome) => (outcome.ok ? item.resolve(outcome.value) : item.reject(outcome.error));
    for (let round = batch, rounds = 1; ; rounds++) {
      for (const item of round) {
        outcomes.push(this.runOne(item));
        if (item.early) settle(item, outcomes.at(-1)!);
      }
      if (!round.some((item) => item.early)) break;
      const joinable = rounds < MAX_ROUNDS && batch.some((item) => !item.early || item.lost);
      // The answers leave this thread now, while the commit below waits for the disk.
      await (joinable ? this.answered() : new Promise((resolve) => setImmediate(resolve)));
      if (!joinable || this.queue.length === 0) break;
      round = this.queue.splice(0);
      batch.push(...round);
    }
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // Nothing more to undo.
      }
      const failure = new StoreFileError(this.file, `a write failed (${(error as Error).message})`);
      batch.forEach((item, i) => {
        if (!item.early) item.reject(failure);
        else if (outcomes[i]!.ok) item.lost?.();
      });
      return;
    }
    batch.forEach((item, i) => !item.early && settle(item, outcomes[i]!));
  }

  private runOne(item: Queued): Outcome {
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
}
