/**
 * Counts the steps this process sends to its SQLite store's thread, by method, while still sending
 * them (a spy that calls through): what a test of the wasm engine's key cache or blocks of credits
 * checks went, or did not go, to the thread.
 */
import { vi } from 'vitest';
import { SqliteThreadStore } from '../../src/store/sqlite-thread.js';

export function countThreadSteps(): Map<string, number> {
  const counts = new Map<string, number>();
  const call = SqliteThreadStore.prototype.call;
  vi.spyOn(SqliteThreadStore.prototype, 'call').mockImplementation(function (this: SqliteThreadStore, method: string, ...rest: unknown[]) {
    counts.set(method, (counts.get(method) ?? 0) + 1);
    return (call as (...args: unknown[]) => Promise<unknown>).call(this, method, ...rest);
  });
  return counts;
}
