/**
 * The embedded SQLite store as the event loop sees it: every write (and the credit ledger's steps) is
 * a message to the store's own thread (sqlite-worker.ts), which owns the writing connection, groups
 * what arrives while a commit waits for the disk into the next transaction, and answers each caller
 * once its commit is on the disk. No request waits on the event loop for another's fsync.
 *
 * Reads: on the node engine (node:sqlite, WAL) this thread keeps a read connection of its own, and a
 * read never waits for a writer (WAL readers see the last commit). On the wasm engine the file's lock
 * is taken by readers too, so reads go to the store's thread, between its commits.
 */
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { startThread } from './thread-script.js';
import { StoreFileError } from './sqlite.js';
import { defaultEngine, openDb, type Db, type SqliteEngine } from './sqlite-db.js';
import { readFolded, readKey, readLeased, readReservations, readUsed } from './sqlite-store.js';
import { randomUUID } from 'node:crypto';
import type { ThreadReply, ThreadRequest } from './sqlite-worker.js';
import { SqliteKeyCache } from './sqlite-key-cache.js';
import { LeasedCredits } from './sqlite-leases.js';
import type { ClaimResult, FoldedThrough } from './sqlite-store.js';
import { KeepJournal } from './keep-journal.js';
import { JournalThread } from './keep-journal-thread.js';
import type { AccountRef, CreditLedger, HeldReservation, ReserveRequest, SettleRequest } from './ledger.js';

/** Remembered records and index targets, by key (only keys that exist get here): a bound all the same. */
const REMEMBER_MAX = 10_000;
/** How often this process folds its journal of kept charges into the file (keep-journal.ts). */
const FOLD_EVERY_MS = 1_000;
/** A plan that changes under a charge again and again is not normal; the caller hears of it. */
const STALE_RETRIES = 5;

class StaleRecord extends Error {
  constructor(readonly record: string | undefined) {
    super('the account record kept changing');
  }
}

function remember(map: Map<string, string>, key: string, value: string): void {
  if (map.size >= REMEMBER_MAX && !map.has(key)) map.clear();
  map.set(key, value);
}

export class SqliteThreadStore {
  readonly ledger: CreditLedger;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  private nextId = 1;
  private stopped?: StoreFileError;
  /** Index key -> the key its value named last time (the key hash -> its account record). */
  private readonly through = new Map<string, string>();
  /** wasm engine: key lookups answered here while the file shows no other process's change. */
  private readonly cache?: SqliteKeyCache;

  private constructor(
    private readonly worker: Worker,
    readonly location: string,
    readonly engine: SqliteEngine,
    private readonly reader: Db | undefined,
    notes: MessagePort,
  ) {
    if (engine === 'wasm') this.cache = new SqliteKeyCache(location, notes);
    else notes.close();
    this.ledger = new ThreadLedger(this, reader, this.cache);
    worker.on('message', (reply: ThreadReply) => this.answer(reply));
    const stop = (why: string) => {
      this.stopped ??= new StoreFileError(location, `its thread stopped (${why})`);
      for (const { reject } of this.pending.values()) reject(this.stopped);
      this.pending.clear();
    };
    worker.on('error', (error) => stop(error.message));
    worker.on('exit', (code) => stop(`exit code ${code}`));
    worker.unref();
  }

  /** Starts the store's thread on `file` and waits until the file is open and proven writable. */
  static async open(file: string, engine: SqliteEngine = defaultEngine()): Promise<SqliteThreadStore> {
    // The thread's commit notes (wasm engine) come on a channel of their own, which the key cache can
    // read synchronously (sqlite-key-cache.ts).
    const notes = new MessageChannel();
    const worker = startThread('sqlite-worker', { workerData: { file, engine, notes: notes.port1 }, transferList: [notes.port1] });
    const ready = await new Promise<ThreadReply>((resolve) => {
      worker.once('message', resolve);
      worker.once('error', (error) => resolve({ id: 0, error: { kind: 'file', file, detail: error.message } }));
    });
    if (ready.error) {
      notes.port2.close();
      await worker.terminate();
      throw ready.error.kind === 'file' ? new StoreFileError(file, ready.error.detail) : new StoreFileError(file, ready.error.kind === 'other' ? ready.error.message : 'it could not be opened');
    }
    let reader: Db | undefined;
    if (engine === 'node') {
      try {
        reader = openDb(file, 'node');
        reader.exec('PRAGMA query_only=1');
      } catch (error) {
        await worker.terminate();
        throw new StoreFileError(file, (error as Error).message);
      }
    }
    return new SqliteThreadStore(worker, file, engine, reader, notes.port2);
  }

