/**
 * Reads or writes a data directory's SQLite file on a connection of its own, as another process
 * would, waiting while a store's commit holds the file (a fold of the journal of kept charges can).
 */
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { openDb, type SqliteEngine } from '../../src/store/sqlite-db.js';

export async function onStoreFile<T>(dir: string, engine: SqliteEngine, work: (db: ReturnType<typeof openDb>) => T): Promise<T> {
  for (;;) {
    const db = openDb(path.join(dir, 'gleaner.sqlite'), engine);
    try {
      return work(db);
    } catch (error) {
      if (!/locked|busy/i.test((error as Error).message)) throw error;
    } finally {
      db.close();
    }
    await delay(5);
  }
}
