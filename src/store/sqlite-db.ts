/**
 * One SQLite connection: node-sqlite3-wasm, SQLite compiled to WebAssembly over Node's fs. The one
 * engine of the embedded store on every supported Node (20, 22, 24) and in the CLI: no native build
 * per Node ABI, so every process on a data folder reads the same file format and honours the same
 * lock (a `<file>.lock` directory, taken by readers and writers alike).
 * Prepared statements are cached: preparing costs more than running these small queries.
 */
import { createRequire } from 'node:module';

export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;

type WasmDatabase = import('node-sqlite3-wasm').Database;
type WasmStatement = ReturnType<WasmDatabase['prepare']>;

const require = createRequire(import.meta.url);

export class Db {
  private readonly db: WasmDatabase;
  private readonly statements = new Map<string, WasmStatement>();

  constructor(file: string) {
    // The package is CommonJS with its class on module.exports.
    const { Database } = require('node-sqlite3-wasm') as typeof import('node-sqlite3-wasm');
    this.db = new Database(file);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** Runs a statement to its end (so it never keeps the file locked) and returns its rows. */
  all(sql: string, values: SqlValue[] = []): Row[] {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement.all(values) as Row[];
  }

  run(sql: string, values: SqlValue[] = []): void {
    this.all(sql, values);
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  close(): void {
    for (const statement of this.statements.values()) if (!statement.isFinalized) statement.finalize();
    this.statements.clear();
    if (this.db.isOpen) this.db.close();
  }
}