  /** Sends one step to the store's thread; settles when its commit is on the disk. */
  call<T>(method: string, args: unknown[], hint?: ThreadRequest['hint']): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    // The thread keeps the process alive only while a step is on its way (a CLI command exits after its last one).
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, method, args, hint } satisfies ThreadRequest);
    });
  }

  /** Runs reads on this thread's read connection (node engine) as one snapshot. */
  readHere<T>(read: (db: Db) => T): T {
    const db = this.reader!;
    try {
      db.exec('BEGIN');
      try {
        return read(db);
      } finally {
        db.exec('COMMIT');
      }
    } catch (error) {
      throw error instanceof StoreFileError ? error : new StoreFileError(this.location, (error as Error).message);
    }
  }

  get(key: string): Promise<string | undefined> {
    if (this.reader) return Promise.resolve().then(() => this.readHere((db) => readKey(db, key)));
    return this.call('get', [key]);
  }

  set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.cache?.wrote(key);
    return this.call('set', [key, value, ttlMs]);
  }

  /** Reads `key`, then the key its value names (an index, then its record), as one snapshot. */
  async getThrough(key: string, next: (value: string) => string): Promise<string | undefined> {
    if (this.reader) {
      return this.readHere((db) => {
        const first = readKey(db, key);
        return first === undefined ? undefined : readKey(db, next(first));
      });
    }
    const cached = this.cache?.lookup(key);
    if (cached) return cached.second;
    // One message when the index still names the key it named last time, as it nearly always does.
    let guess = this.through.get(key);
    for (let attempt = 0; attempt < 3; attempt++) {
      const fill = this.cache?.startFill(guess === undefined ? [key] : [key, guess]);
      let pair: [string | undefined, string | undefined, boolean, number | undefined];
      try {
        pair = await this.call<typeof pair>('getPair', [key, guess]);
      } catch (error) {
        if (fill) this.cache!.dropFill(fill);
        throw error;
      }
      const [first, second, lasting, readAt] = pair;
      const target = first === undefined ? undefined : next(first);
      if (fill) this.cache!.finishFill(fill, key, first !== undefined && second !== undefined && lasting && target !== undefined && target === guess ? { first, target, second } : undefined, readAt);
      if (first === undefined) return undefined;
      if (target === guess) return second;
      remember(this.through, key, target!);
      guess = target;
    }
    throw new StoreFileError(this.location, `the index ${key} kept changing`);
  }

  delete(key: string): Promise<void> {
    this.cache?.wrote(key);
    return this.call('delete', [key]);
  }

  /** Deletes the expired keys under `prefix` (screenshots), on the store's thread. */
  sweepExpired(prefix: string): Promise<void> {
    // Expiring keys are never cached (getPair says which are lasting).
    return this.call('sweepExpired', [prefix]);
  }

  /** Writes `next` only if the key still holds `expected` (compare-and-swap); false when it changed. */
  compareAndSet(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    this.cache?.wrote(key);
    return this.call('compareAndSet', [key, expected, next]);
  }

  async close(): Promise<void> {
    if (!this.stopped) await (this.ledger as ThreadLedger).close().catch(() => undefined);
    if (!this.stopped) await this.call('close', []).catch(() => undefined);
    this.stopped ??= new StoreFileError(this.location, 'the store is closed');
    await this.worker.terminate();
    this.reader?.close();
    this.cache?.close();
  }

  private answer(reply: ThreadReply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (!reply.error) waiting.resolve(reply.value);
    else if (reply.error.kind === 'file') waiting.reject(new StoreFileError(reply.error.file, reply.error.detail));
    else if (reply.error.kind === 'stale') waiting.reject(new StaleRecord(reply.error.record));
    else waiting.reject(new Error(reply.error.message));
  }
}

