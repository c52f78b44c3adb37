/**
 * The embedded store's lock, as node-sqlite3-wasm takes it: the directory `<file>.lock`, made for a
 * transaction and removed after. Busy is retried without blocking; a lock directory older than
 * STALE_LOCK_MS was left by a process that died inside a transaction (ours last milliseconds).
 */
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

/** A transaction of ours holds the lock for milliseconds; one this old was left by a dead process. */
const STALE_LOCK_MS = 10_000;
/** How long a caller waits for the lock before the store is reported unavailable. */
const BUSY_GIVE_UP_MS = 30_000;

export class StoreFileError extends Error {
  override name = 'StoreFileError';
  constructor(readonly file: string, readonly detail: string) {
    super(`The store ${file} cannot be used: ${detail}`);
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
      if (!/locked|busy|EEXIST/i.test(message)) throw new StoreFileError(file, message);
      if (removeStaleLock(file)) continue;
      if (Date.now() - started > BUSY_GIVE_UP_MS) throw new StoreFileError(file, `it stayed locked by another process for ${BUSY_GIVE_UP_MS / 1000} s`);
      // Jittered so processes that collided do not collide again in step.
      await delay(Math.min(1 + attempt, 20) * (0.5 + Math.random()));
    }
  }
}

/** Runs `work` holding the file's lock directory, as a transaction of the engine would. */
export async function withFileLock<T>(file: string, work: () => T): Promise<T> {
  await retryBusy(file, () => fs.mkdirSync(`${file}.lock`));
  try {
    return work();
  } finally {
    fs.rmSync(`${file}.lock`, { recursive: true, force: true });
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
