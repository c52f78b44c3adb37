/**
 * The key-value store and the credit ledger on one SQLite file. Values are JSON text; the ledger
 * has tables of its own so a charge is one small transaction that never rewrites an account record.
 */
import type { CreditLedger, HeldReservation, ReserveRequest, SettleRequest } from './ledger.js';
import { SqliteFile, StoreFileError } from './sqlite.js';
import fs from 'node:fs';
import { parseSegment, segmentsOf } from './keep-journal.js';
import type { Db, Row, SqlValue, SqliteEngine } from './sqlite-db.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER);
CREATE TABLE IF NOT EXISTS usage (account TEXT PRIMARY KEY, period TEXT NOT NULL, used INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, account TEXT NOT NULL, period TEXT NOT NULL, amount INTEGER NOT NULL, owner TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS folded_keeps (name TEXT PRIMARY KEY);
`;

/** The statements run through the connection's cache of prepared statements (sqlite-db.ts). */
class Statements {
  all(db: Db, sql: string, values: SqlValue[] = []): Row[] {
    return db.all(sql, values);
  }
  run(db: Db, sql: string, values: SqlValue[] = []): void {
    db.run(sql, values);
  }
}

export class SqliteStore {
  readonly ledger: SqliteLedger;
  private readonly sql: Statements;

  private constructor(readonly file: SqliteFile) {
    this.sql = new Statements();
    this.ledger = new SqliteLedger(file, this.sql, (db, key) => this.read(db, key));
  }

  static async open(path: string, engine: SqliteEngine): Promise<SqliteStore> {
    const store = new SqliteStore(await SqliteFile.open(path, SCHEMA, engine));
    await store.file.transaction((db) => importKeyvTable(db));
    await store.removeFoldedSegments();
    return store;
  }

  /**
   * Journal segments folded whose files a crash left (between a fold's commit and their removal):
   * their marks say so; file and mark go. Segments not folded wait for their process or the sweep.
   */
  private async removeFoldedSegments(): Promise<void> {
    const segments = segmentsOf(this.file.file);
    if (segments.length === 0) return;
    const folded = await this.file.transaction((db) => segments.filter(({ name }) => this.sql.all(db, 'SELECT 1 FROM folded_keeps WHERE name = ?', [name]).length > 0));
    for (const { file } of folded) fs.rmSync(file, { force: true });
    await this.file.transaction((db) => {
      for (const { name } of folded) this.sql.run(db, 'DELETE FROM folded_keeps WHERE name = ?', [name]);
    });
  }

  get location(): string {
    return this.file.file;
  }

  get(key: string): Promise<string | undefined> {
    return this.file.transaction((db) => this.read(db, key), { early: true, unsynced: true });
  }

  set(key: string, value: string, ttlMs?: number): Promise<void> {
    return this.file.transaction((db) => this.write(db, key, value, ttlMs));
  }

  delete(key: string): Promise<void> {
    return this.file.transaction((db) => this.sql.run(db, 'DELETE FROM kv WHERE key = ?', [key]));
  }

  /**
   * Deletes the expired keys under `prefix` (a read skips them, but SQLite keeps their rows until then):
   * for large values kept a while (screenshots). The range on the primary key reads only that prefix's rows.
   */
  sweepExpired(prefix: string): Promise<void> {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return this.file.transaction((db) => this.sql.run(db, 'DELETE FROM kv WHERE key >= ? AND key < ? AND expires IS NOT NULL AND expires <= ?', [prefix, end, Date.now()]));
  }

  /** Writes `next` only if the key still holds `expected` (compare-and-swap); false when it changed. */
  compareAndSet(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    return this.file.transaction((db) => {
      if (this.read(db, key) !== expected) return false;
      if (next === undefined) this.sql.run(db, 'DELETE FROM kv WHERE key = ?', [key]);
      else this.write(db, key, next, this.ttlOf(db, key));
      return true;
    });
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  /**
   * Reads `key`, and `guess` (the key its value is expected to name) in the same transaction; the
   * third value says whether both exist without an expiry (what the key cache may keep), the fourth
   * the file's change counter they were read at (wasm engine).
   */
  getPair(key: string, guess?: string): Promise<[string | undefined, string | undefined, boolean, number | undefined]> {
    return this.file.transaction((db) => {
      const first = readKeyRow(db, key);
      const second = guess === undefined ? undefined : readKeyRow(db, guess);
      return [first?.value, second?.value, first?.expires === null && second?.expires === null, this.file.counterAtBegin];
    }, { early: true, unsynced: true });
  }

  private read(db: Db, key: string): string | undefined {
    return readKey(db, key);
  }

  /** The time left on a key, so an update keeps the expiry it was stored with. */
  private ttlOf(db: Db, key: string): number | undefined {
    const [row] = this.sql.all(db, 'SELECT expires FROM kv WHERE key = ?', [key]);
    return typeof row?.expires === 'number' ? Math.max(1, row.expires - Date.now()) : undefined;
  }

  private write(db: Db, key: string, value: string, ttlMs?: number): void {
    this.sql.run(db, 'INSERT INTO kv(key, value, expires) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires = excluded.expires', [
      key,
      value,
      ttlMs ? Date.now() + ttlMs : null,
    ]);
  }
}

/** A value by key, unless expired. Also used by the read connection of the node engine (sqlite-thread.ts). */
export function readKey(db: Db, key: string): string | undefined {
  return readKeyRow(db, key)?.value;
}

/** A value by key with its expiry (null: none), unless expired. */
function readKeyRow(db: Db, key: string): { value: string; expires: number | null } | undefined {
  const [row] = db.all('SELECT value, expires FROM kv WHERE key = ?', [key]);
  if (!row) return undefined;
  if (typeof row.expires === 'number' && row.expires <= Date.now()) return undefined;
  return { value: row.value as string, expires: typeof row.expires === 'number' ? row.expires : null };
}

/** An account's usage in `period` (0 for an older one). */
export function readUsed(db: Db, account: string, period: string): number {
  const [row] = db.all('SELECT period, used FROM usage WHERE account = ?', [account]);
  return row && row.period === period ? (row.used as number) : 0;
}

/** The credits of `account` sitting in processes' blocks (sqlite-leases.ts): claimed, not yet charged or shown. */
const foldedName = (process: string) => `keeps-folded:${process}`;

/** The last fold of a process's journal of kept charges the file holds (SqliteLedger.foldKeeps). */
export function readFolded(db: Db, process: string): number {
  const [row] = db.all('SELECT value FROM meta WHERE name = ?', [foldedName(process)]);
  return row ? Number(row.value) : 0;
}

export function readLeased(db: Db, account: string): number {
  const [row] = db.all("SELECT SUM(amount) AS n FROM reservations WHERE account = ? AND id LIKE 'lease:%'", [account]);
  return (row?.n as number | null) ?? 0;
}

export function readReservations(db: Db): HeldReservation[] {
  return db.all('SELECT id, account, owner, amount FROM reservations').map((row) => ({
    id: row.id as string,
    account: row.account as string,
    owner: row.owner as string,
    amount: row.amount as number,
  }));
}

/**
 * Brings over a store written by earlier versions (Keyv's `keyv` table, namespace "gleaner"), once:
 * JSON values into `kv`, and the `used`/`period` an account record carried into the usage table.
 */
function importKeyvTable(db: Db): void {
  const hasKeyv = db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'keyv'").length > 0;
  if (!hasKeyv || db.all("SELECT 1 FROM meta WHERE name = 'imported-keyv'").length > 0) return;
  for (const row of db.all('SELECT key, value FROM keyv') as { key: string; value: string }[]) {
    if (!row.key.startsWith('gleaner:')) continue;
    const key = row.key.slice('gleaner:'.length);
    let entry: { value?: unknown; expires?: number | null };
    try {
      entry = JSON.parse(row.value) as typeof entry;
    } catch {
      continue;
    }
    if (entry.value === undefined || (entry.expires && entry.expires <= Date.now())) continue;
    let value = entry.value as Record<string, unknown>;
    if (key.startsWith('account:') && typeof value.used === 'number' && typeof value.period === 'string') {
      db.run('INSERT OR IGNORE INTO usage(account, period, used) VALUES (?, ?, ?)', [key.slice('account:'.length), value.period, value.used]);
      const { used: _used, period: _period, ...rest } = value;
      value = rest;
    }
    db.run('INSERT OR IGNORE INTO kv(key, value, expires) VALUES (?, ?, ?)', [key, JSON.stringify(value), entry.expires ?? null]);
  }
  db.run("INSERT INTO meta(name, value) VALUES ('imported-keyv', ?)", [new Date().toISOString()]);
}

/** A lease is taken only while this many credits would be left after the call (or the allowance is unlimited)... */
const LEASE_FROM_REMAINING = 1_000;
/** ...and never more than this share of them, so processes' blocks stay a small part of a balance. */
const LEASE_SHARE = 32;

export interface ClaimRequest extends ReserveRequest {
  /** The lease row of this process for this account (sqlite-leases.ts). */
  leaseId: string;
  /** How many credits more than the call's to take into the lease, at most. */
  extra: number;
}

/** The fold of this process's journal of kept charges a ledger step's usage includes (SqliteLedger.foldKeeps). */
export interface FoldedThrough {
  folded?: number;
}

export interface ClaimResult {
  ok: boolean;
  used: number;
  record?: string;
  /** Credits added to the lease beyond the call's; 0: the call's credits are a reservation of their own. */
  leased: number;
}

export class SqliteLedger implements CreditLedger {
  constructor(
    private readonly file: SqliteFile,
    private readonly sql: Statements,
    private readonly read: (db: Db, key: string) => string | undefined,
  ) {}

  /** Reservations answered before their commit whose commit then failed: their keep or settle fails. */
  private readonly lost = new Set<string>();
  /** The last fold of this process's journal of kept charges in the file, as the steps run now see it. */
  private foldedThrough = 0;
  /** Segments folded (their files removed by the caller after): their marks go with the next fold. */
  private forget: string[] = [];

  /**
   * A reserve need not be on the disk before its answer: its call replies only after its keep or
   * settle, a later, durable commit (lost in a power cut, a reservation is simply returned).
   * wasm engine: answered before its commit (sqlite.ts, EarlyAnswer): the batch holds the file's lock
   * until the commit, so no process can spend the same credits meanwhile. Should this commit fail, that
   * keep or settle fails: no reply uncharged.
   * node engine: answered after a commit without fsync (WAL, synchronous=OFF), so the event loop's read
   * connection and other processes see the reservation once reserve() returns; the keep's fsync makes
   * it durable along with the keep.
   */
  reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number; record?: string }> {
    const lost = () => {
      if (this.lost.size >= 10_000) this.lost.clear();
      this.lost.add(request.reservationId);
    };
    return this.file.transaction(this.stamped((db) => {
      const record = this.read(db, request.recordKey);
      const used = this.usedIn(db, request.account, request.period);
      if (record === undefined) return { ok: false, used };
      const allowance = request.allowanceOf(record);
      if (allowance !== null && used + request.amount > allowance) return { ok: false, used, record };
      this.setUsed(db, request.account, request.period, used + request.amount);
      this.sql.run(
        db,
        `INSERT INTO reservations(id, account, period, amount, owner) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET amount = reservations.amount + excluded.amount`,
        [request.reservationId, request.account, request.period, request.amount, request.owner],
      );
      return { ok: true, used: this.shown(db, request.account, used + request.amount), record };
    }), { early: this.file.engine === 'wasm', lost, unsynced: true });
  }

  /**
   * sqlite-leases.ts: a call's credits and, while the balance is far from its end, a
   * block more for this process, in the lease row `leaseId` (owned by the process, so the sweep
   * returns it if the process dies). Checked against the allowance like any reservation, in one
   * transaction: the blocks of all processes together never pass the balance. Near the end of the
   * balance (or of a lease share of it) no block is taken: the call's credits are reserved alone.
   */
  claim(request: ClaimRequest): Promise<ClaimResult> {
    const lost = () => {
      if (this.lost.size >= 10_000) this.lost.clear();
      this.lost.add(request.reservationId);
      this.lost.add(request.leaseId);
    };
    return this.file.transaction(this.stamped((db): ClaimResult => {
      const record = this.read(db, request.recordKey);
      const used = this.usedIn(db, request.account, request.period);
      if (record === undefined) return { ok: false, used, leased: 0 };
      const allowance = request.allowanceOf(record);
      if (allowance !== null && used + request.amount > allowance) return { ok: false, used: this.shown(db, request.account, used), record, leased: 0 };
      const left = allowance === null ? Infinity : allowance - used - request.amount;
      const leased = left >= LEASE_FROM_REMAINING ? Math.min(request.extra, Math.floor(left / LEASE_SHARE)) : 0;
      const id = leased > 0 ? request.leaseId : request.reservationId;
      const amount = request.amount + leased;
      // A top-up (no call's credits, only a block's) that gets no block writes nothing.
      if (amount === 0) return { ok: true, used: this.shown(db, request.account, used), record, leased: 0 };
      this.setUsed(db, request.account, request.period, used + amount);
      this.sql.run(
        db,
        `INSERT INTO reservations(id, account, period, amount, owner) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET amount = reservations.amount + excluded.amount`,
        [id, request.account, request.period, amount, request.owner],
      );
      return { ok: true, used: this.shown(db, request.account, used + amount), record, leased };
      // A block is answered after a durable commit: its calls' keeps go to the journal of kept charges
      // (keep-journal.ts), which cannot know of a commit that failed after an early answer, nor make
      // a block durable that a commit without fsync left in the WAL (node engine).
    }), { early: request.extra === 0, lost, unsynced: request.extra === 0 });
  }

  /** Moves `amount` of a lease row to a reservation of its own (one a settle, an adopt or a job can use); false when gone. */
  materialize(leaseId: string, reservationId: string, amount: number): Promise<boolean> {
    return this.file.transaction((db) => {
      this.checkNotLost(leaseId);
      const [row] = this.sql.all(db, 'SELECT account, period, owner FROM reservations WHERE id = ?', [leaseId]);
      if (!row || !this.takeFromLease(db, leaseId, amount)) return false;
      this.sql.run(db, 'INSERT INTO reservations(id, account, period, amount, owner) VALUES (?, ?, ?, ?, ?)', [reservationId, row.account as string, row.period as string, amount, row.owner as string]);
      return true;
    });
  }

  /** Gives back up to `amount` unused credits of a lease row. */
  returnLeased(leaseId: string, amount: number): Promise<void> {
    return this.file.transaction((db) => {
      const [row] = this.sql.all(db, 'SELECT account, period, amount FROM reservations WHERE id = ?', [leaseId]);
      if (!row) return;
      const n = Math.min(amount, row.amount as number);
      this.takeFromLease(db, leaseId, n);
      const [usage] = this.sql.all(db, 'SELECT period, used FROM usage WHERE account = ?', [row.account as string]);
      if (usage && usage.period === row.period) this.setUsed(db, row.account as string, row.period as string, Math.max(0, (usage.used as number) - n));
    });
  }

  private takeFromLease(db: Db, leaseId: string, amount: number): boolean {
    const [row] = this.sql.all(db, 'SELECT amount FROM reservations WHERE id = ?', [leaseId]);
    if (!row || (row.amount as number) < amount) return false;
    if (row.amount === amount) this.sql.run(db, 'DELETE FROM reservations WHERE id = ?', [leaseId]);
    else this.sql.run(db, 'UPDATE reservations SET amount = amount - ? WHERE id = ?', [amount, leaseId]);
    return true;
  }

  /**
   * The usage a caller is shown: credits in processes' lease blocks are not spent yet (a call's
   * credits taken from a block count once kept).
   */
  /** A step's result with the fold of this process's journal it saw (foldKeeps). */
  private stamped<T extends object>(step: (db: Db) => T): (db: Db) => T & FoldedThrough {
    return (db) => ({ ...step(db), folded: this.foldedThrough });
  }

  private shown(db: Db, account: string, used: number): number {
    return Math.max(0, used - readLeased(db, account));
  }

  /**
   * Folds segments of this process's journal of kept charges (keep-journal.ts) into the lease rows:
   * takes the kept credits out of the blocks and marks each segment folded, in one transaction. The
   * caller removes the files once it resolves. `fold` numbers the fold: the steps answered after it
   * in this thread's order say so (FoldedThrough), and the caller counts only later keeps on top.
   */
  foldKeeps(fold: number, segments: { name: string; kept: [string, number][] }[], process: string): Promise<void> {
    const forget = this.forget.splice(0);
    const before = this.foldedThrough;
    return this.file
      .transaction((db) => {
        for (const name of forget) this.sql.run(db, 'DELETE FROM folded_keeps WHERE name = ?', [name]);
        for (const segment of segments) this.applySegment(db, segment.name, new Map(segment.kept));
        // For reads on another connection (node engine: the event loop's own, readFolded).
        this.sql.run(db, 'INSERT OR REPLACE INTO meta(name, value) VALUES (?, ?)', [foldedName(process), String(fold)]);
        this.foldedThrough = fold;
      })
      .then(
        () => {
          this.forget.push(...segments.map((segment) => segment.name));
          if (this.forget.length > 10_000) this.forget.splice(0, this.forget.length - 10_000);
        },
        (error: unknown) => {
          this.foldedThrough = before;
          this.forget.push(...forget);
          throw error;
        },
      );
  }

  /** A process closing, its journals folded: the number of its last fold goes. */
  forgetFolds(process: string): Promise<void> {
    return this.file.transaction((db) => this.sql.run(db, 'DELETE FROM meta WHERE name = ?', [foldedName(process)]));
  }

  /** Takes a segment's kept credits out of their lease rows, once (a segment marked folded is skipped). */
  private applySegment(db: Db, name: string, kept: Map<string, number>): void {
    if (this.sql.all(db, 'SELECT 1 FROM folded_keeps WHERE name = ?', [name]).length > 0) return;
    for (const [leaseId, amount] of kept) {
      const [row] = this.sql.all(db, 'SELECT amount FROM reservations WHERE id = ?', [leaseId]);
      // A block the sweep returned while its process lived on (taken for gone, owners.ts): the
      // credits kept after that are not in the file any more; the rest of the segment still counts.
      const n = Math.min(amount, (row?.amount as number | undefined) ?? 0);
      if (n > 0) this.takeFromLease(db, leaseId, n);
    }
    this.sql.run(db, 'INSERT INTO folded_keeps(name) VALUES (?)', [name]);
  }

  /**
   * A dead process's journal of kept charges, folded before its blocks are returned (inside the
   * sweep's settle): the charges it answered stay charged. Returns the files to remove after commit.
   */
  private foldJournalOf(db: Db, owner: string): string[] {
    const files: string[] = [];
    for (const { name, file } of segmentsOf(this.file.file, owner)) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      this.applySegment(db, name, parseSegment(text));
      files.push(file);
    }
    return files;
  }

  private checkNotLost(reservationId: string): void {
    if (this.lost.has(reservationId)) throw new StoreFileError(this.file.file, 'the reservation of this call was not saved');
  }

  async settle(request: SettleRequest): Promise<{ charged: number; used: number; found: boolean; record?: string; returned?: number }> {
    let folded: string[] = [];
    const result = await this.file.transaction(this.stamped((db) => {
      this.checkNotLost(request.reservationId);
      // Only the sweep settles a block (a dead process's): its journal of kept charges first.
      if (request.reservationId.startsWith('lease:')) {
        const [lease] = this.sql.all(db, 'SELECT owner FROM reservations WHERE id = ?', [request.reservationId]);
        if (lease) folded = this.foldJournalOf(db, lease.owner as string);
      }
      const record = this.read(db, request.recordKey);
      const used = this.usedIn(db, request.account, request.period);
      const [held] = this.sql.all(db, 'SELECT period, amount FROM reservations WHERE id = ?', [request.reservationId]);
      if (!held) return { charged: 0, used, found: false, record };
      this.sql.run(db, 'DELETE FROM reservations WHERE id = ?', [request.reservationId]);
      const amount = held.amount as number;
      // The month turned while the work ran: the reservation went with the old period.
      if (held.period !== request.period) return { charged: amount, used, found: true, record };
      const allowance = record === undefined ? 0 : request.allowanceOf(record);
      let delta = request.actual - amount;
      if (delta > 0 && allowance !== null) delta = Math.min(delta, Math.max(0, allowance - used));
      const next = Math.max(0, used + delta);
      this.setUsed(db, request.account, request.period, next);
      return { charged: amount + delta, used: this.shown(db, request.account, next), found: true, record, returned: Math.max(0, -delta) };
    }));
    for (const file of folded) fs.rmSync(file, { force: true });
    return result;
  }

  keep(reservationId: string): Promise<void> {
    return this.file.transaction((db) => {
      this.checkNotLost(reservationId);
      this.sql.run(db, 'DELETE FROM reservations WHERE id = ?', [reservationId]);
    });
  }

  usage(ref: { account: string; recordKey: string }, period: string): Promise<{ used: number; record?: string }> {
    return this.file.transaction(this.stamped((db) => ({ used: this.shown(db, ref.account, this.usedIn(db, ref.account, period)), record: this.read(db, ref.recordKey) })), { early: true, unsynced: true });
  }

  reservations(): Promise<HeldReservation[]> {
    return this.file.transaction((db) => readReservations(db), { early: true, unsynced: true });
  }

  adopt(reservationId: string, owner: string): Promise<boolean> {
    return this.file.transaction((db) => {
      const found = this.sql.all(db, 'SELECT 1 FROM reservations WHERE id = ?', [reservationId]).length > 0;
      if (found) this.sql.run(db, 'UPDATE reservations SET owner = ? WHERE id = ?', [owner, reservationId]);
      return found;
    });
  }

  private usedIn(db: Db, account: string, period: string): number {
    return readUsed(db, account, period);
  }

  private setUsed(db: Db, account: string, period: string, used: number): void {
    this.sql.run(db, 'INSERT INTO usage(account, period, used) VALUES (?, ?, ?) ON CONFLICT(account) DO UPDATE SET period = excluded.period, used = excluded.used', [
      account,
      period,
      used,
    ]);
  }
}
