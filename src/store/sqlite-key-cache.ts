/**
 * Key lookups answered on the event loop, for the wasm engine (Node 20), whose reads otherwise wait
 * for the store's thread and so for the commit it is blocked in (docs/ledger.md).
 *
 * What a lookup promises: it answers what the file holds at the moment it is made. A change that any
 * process committed before the lookup began (another process's `keys revoke` that has returned, this
 * process's own writes) is seen by it.
 *
 * How: SQLite adds one to the database header's file change counter every time it unlocks the file
 * after changing it (rollback journal modes: it validates its own page cache that way). The store's
 * thread tells this cache, for each transaction, the counter when it took the file's lock and the
 * counter its COMMIT leaves (CommitNote, sent before that COMMIT). A cached answer is given only while
 * the counter read from the file now is one of those two: then every change since the answer was read
 * is one of this thread's own, and this process's own writes to a key drop it from the cache before
 * they are sent (wrote). Any other value, or a counter the thread's next transaction finds moved by
 * another process, empties the cache; the lookup then goes to the thread as before.
 */
import fs from 'node:fs';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { changeCounter, type CommitNote } from './sqlite.js';

/** Only keys that exist are cached, a bound all the same. */
const CACHE_MAX = 10_000;

export interface CachedPair {
  /** The index's value, the key it names, and that key's value. */
  first: string;
  target: string;
  second: string;
}

/** A read on its way to the thread, whose answer may be cached unless this process wrote one of its keys meanwhile. */
interface Fill {
  keys: string[];
  spoiled: boolean;
}

export class SqliteKeyCache {
  private readonly entries = new Map<string, CachedPair>();
  /** Target key -> the index keys whose cached pair names it. */
  private readonly byTarget = new Map<string, Set<string>>();
  private readonly fills = new Set<Fill>();
  /** The counter when the thread's last transaction took the lock, and what its COMMIT leaves. */
  private known?: number;
  private next?: number;
  /** The counter at the last change this cache did not make (it was emptied then): older reads are not kept. */
  private validSince?: number;
  private readonly fd: number;

  /**
   * `notes`: the thread's CommitNotes, on a channel of their own. They are taken as they come, and
   * also synchronously (receiveMessageOnPort) before a lookup finds the counter moved and before a
   * read's answer is cached: a note posted before its COMMIT is then never seen after that COMMIT's
   * counter, nor after the answers of its batch (posted after it), however busy this thread is.
   */
  constructor(
    file: string,
    private readonly notes: MessagePort,
  ) {
    this.fd = fs.openSync(file, 'r');
    notes.on('message', (note: CommitNote) => this.note(note));
    notes.unref();
  }

  private drain(): void {
    for (let received = receiveMessageOnPort(this.notes); received; received = receiveMessageOnPort(this.notes)) this.note(received.message as CommitNote);
  }

  /** The cached pair of `key`, if nothing but this thread's own commits changed the file since it was read. */
  lookup(key: string): CachedPair | undefined {
    if (!this.entries.has(key)) return undefined;
    const counter = changeCounter(this.fd);
    if (counter !== this.known && counter !== this.next) this.drain();
    const entry = this.entries.get(key);
    if (!entry || this.known === undefined) return undefined;
    return counter === this.known || counter === this.next ? entry : undefined;
  }

  /** The value of a key some cached pair names (an account record), if the cache can answer now. */
  current(target: string): string | undefined {
    for (const index of this.byTarget.get(target) ?? []) return this.lookup(index)?.second;
    return undefined;
  }

  /** A transaction of the store's thread (see CommitNote). */
  note(note: CommitNote): void {
    if ('failed' in note) {
      this.clear();
      this.known = this.next = this.validSince = undefined;
      return;
    }
    // Moved since the last transaction by something other than that transaction: another process.
    if (note.before !== this.known && note.before !== this.next) {
      this.clear();
      this.validSince = note.before;
    }
    this.known = note.before;
    this.next = note.after;
  }

  /** Before a read is sent to the thread. Its answer comes after its transaction's note. */
  startFill(keys: string[]): Fill {
    const fill = { keys, spoiled: false };
    this.fills.add(fill);
    return fill;
  }

  /** `readAt`: the change counter the read's transaction found; a read from before the last foreign change is not kept. */
  finishFill(fill: Fill, key: string, pair: CachedPair | undefined, readAt: number | undefined): void {
    this.fills.delete(fill);
    this.drain();
    if (!pair || fill.spoiled || this.known === undefined || readAt === undefined || this.validSince === undefined || readAt < this.validSince) return;
    if (this.entries.size >= CACHE_MAX) this.clear();
    this.forget(key);
    this.entries.set(key, pair);
    let indexes = this.byTarget.get(pair.target);
    if (!indexes) this.byTarget.set(pair.target, (indexes = new Set()));
    indexes.add(key);
  }

  dropFill(fill: Fill): void {
    this.fills.delete(fill);
  }

  /** This process is about to write `key`: no cached answer involving it is given again. */
  wrote(key: string): void {
    this.forget(key);
    for (const index of this.byTarget.get(key) ?? []) this.forget(index);
    for (const fill of this.fills) if (fill.keys.includes(key)) fill.spoiled = true;
  }

  private forget(index: string): void {
    const pair = this.entries.get(index);
    if (!pair) return;
    this.entries.delete(index);
    const indexes = this.byTarget.get(pair.target);
    indexes?.delete(index);
    if (indexes?.size === 0) this.byTarget.delete(pair.target);
  }

  private clear(): void {
    this.entries.clear();
    this.byTarget.clear();
  }

  close(): void {
    this.notes.close();
    fs.closeSync(this.fd);
  }
}