/** The credit ledger's steps, run on the store's thread (sqlite-store.ts has their SQL). */
class ThreadLedger implements CreditLedger {
  /** The account record each account's last step saw, for the allowance sent with the next. */
  private readonly records = new Map<string, string>();

  /** wasm engine: reservations answered from this process's block of credits (sqlite-leases.ts). */
  private readonly leases?: LeasedCredits;
  /** wasm engine: the journals of kept charges, by owner (keep-journal.ts). */
  private readonly journals = new Map<string, KeepJournal>();
  private readonly journalThread = new JournalThread();
  private folds = 0;
  /** This process's name for its folds in the file (SqliteLedger.foldKeeps). */
  private readonly foldsOf = randomUUID();
  private foldTimer?: NodeJS.Timeout;
  private closing = false;
  private folding?: Promise<void>;

  constructor(
    private readonly store: SqliteThreadStore,
    private readonly reader: Db | undefined,
    cache: SqliteKeyCache | undefined,
  ) {
    // The account record as the file holds it now: from the key cache (wasm), or read on this
    // thread's own connection (node engine, WAL: the last commit of any process, without waiting).
    const current = cache ? (recordKey: string) => cache.current(recordKey) : reader ? (recordKey: string) => store.readHere((db) => readKey(db, recordKey)) : undefined;
    if (current) {
      this.leases = new LeasedCredits(
        store.location,
        (method, args) => store.call(method, args),
        (request) => this.withAllowance<ClaimResult>('claim', request),
        current,
        // A keep is an fdatasync of the journal (keep-journal.ts), never a wait for the store's thread
        // (on wasm a commit is four fsyncs; on node:sqlite one, but behind the thread's queue).
        (leaseId, amount, account, owner) => this.keepInJournal(leaseId, amount, account, owner),
      );
    }
  }

  private async keepInJournal(leaseId: string, amount: number, account: string, owner: string): Promise<void> {
    let journal = this.journals.get(owner);
    if (!journal) {
      // One owner a process (accounts.ts); bounded all the same.
      if (this.journals.size >= 64) throw new StoreFileError(this.store.location, 'too many owners keep charges in one process');
      journal = new KeepJournal(this.store.location, owner, this.journalThread, () => (this.leases?.outstanding ?? 0) > 0);
      this.journals.set(owner, journal);
    }
    await journal.append(leaseId, account, amount);
    this.foldSoon();
  }

  /** A fold in FOLD_EVERY_MS (again, if it fails: the store may be back by then). */
  private foldSoon(): void {
    if (this.foldTimer || this.closing) return;
    this.foldTimer = setTimeout(() => {
      this.foldTimer = undefined;
      void this.fold().catch(() => this.foldSoon());
    }, FOLD_EVERY_MS);
    this.foldTimer.unref();
  }

  /**
   * Folds what the journals kept into the file's lease rows (SqliteLedger.foldKeeps), one fold at a
   * time; a fold that fails leaves its segments for the next.
   */
  private fold(): Promise<void> {
    const run = async () => {
      const fold = ++this.folds;
      const taken = await Promise.all([...this.journals.values()].map(async (journal) => ({ journal, segments: await journal.seal(fold) })));
      const segments = taken.flatMap(({ segments: list }) => list);
      if (segments.length === 0) return;
      try {
        await this.store.call('foldKeeps', [fold, segments.map((segment) => ({ name: segment.name, kept: [...segment.kept] })), this.foldsOf]);
      } catch (error) {
        for (const { journal, segments: list } of taken) journal.putBack(list);
        throw error;
      }
      for (const { journal, segments: list } of taken) await journal.remove(list);
    };
    const next = (this.folding ?? Promise.resolve()).catch(() => undefined).then(run);
    this.folding = next;
    return next.finally(() => {
      if (this.folding === next) this.folding = undefined;
    });
  }

  /** The usage a step's answer shows, with the charges this process kept and that step's file did not hold yet. */
  private withKept<T extends { used: number } & FoldedThrough>(account: string, result: T): Omit<T, 'folded'> {
    const { folded, ...rest } = result;
    if (folded === undefined || this.journals.size === 0) return rest;
    let kept = 0;
    for (const journal of this.journals.values()) kept += journal.unfolded(account, folded);
    return { ...rest, used: rest.used + kept };
  }

