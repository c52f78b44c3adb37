/**
 * One SQLite connection behind a small synchronous interface, on either engine:
 * - `node`: the runtime's own `node:sqlite` (Node 22.5+; without a flag from 22.13), native, in WAL
 *   mode: one fsync a commit, and readers on other connections never wait for a writer.
 * - `wasm`: node-sqlite3-wasm, SQLite in WebAssembly on Node's fs (every supported Node). Its VFS has
 *   no shared memory, so it keeps the rollback journal, and its lock (a `<file>.lock` directory) is
 *   taken by readers and writers alike.
 * Both are opened with synchronous=FULL: a commit is on the disk when it returns (on the node engine,
 * reads and reserves commit apart without an fsync: sqlite.ts, EarlyAnswer.unsynced).
 * Prepared statements are cached per connection: preparing costs more than running these small queries.
 */
import { createRequire } from 'node:module';

export type SqliteEngine = 'node' | 'wasm';
export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;

export interface Db {
  readonly engine: SqliteEngine;
  exec(sql: string): void;
  /** Runs a statement to its end (so it never keeps the file locked) and returns its rows. */
  all(sql: string, values?: SqlValue[]): Row[];
  run(sql: string, values?: SqlValue[]): void;
  readonly inTransaction: boolean;
  close(): void;
}

const require = createRequire(import.meta.url);

/** Whether this runtime offers `node:sqlite` without a flag. */
export function nodeSqliteAvailable(): boolean {
  try {
    require('node:sqlite');
    return true;
  } catch {
    return false;
  }
}

/** The engine a store uses when not told: the runtime's own where it has one. */
export function defaultEngine(): SqliteEngine {
  return nodeSqliteAvailable() ? 'node' : 'wasm';
}

export function openDb(file: string, engine: SqliteEngine, options: { readOnly?: boolean } = {}): Db {
  return engine === 'node' ? new NodeDb(file, options.readOnly ?? false) : new WasmDb(file);
}

interface Statement {
  all(...values: SqlValue[]): unknown[];
}

abstract class CachedDb {
  private readonly statements = new Map<string, Statement>();
  protected abstract prepare(sql: string): Statement;
  all(sql: string, values: SqlValue[] = []): Row[] {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement.all(...values) as Row[];
  }
  run(sql: string, values: SqlValue[] = []): void {
    this.all(sql, values);
  }
  protected forget(): void {
    this.statements.clear();
  }
}

class WasmDb extends CachedDb implements Db {
  readonly engine = 'wasm' as const;
  private readonly db: import('node-sqlite3-wasm').Database;
  private readonly prepared: ReturnType<import('node-sqlite3-wasm').Database['prepare']>[] = [];

  constructor(file: string) {
    super();
    // The package is CommonJS with its class on module.exports.
    const { Database } = require('node-sqlite3-wasm') as typeof import('node-sqlite3-wasm');
    this.db = new Database(file);
  }
  protected prepare(sql: string): Statement {
    const statement = this.db.prepare(sql);
    this.prepared.push(statement);
    return { all: (...values) => statement.all(values) as unknown[] };
  }
  exec(sql: string): void {
    this.db.exec(sql);
  }
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }
  close(): void {
    for (const statement of this.prepared) if (!statement.isFinalized) statement.finalize();
    this.forget();
    if (this.db.isOpen) this.db.close();
  }
}

/** The part of node:sqlite's DatabaseSync used here (the project's @types/node is Node 20's, which lacks it). */
interface DatabaseSync {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
}

class NodeDb extends CachedDb implements Db {
  readonly engine = 'node' as const;
  private readonly db: DatabaseSync;

  constructor(file: string, readOnly: boolean) {
    super();
    const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (file: string, options: { readOnly: boolean }) => DatabaseSync };
    this.db = new DatabaseSync(file, { readOnly });
  }
  protected prepare(sql: string): Statement {
    return this.db.prepare(sql);
  }
  exec(sql: string): void {
    this.db.exec(sql);
  }
  get inTransaction(): boolean {
    return this.db.isTransaction;
  }
  close(): void {
    this.forget();
    if (this.db.isOpen) this.db.close();
  }
}
