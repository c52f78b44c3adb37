/**
 * A store file left in WAL mode by earlier Gleaners on Node 22+ (node:sqlite), which node-sqlite3-wasm
 * cannot read (no shared memory): at open it goes back to the rollback journal when that is safe, else
 * it is refused naming the file and what to do; never while another process holds it. Under the file's
 * lock directory, so no process of this design opens it meanwhile.
 * - With node:sqlite (Node 22.13+), SQLite converts it: it copies what the WAL holds into the file, and
 *   refuses (SQLITE_BUSY) while any other connection has the file open.
 * - Without (Node 20), only with no `-wal` and no `-shm` beside it (no open connection, nothing
 *   pending): the header's format bytes go back to 1, what SQLite writes when it leaves an empty WAL.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { StoreFileError, withFileLock } from './sqlite-lock.js';

const require = createRequire(import.meta.url);

/** Whether the file's header says WAL (format bytes 18 and 19 are 2). */
export function inWalMode(file: string): boolean {
  const header = Buffer.alloc(20);
  const fd = fs.openSync(file, 'r');
  try {
    return fs.readSync(fd, header, 0, 20, 0) === 20 && header.toString('latin1', 0, 15) === 'SQLite format 3' && (header[18] === 2 || header[19] === 2);
  } finally {
    fs.closeSync(fd);
  }
}

const HELD =
  'it is in WAL mode and another process has it open: a Gleaner of an earlier version running on Node 22 or later. Stop it (every Gleaner on this data folder must run this version), then start this one again: it converts the file';

export async function leaveWal(file: string): Promise<void> {
  if (!inWalMode(file)) return;
  await withFileLock(file, () => {
    if (!inWalMode(file)) return;
    const sqlite = nodeSqlite();
    if (sqlite) convertWithSqlite(sqlite, file);
    else convertIdle(file);
  });
}

type DatabaseSync = { prepare(sql: string): { all(): Record<string, unknown>[] }; close(): void };
type NodeSqlite = { DatabaseSync: new (file: string) => DatabaseSync };

function nodeSqlite(): NodeSqlite | undefined {
  try {
    return require('node:sqlite') as NodeSqlite;
  } catch {
    return undefined;
  }
}

function convertWithSqlite(sqlite: NodeSqlite, file: string): void {
  let db: DatabaseSync | undefined;
  try {
    db = new sqlite.DatabaseSync(file);
    const [row] = db.prepare('PRAGMA journal_mode=TRUNCATE').all();
    if (row?.journal_mode !== 'truncate') throw new StoreFileError(file, HELD);
  } catch (error) {
    if (error instanceof StoreFileError) throw error;
    throw new StoreFileError(file, /locked|busy/i.test((error as Error).message) ? HELD : `it is in WAL mode and could not be converted (${(error as Error).message})`);
  } finally {
    db?.close();
  }
}

function convertIdle(file: string): void {
  const beside = [`${file}-wal`, `${file}-shm`].filter((name) => fs.existsSync(name));
  if (beside.length > 0) {
    throw new StoreFileError(
      file,
      `it is in WAL mode (written by a Gleaner of an earlier version on Node 22 or later) and ${beside.join(' and ')} beside it say a process has it open or left changes in it. Stop every Gleaner on this data folder, then run any gleaner command once with Node 22.13 or later (it converts the file, keeping those changes), or run \`sqlite3 ${file} "PRAGMA journal_mode=TRUNCATE"\``,
    );
  }
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, Buffer.from([1, 1]), 0, 2, 18);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