  async reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number; record?: string }> {
    if (!this.leases) return this.withAllowance('reserve', request);
    // Credits added to a call whose first ones came from a block: they all go to a row of their own.
    if (this.leases.holds(request.reservationId)) await this.leases.materialize(request.reservationId);
    // A new call's credits may come from a block; credits added to a reservation with a row of its
    // own (pinned for a job, or reserved on the thread) go to that row.
    else if (!request.adding) return this.leases.reserve(request);
    return this.withAllowance('reserve', request);
  }

  async settle(request: SettleRequest): Promise<{ charged: number; used: number; found: boolean; record?: string }> {
    if (this.leases?.holds(request.reservationId)) {
      const released = request.actual === 0 ? this.leases.release(request.reservationId) : undefined;
      if (released) return { charged: 0, used: released.used, found: true, record: released.record };
      await this.leases.materialize(request.reservationId);
    }
    return this.withAllowance('settle', request);
  }

  keep(reservationId: string): Promise<void> {
    if (this.leases?.holds(reservationId)) return this.leases.keep(reservationId);
    return this.store.call('keep', [reservationId]);
  }

  async pin(reservationId: string): Promise<void> {
    if (this.leases?.holds(reservationId)) await this.leases.materialize(reservationId);
  }

  /** Gives this process's blocks of credits back and folds its journals before the store closes. */
  async close(): Promise<void> {
    await this.leases?.close();
    this.closing = true;
    if (this.foldTimer) clearTimeout(this.foldTimer);
    for (let attempt = 0; attempt < 3 && [...this.journals.values()].some((journal) => journal.pending); attempt++) await this.fold().catch(() => undefined);
    if (this.folds > 0) await this.store.call('forgetFolds', [this.foldsOf]).catch(() => undefined);
    await this.journalThread.stop();
  }

  usage(ref: { account: string; recordKey: string }, period: string): Promise<{ used: number; record?: string }> {
    if (this.reader) {
      return Promise.resolve().then(() =>
        this.withKept(
          ref.account,
          this.store.readHere((db) => ({ used: Math.max(0, readUsed(db, ref.account, period) - readLeased(db, ref.account)), record: readKey(db, ref.recordKey), folded: readFolded(db, this.foldsOf) })),
        ),
      );
    }
    return this.store.call<{ used: number; record?: string } & FoldedThrough>('usage', [{ account: ref.account, recordKey: ref.recordKey }, period]).then((result) => this.withKept(ref.account, result));
  }

  reservations(): Promise<HeldReservation[]> {
    if (this.reader) return Promise.resolve().then(() => this.store.readHere((db) => readReservations(db)));
    return this.store.call('reservations', []);
  }

  async adopt(reservationId: string, owner: string): Promise<boolean> {
    if (this.leases?.holds(reservationId)) await this.leases.materialize(reservationId);
    return this.store.call('adopt', [reservationId, owner]);
  }

  /**
   * Sends a step with the allowance of the record last seen; when the file holds another record the
   * thread undoes the step and sends it back, and the step goes again with that record's allowance.
   */
  private async withAllowance<R extends { record?: string }>(method: string, request: AccountRef): Promise<R> {
    const { allowanceOf, ...plain } = request;
    for (let attempt = 0; ; attempt++) {
      const record = this.records.get(request.recordKey);
      const hint = record === undefined ? undefined : { record, allowance: allowanceOf(record) };
      try {
        const result = await this.store.call<R & FoldedThrough>(method, [plain], hint);
        if (result.record !== undefined) remember(this.records, request.recordKey, result.record);
        return (typeof (result as { used?: unknown }).used === 'number' ? this.withKept(request.account, result as R & FoldedThrough & { used: number }) : result) as R;
      } catch (error) {
        if (!(error instanceof StaleRecord) || error.record === undefined || attempt >= STALE_RETRIES) throw error;
        remember(this.records, request.recordKey, error.record);
      }
    }
  }
}
