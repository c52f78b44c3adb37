/**
 * The embedded SQLite store as the event loop sees it: every step is a message to the store's own
 * thread (sqlite-worker.ts), which owns the connection, groups what arrives while a commit waits for
 * the disk into the next transaction, and answers a write once its commit is on the disk, a read as
 * soon as it has run. The event loop never waits for an fsync, nor for the file's lock.
 */
import { Worker } from 'node:worker_threads';
import { StoreFileError } from './sqlite.js';
import type { FromThread, ThreadReply, ThreadRequest, ToThread } from './sqlite-worker.js';
import type { CreditLedger } from './ledger.js';

/** Remembered index targets, by key (only keys that exist get here): a bound all the same. */
const REMEMBER_MAX = 10_000;

/** The store's thread: the built JavaScript, or under tsx and vitest the source, once the thread has registered tsx. */
function startThread(file: string): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const script = new URL(`./sqlite-worker${fromSources ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSources) return new Worker(script, { execArgv: [], workerData: { file } });
  return new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })`, { eval: true, workerData: { file } });
}

export class SqliteThreadStore {
  readonly ledger: CreditLedger;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  private nextId = 1;
  private stopped?: StoreFileError;
  /** Index key -> the key its value named last time (the key hash -> its account record). */
  private readonly through = new Map<string, string>();

  private constructor(
    private readonly worker: Worker,
    readonly location: string,
  ) {
    // The ledger's steps run on the store's thread (sqlite-store.ts has their SQL), one message each.
    const step = (method: keyof CreditLedger) => (...args: unknown[]) => this.call(`ledger.${method}`, args);
    this.ledger = { reserve: step('reserve'), settle: step('settle'), keep: step('keep'), usage: step('usage'), reservations: step('reservations'), adopt: step('adopt') } as CreditLedger;
    worker.on('message', (reply: FromThread) => this.answer(reply));
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
  static async open(file: string): Promise<SqliteThreadStore> {
    const worker = startThread(file);
    const ready = await new Promise<ThreadReply>((resolve) => {
      worker.once('message', resolve);
      worker.once('error', (error) => resolve({ id: 0, error: { kind: 'file', file, detail: error.message } }));
    });
    if (ready.error) {
      await worker.terminate();
      throw new StoreFileError(file, ready.error.kind === 'file' ? ready.error.detail : ready.error.message);
    }
    return new SqliteThreadStore(worker, file);
  }

  /** Sends one step to the store's thread. */
  call<T>(method: string, args: unknown[]): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    // The thread keeps the process alive only while a step is on its way (a CLI command exits after its last one).
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, method, args } satisfies ThreadRequest);
    });
  }

  // The plain steps, one message each.
  readonly get = (key: string) => this.call<string | undefined>('get', [key]);
  readonly set = (key: string, value: string, ttlMs?: number) => this.call<void>('set', [key, value, ttlMs]);
  readonly delete = (key: string) => this.call<void>('delete', [key]);
  readonly sweepExpired = (prefix: string) => this.call<void>('sweepExpired', [prefix]);
  /** Writes `next` only if the key still holds `expected` (compare-and-swap); false when it changed. */
  readonly compareAndSet = (key: string, expected: string | undefined, next: string | undefined) => this.call<boolean>('compareAndSet', [key, expected, next]);

  /**
   * Reads `key`, then the key its value names (an index, then its record), as one snapshot: one
   * message when the index still names the key it named last time, as it nearly always does.
   */
  async getThrough(key: string, next: (value: string) => string): Promise<string | undefined> {
    let guess = this.through.get(key);
    for (let attempt = 0; attempt < 3; attempt++) {
      const [first, second] = await this.call<[string | undefined, string | undefined]>('getPair', [key, guess]);
      if (first === undefined) return undefined;
      const target = next(first);
      if (target === guess) return second;
      if (this.through.size >= REMEMBER_MAX) this.through.clear();
      this.through.set(key, target);
      guess = target;
    }
    throw new StoreFileError(this.location, `the index ${key} kept changing`);
  }

  async close(): Promise<void> {
    if (!this.stopped) await this.call('close', []).catch(() => undefined);
    this.stopped ??= new StoreFileError(this.location, 'the store is closed');
    await this.worker.terminate();
  }

  private answer(reply: FromThread): void {
    // Every early answer of the round came before this, and Node ran the promise continuations of each before the
    // next message: the steps they led to without waiting for I/O (a keep after a quick run) are sent by now.
    if ('round' in reply) return this.worker.postMessage({ answered: true } satisfies ToThread);
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (!reply.error) waiting.resolve(reply.value);
    else if (reply.error.kind === 'file') waiting.reject(new StoreFileError(reply.error.file, reply.error.detail));
    else waiting.reject(new Error(reply.error.message));
  }
}
