/**
 * The embedded SQLite file (engine: sqlite-db.ts), used from one thread: the store's own worker
 * (sqlite-thread.ts), so its fsyncs never block the event loop that serves requests.
 *
 * Every access runs as a synchronous closure inside a database transaction. Closures queued while
 * the previous commit ran share one `BEGIN IMMEDIATE … COMMIT` (a group commit): one lock and one
 * fsync for many calls, each closure in its own savepoint so one that throws undoes only itself.
 * A caller's promise settles after the COMMIT, so nothing it wrote can be lost after it is told so
 * (but see EarlyAnswer: reads and reserves, which no reply depends on alone, wait for less).
 *
 * The wasm engine locks a database by creating the directory `<file>.lock` (SQLITE_BUSY while another
 * process holds it); the node engine uses SQLite's own file locks. Busy is retried asynchronously; a
 * lock directory older than STALE_LOCK_MS belonged to a process that died inside a transaction (ours
 * are synchronous and last milliseconds) and is removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { openDb, type Db, type SqliteEngine } from './sqlite-db.js';

export type { Db };

/** A transaction of ours holds the lock for milliseconds; one this old was left by a dead process. */
const STALE_LOCK_MS = 10_000;
/** How long a caller waits for the lock before the store is reported unavailable. */
const BUSY_GIVE_UP_MS = 30_000;

/**
 * `early`: answered as soon as it has run, before its COMMIT (the batch still holds the file's lock,
 * so no other process sees or changes the state it read until the commit). For reads, and for steps
 * whose caller replies to nobody before a later, durable step: should the commit fail, `lost` is
 * called (a reserve's later keep then fails instead of replying uncharged). Used on the wasm engine;
 * on the node engine those steps are `unsynced` instead, answered after a COMMIT that waits for no disk.
 */
export interface EarlyAnswer {
  early?: boolean;
  lost?: () => void;
  /**
   * Its commit need not reach the disk before the answer: a read, or a reserve (lost in a power cut,
   * it is simply returned: its call replies only after a later, durable step). On the node engine
   * (WAL) such steps commit apart, with synchronous=OFF: visible to every connection at once, and on
   * the disk with the next durable commit, whose WAL fsync covers every earlier frame.
   */
  unsynced?: boolean;
}

/**
 * What the store's thread tells the event loop of each transaction on the wasm engine, for its key
 * cache (sqlite-key-cache.ts): the file's change counter when the transaction took the lock, and what
 * this transaction's COMMIT will leave there (one more when it wrote). Sent before the COMMIT and
 * before the batch's early answers; `failed` when a COMMIT failed (nothing it announced holds).
 */
export type CommitNote = { before: number; after: number } | { failed: true };

interface Queued extends EarlyAnswer {
  work: (db: Db) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class StoreFileError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`The store ${file} cannot be used: ${detail}`);
    this.name = 'StoreFileError';
  }
}

/** SQLite's default: the WAL is copied into the database once it holds this many pages. */
const WAL_AUTOCHECKPOINT_PAGES = 1000;

/** What a transaction's COMMIT waits for: FULL, the disk; OFF (node engine, WAL only), nothing. */
type Synchronous = 'FULL' | 'OFF';

export class SqliteFile {
  private queue: Queued[] = [];
  /** The connection's synchronous setting: FULL from open() on. */
  private synchronous: Synchronous = 'FULL';
  private flushing = false;
  private closed = false;
  /** wasm engine, while a batch runs: the change counter its transaction found (watchCommits). */
  counterAtBegin?: number;
  /** wasm engine: told of each transaction's change counter (watchCommits). */
  private watcher?: { fd: number; note: (note: CommitNote) => void };

  private constructor(
    private readonly db: Db,
    readonly file: string,
  ) {}

  get engine(): SqliteEngine {
    return this.db.engine;
  }

