/**
 * The store's thread: it owns the SQLite connection, so the fsync of every commit blocks this thread,
 * never the event loop. Requests come as messages (sqlite-thread.ts). A ledger step's allowance is a
 * function of the account record (accounts.ts), which cannot cross threads: the caller sends the one
 * it computed for the record it last saw; when the file holds another record (a plan changed), the
 * step is undone and that record sent back, and the caller computes again and retries.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from './sqlite-store.js';
import { StoreFileError } from './sqlite.js';
import type { AccountRef } from './ledger.js';

/** `hint`: the record the caller computed `allowance` for (ledger steps). */
export type ThreadRequest = { id: number; method: string; args: unknown[]; hint?: { record: string; allowance: number | null } };
/** What the event loop sends: a step, or that the early answers of a round were handled. */
export type ToThread = ThreadRequest | { answered: true };

export type ThreadError = { kind: 'file'; file: string; detail: string } | { kind: 'stale'; record?: string } | { kind: 'other'; message: string };

export type ThreadReply = { id: number; value?: unknown; error?: ThreadError };
/** What the thread sends: a step's answer, or that a round of early answers was sent. */
export type FromThread = ThreadReply | { round: true };

class StaleRecord extends Error {
  constructor(readonly record: string) {
    super('the account record changed');
  }
}

/** An AccountRef with the allowance of the record the caller saw, as it crosses the thread boundary. */
function withAllowance<T extends AccountRef>(ref: Omit<T, 'allowanceOf'>, hint: ThreadRequest['hint']): T {
  return {
    ...ref,
    allowanceOf: (record: string) => {
      if (hint && record === hint.record) return hint.allowance;
      throw new StaleRecord(record);
    },
  } as T;
}

function describe(error: unknown): ThreadError {
  if (error instanceof StaleRecord) return { kind: 'stale', record: error.record };
  if (error instanceof StoreFileError) return { kind: 'file', file: error.file, detail: error.detail };
  return { kind: 'other', message: (error as Error)?.message ?? String(error) };
}

async function main(): Promise<void> {
  const port = parentPort!;
  const { file } = workerData as { file: string };
  const store = await SqliteStore.open(file).catch((error: unknown) => void port.postMessage({ id: 0, error: describe(error) } satisfies ThreadReply));
  if (!store) return;
  port.postMessage({ id: 0 } satisfies ThreadReply);
  // A round of early answers is handled once the event loop says so (sqlite.ts): the messages it
  // sends meanwhile (a keep after its reserve) join the transaction still open.
  let handled: (() => void) | undefined;
  store.file.answered = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    port.postMessage({ round: true } satisfies FromThread);
    await new Promise<void>((resolve) => (handled = resolve));
  };
  const ledger = store.ledger;
  // Each method's own arguments, as sqlite-thread.ts sends them.
  type Args = any[];
  const methods: Record<string, (args: Args, hint: ThreadRequest['hint']) => Promise<unknown>> = {
    get: ([key]) => store.get(key),
    getPair: ([key, guess]) => store.getPair(key, guess),
    set: ([key, value, ttl]) => store.set(key, value, ttl),
    delete: ([key]) => store.delete(key),
    sweepExpired: ([prefix]) => store.sweepExpired(prefix),
    compareAndSet: ([key, expected, next]) => store.compareAndSet(key, expected, next),
    reserve: ([request], hint) => ledger.reserve(withAllowance(request, hint)),
    settle: ([request], hint) => ledger.settle(withAllowance(request, hint)),
    keep: ([id]) => ledger.keep(id),
    usage: ([ref, period]) => ledger.usage(ref, period),
    reservations: () => ledger.reservations(),
    adopt: ([id, owner]) => ledger.adopt(id, owner),
    close: () => store.close(),
  };
  port.on('message', (request: ToThread) => {
    if ('answered' in request) return handled?.();
    const method = methods[request.method];
    const step = method ? method(request.args, request.hint) : Promise.reject(new Error(`unknown store method ${request.method}`));
    step.then(
      (value) => port.postMessage({ id: request.id, value } satisfies ThreadReply),
      (error: unknown) => port.postMessage({ id: request.id, error: describe(error) } satisfies ThreadReply),
    );
  });
}

void main();
