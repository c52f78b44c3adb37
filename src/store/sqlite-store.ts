/**
 * The key-value store and the credit ledger on one SQLite file. Values are JSON text; the ledger
 * has tables of its own so a charge is one small transaction that never rewrites an account record.
 * Runs on the store's thread (sqlite-worker.ts); every method is one step of a group commit (sqlite.ts).
 */
import { allowanceOf, type CreditLedger, type HeldReservation, type ReserveRequest, type SettleRequest } from './ledger.js';
import { SqliteFile, StoreFileError, type Db } from './sqlite.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER);
CREATE INDEX IF NOT EXISTS kv_expires ON kv(expires) WHERE expires IS NOT NULL;
CREATE TABLE IF NOT EXISTS usage (account TEXT PRIMARY KEY, period TEXT NOT NULL, used INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS reservations (id TEXT PRIMARY KEY, account TEXT NOT NULL, period TEXT NOT NULL, amount INTEGER NOT NULL, owner TEXT NOT NULL);
`;

/** Answered as soon as it has run, before the batch's commit (sqlite.ts). */
const READ = { early: true };

export class SqliteStore {
  readonly ledger: SqliteLedger;

  private constructor(readonly file: SqliteFile) {
    this.ledger = new SqliteLedger(file);
  }

  static async open(path: string): Promise<SqliteStore> {
    const store = new SqliteStore(await SqliteFile.open(path, SCHEMA));
    await store.file.transaction((db) => importKeyvTable(db));
    return store;
  }

  get(key: string): Promise<string | undefined> {
    return this.file.transaction((db) => readKey(db, key), READ);
  }

  /** Reads `key`, and `guess` (the key its value is expected to name) in the same transaction. */
  getPair(key: string, guess?: string): Promise<[string | undefined, string | undefined]> {
    return this.file.transaction((db) => [readKey(db, key), guess === undefined ? undefined : readKey(db, guess)], READ);
  }

  set(key: string, value: string, ttlMs?: number): Promise<void> {
    return this.file.transaction((db) => write(db, key, value, ttlMs));
  }

  delete(key: string): Promise<void> {
    return this.file.transaction((db) => db.run('DELETE FROM kv WHERE key = ?', [key]));
  }

  /**
   * Deletes the expired keys under `prefix` ('' for every key): a read skips them, but SQLite keeps their rows
   * until then. Both ranges are read through an index (the key, or the partial index on expiring rows), never by
   * a scan of the table, which would read through every large value (job records) to reach its expiry.
   */
  sweepExpired(prefix: string): Promise<void> {
    const now = Date.now();
    if (prefix === '') return this.file.transaction((db) => db.run('DELETE FROM kv WHERE expires IS NOT NULL AND expires <= ?', [now]));
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return this.file.transaction((db) => db.run('DELETE FROM kv WHERE key >= ? AND key < ? AND expires IS NOT NULL AND expires <= ?', [prefix, end, now]));
  }

  /** Writes `next` only if the key still holds `expected` (compare-and-swap); false when it changed. */
  compareAndSet(key: string, expected: string | undefined, next: string | undefined): Promise<boolean> {
    return this.file.transaction((db) => {
      if (readKey(db, key) !== expected) return false;
      if (next === undefined) db.run('DELETE FROM kv WHERE key = ?', [key]);
      else write(db, key, next, ttlOf(db, key));
      return true;
    });
  }

  close(): Promise<void> {
    return this.file.close();
  }
}

/** A value by key, unless expired. */
function readKey(db: Db, key: string): string | undefined {
  const [row] = db.all('SELECT value, expires FROM kv WHERE key = ?', [key]);
  return !row || (typeof row.expires === 'number' && row.expires <= Date.now()) ? undefined : (row.value as string);
}

/** The time left on a key, so an update keeps the expiry it was stored with. */
function ttlOf(db: Db, key: string): number | undefined {
  const [row] = db.all('SELECT expires FROM kv WHERE key = ?', [key]);
  return typeof row?.expires === 'number' ? Math.max(1, row.expires - Date.now()) : undefined;
}

function write(db: Db, key: string, value: string, ttlMs?: number): void {
  db.run('INSERT INTO kv(key, value, expires) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, expires = excluded.expires', [key, value, ttlMs ? Date.now() + ttlMs : null]);
}

/** An account's usage in `period` (0 for an older one). */
function readUsed(db: Db, account: string, period: string): number {
  const [row] = db.all('SELECT period, used FROM usage WHERE account = ?', [account]);
  return row && row.period === period ? (row.used as number) : 0;
}

function setUsed(db: Db, account: string, period: string, used: number): void {
  db.run('INSERT INTO usage(account, period, used) VALUES (?, ?, ?) ON CONFLICT(account) DO UPDATE SET period = excluded.period, used = excluded.used', [account, period, used]);
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
    let entry: { value?: unknown; expires?: number | null } | undefined;
    try {
      entry = JSON.parse(row.value);
    } catch {
      continue; // Not JSON: not a value of ours.
    }
    if (entry?.value === undefined || (entry.expires && entry.expires <= Date.now())) continue;
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

/**
 * The ledger's steps, each one transaction with the account record read in it: a charge checks the
 * plan as the file holds it at that moment. A settle and a keep are answered after their commit is
 * on the disk (a call replies only after its keep or settle).
 */
export class SqliteLedger implements CreditLedger {
  /** Reservations answered whose commit then failed (bounded): their settle fails, never charges 0. */
  private readonly lost = new Set<string>();

  constructor(private readonly file: SqliteFile) {}

  /**
   * Answered before its commit (sqlite.ts, `early`): the batch holds the file's lock until then, so no
   * process can spend the same credits meanwhile, and no reply depends on it alone: its call replies
   * only after its keep or settle, which find no row, and fail, should this commit not happen.
   */
  reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number; record?: string }> {
    return this.file.transaction((db) => {
      const record = readKey(db, request.recordKey);
      const used = readUsed(db, request.account, request.period);
      if (record === undefined) return { ok: false, used };
      const allowance = allowanceOf(record, request.planCredits);
      if (allowance !== null && used + request.amount > allowance) return { ok: false, used, record };
      setUsed(db, request.account, request.period, used + request.amount);
      db.run(
        `INSERT INTO reservations(id, account, period, amount, owner) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET amount = reservations.amount + excluded.amount`,
        [request.reservationId, request.account, request.period, request.amount, request.owner],
      );
      return { ok: true, used: used + request.amount, record };
    }, { early: true, lost: () => this.lost.size < 10_000 && this.lost.add(request.reservationId) });
  }

  settle(request: SettleRequest): Promise<{ charged: number; used: number; found: boolean; record?: string }> {
    return this.file.transaction((db) => {
      if (this.lost.has(request.reservationId)) throw new StoreFileError(this.file.file, 'the reservation of this call was not saved');
      const record = readKey(db, request.recordKey);
      const used = readUsed(db, request.account, request.period);
      const [held] = db.all('SELECT period, amount FROM reservations WHERE id = ?', [request.reservationId]);
      if (!held) return { charged: 0, used, found: false, record };
      db.run('DELETE FROM reservations WHERE id = ?', [request.reservationId]);
      const amount = held.amount as number;
      // The month turned while the work ran: the reservation went with the old period.
      if (held.period !== request.period) return { charged: amount, used, found: true, record };
      const allowance = record === undefined ? 0 : allowanceOf(record, request.planCredits);
      let delta = request.actual - amount;
      if (delta > 0 && allowance !== null) delta = Math.min(delta, Math.max(0, allowance - used));
      const next = Math.max(0, used + delta);
      setUsed(db, request.account, request.period, next);
      return { charged: amount + delta, used: next, found: true, record };
    });
  }

  /** A reservation that is not in the file (its commit failed, or the sweep returned it) is not kept: the call fails. */
  keep(reservationId: string): Promise<void> {
    return this.file.transaction((db) => {
      if (db.all('DELETE FROM reservations WHERE id = ? RETURNING id', [reservationId]).length === 0) {
        throw new StoreFileError(this.file.file, 'the reservation of this call is not in the file');
      }
    });
  }

  usage(ref: { account: string; recordKey: string }, period: string): Promise<{ used: number; record?: string }> {
    return this.file.transaction((db) => ({ used: readUsed(db, ref.account, period), record: readKey(db, ref.recordKey) }), READ);
  }

  reservations(): Promise<HeldReservation[]> {
    return this.file.transaction((db) => db.all('SELECT id, account, owner, amount FROM reservations') as unknown as HeldReservation[], READ);
  }

  adopt(reservationId: string, owner: string): Promise<boolean> {
    return this.file.transaction((db) => db.all('UPDATE reservations SET owner = ? WHERE id = ? RETURNING id', [owner, reservationId]).length > 0);
  }
}