  /**
   * Opens (creating if needed) the file, with the data directory 0700 and the file 0600, and proves
   * it can be read and written: a corrupt, unreadable or read-only store fails here, naming the file.
   */
  static async open(file: string, schema: string, engine: SqliteEngine): Promise<SqliteFile> {
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
    // The wasm engine cannot read a file in WAL mode (it has no shared memory): say so, by name.
    if (engine === 'wasm' && inWalMode(file)) {
      throw new StoreFileError(file, 'it is in WAL mode, written by node:sqlite (Node 22.13 or later); run Gleaner on that Node, or convert it with `sqlite3 <file> "PRAGMA journal_mode=TRUNCATE"`');
    }
    let db: Db;
    try {
      db = openDb(file, engine);
      // Every commit on the disk before its caller hears of it (the ledger's promise). The pragma
      // reads the schema, so it waits for the lock like a transaction does.
      const opened = db;
      await retryBusy(file, () => opened.exec('PRAGMA synchronous=FULL'));
      // WAL: one fsync a commit, and readers that never wait for the writer. It needs the file's
      // lock for a moment, which another process may hold.
      if (engine === 'node') await retryBusy(file, () => opened.exec('PRAGMA journal_mode=WAL'));
      // The wasm engine: the rollback journal (its VFS has no shared memory for WAL), truncated at each
      // commit and that truncation synced, so a commit survives a power cut. Set outside a transaction:
      // inside one SQLite keeps the default (DELETE), whose unlink this VFS never syncs.
      if (engine === 'wasm') await retryBusy(file, () => opened.exec('PRAGMA journal_mode=TRUNCATE'));
    } catch (error) {
      throw error instanceof StoreFileError ? error : new StoreFileError(file, (error as Error).message);
    }
    const store = new SqliteFile(db, file);
    try {
      await store.transaction((d) => {
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
   * Runs `work` inside a transaction, grouped with everything else queued until the file is free:
   * while one commit waits for the disk, the next batch gathers. Work runs in the order it was queued.
   */
  transaction<T>(work: (db: Db) => T, options: EarlyAnswer = {}): Promise<T> {
    if (this.closed) return Promise.reject(new StoreFileError(this.file, 'the store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject, ...options });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /**
   * Tells `note` of every transaction from now on (wasm engine only: its lock is a directory, so the
   * descriptor opened here to read the header takes no POSIX lock that closing it could drop).
   */
  watchCommits(note: (note: CommitNote) => void): void {
    if (this.db.engine !== 'wasm') throw new Error('commit notes are for the wasm engine');
    this.watcher = { fd: fs.openSync(this.file, 'r'), note };
  }

  async close(): Promise<void> {
    while (this.flushing) await delay(1);
    this.closed = true;
    if (this.watcher) fs.closeSync(this.watcher.fd);
    this.watcher = undefined;
    // The last connection to close checkpoints the WAL into the database: with fsyncs, never OFF.
    if (this.synchronous !== 'FULL') {
      try {
        this.setSynchronous('FULL');
      } catch {
        // The connection is unusable; closing it below says nothing more.
      }
    }
    this.db.close();
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        if (this.db.engine === 'node') {
          // WAL: the steps that need no fsync commit first, without one, and are answered; then the
          // durable ones, whose fsync also covers the frames just written. None of the queued steps
          // has been answered yet, so running the first kind first changes no answer anyone has seen.
          const light = batch.filter((item) => item.unsynced);
          const durable = light.length === 0 ? batch : batch.filter((item) => !item.unsynced);
          if (light.length > 0) {
            await this.commit(light, 'OFF');
            // Their answers leave this thread before the durable commit blocks it.
            if (durable.length > 0) await new Promise((resolve) => setImmediate(resolve));
          }
          if (durable.length > 0) await this.commit(durable, 'FULL');
        } else {
          await this.commit(batch, 'FULL');
        }
        // Let the replies go out and the next requests arrive before the next batch.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.flushing = false;
    }
  }

  /** One transaction for `batch`: each step in its own savepoint, early answers before the COMMIT. */
  private async commit(batch: Queued[], sync: Synchronous): Promise<void> {
    try {
      await this.begin(sync);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    // The lock is ours from BEGIN IMMEDIATE to the end of COMMIT: no other process changes the counter meanwhile.
    const watcher = this.watcher;
    const before = watcher ? changeCounter(watcher.fd) : undefined;
    this.counterAtBegin = before;
    const changesBefore = watcher ? totalChanges(this.db) : 0;
    const outcomes = batch.map((item) => this.runOne(item));
    let announced: CommitNote | undefined;
    if (watcher) {
      // SQLite adds one to the counter when it unlocks a file it modified; a step that changed a row
      // modified it. Told conservatively: a batch with an undone step, or a write that changed no
      // row, announces no change, so its commit, if it changed the counter, reads as a foreign one.
      const wrote = totalChanges(this.db) !== changesBefore && outcomes.every((outcome) => outcome.ok);
      announced = before === undefined ? { failed: true } : { before, after: wrote ? before + 1 : before };
      watcher.note(announced);
    }
    // Without an fsync the COMMIT is as quick as an answer: answering before it gains nothing.
    const early = sync === 'OFF' ? [] : batch.filter((item, i) => item.early && outcomes[i]!.ok);
    if (early.length > 0) {
      for (const item of early) item.resolve((outcomes[batch.indexOf(item)] as { value: unknown }).value);
      // The answers leave this thread now, while the commit below waits for the disk.
      await new Promise((resolve) => setImmediate(resolve));
    }
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.rollback();
      watcher?.note({ failed: true });
      const failure = new StoreFileError(this.file, `a write failed (${(error as Error).message})`);
      for (const item of batch) if (!early.includes(item)) item.reject(failure);
      for (const item of early) item.lost?.();
      return;
    }
    // A commit announced as a change that left the counter as it was: take nothing announced as true.
    if (watcher && announced && 'after' in announced && announced.after !== announced.before && changeCounter(watcher.fd) === announced.before) watcher.note({ failed: true });
    batch.forEach((item, i) => {
      if (early.includes(item)) return;
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
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

  /**
   * BEGIN IMMEDIATE, retried without blocking the thread while another process holds the lock, in
   * the `sync` mode this transaction's commit needs (it is set outside a transaction). With OFF,
   * SQLite's automatic checkpoint is turned off too: a checkpoint without fsyncs could copy frames
   * into the database and let the WAL be reset before they are on the disk. Checkpoints run after
   * FULL commits only, which sync the WAL before and the database after.
   */
  private begin(sync: Synchronous): Promise<void> {
    return retryBusy(this.file, () => {
      if (this.synchronous !== sync) this.setSynchronous(sync);
      this.db.exec('BEGIN IMMEDIATE');
    });
  }

  private setSynchronous(sync: Synchronous): void {
    this.db.exec(sync === 'OFF' ? 'PRAGMA synchronous=OFF; PRAGMA wal_autocheckpoint=0' : `PRAGMA synchronous=FULL; PRAGMA wal_autocheckpoint=${WAL_AUTOCHECKPOINT_PAGES}`);
    this.synchronous = sync;
  }

  private rollback(): void {
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // Nothing more to undo.
    }
  }
}

/** Runs `step` (a statement that takes the file's lock), retried while another process holds the lock. */
export async function retryBusy(file: string, step: () => void): Promise<void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      step();
      return;
    } catch (error) {
      const message = (error as Error).message;
      if (!/locked|busy/i.test(message)) throw new StoreFileError(file, message);
      if (removeStaleLock(file)) continue;
      if (Date.now() - started > BUSY_GIVE_UP_MS) throw new StoreFileError(file, `it stayed locked by another process for ${BUSY_GIVE_UP_MS / 1000} s`);
      // Jittered so processes that collided do not collide again in step.
      await delay(Math.min(1 + attempt, 20) * (0.5 + Math.random()));
    }
  }
}

/**
 * The database header's file change counter (4 bytes, big-endian, at offset 24), which SQLite adds
 * one to whenever it unlocks the file after modifying it (rollback journal modes); undefined while
 * the file has no header yet.
 */
export function changeCounter(fd: number): number | undefined {
  const bytes = Buffer.alloc(4);
  return fs.readSync(fd, bytes, 0, 4, 24) === 4 ? bytes.readUInt32BE(0) : undefined;
}

function totalChanges(db: Db): number {
  return db.all('SELECT total_changes() AS n')[0]!.n as number;
}

/** Whether the file's header says WAL (format bytes 18 and 19 are 2). */
function inWalMode(file: string): boolean {
  const header = Buffer.alloc(20);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, header, 0, 20, 0) === 20 && header.toString('latin1', 0, 15) === 'SQLite format 3' && header[18] === 2;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Removes the lock directory of a process that died holding it. It is first renamed to a name of
 * our own (atomic: of several processes doing this, one wins), then checked again before removal.
 */
function removeStaleLock(file: string): boolean {
  const lock = `${file}.lock`;
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
