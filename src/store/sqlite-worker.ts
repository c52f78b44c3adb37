/**
 * The store's thread: it owns the SQLite connection that writes (and, on the wasm engine, reads), so
 * the fsync of every commit blocks this thread and never the event loop that serves requests.
 * Requests come as messages (sqlite-thread.ts) and are grouped into one transaction per commit by
 * SqliteFile while the previous commit waits for the disk (group commit).
 *
 * The ledger's allowance is a function of the account record (accounts.ts) and functions do not cross
 * threads: the caller sends the allowance it computed for the record it last saw. When the record in
 * the file is not that one (a plan changed), the step is undone and the record is sent back: the
 * caller computes again and retries, so a charge always sees the plan as it is now.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { SqliteStore, type ClaimRequest } from './sqlite-store.js';
import { StoreFileError } from './sqlite.js';
import type { SqliteEngine } from './sqlite-db.js';
import type { AccountRef } from './ledger.js';

export interface ThreadRequest {
  id: number;
  method: string;
  args: unknown[];
  /** The record the caller computed `allowance` for (ledger steps). */
  hint?: { record: string; allowance: number | null };
}

export type ThreadError = { kind: 'file'; file: string; detail: string } | { kind: 'stale'; record?: string } | { kind: 'other'; message: string };

export type ThreadReply = { id: number; value?: unknown; error?: ThreadError };

class StaleRecord extends Error {
  constructor(readonly record: string) {
    super('the account record changed');
  }
}

/** An AccountRef without its function, as it crosses the thread boundary. */
type PlainRef<T extends AccountRef> = Omit<T, 'allowanceOf'>;

function withAllowance<T extends AccountRef>(ref: PlainRef<T>, hint: ThreadRequest['hint']): T {
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
  const { file, engine, notes } = workerData as { file: string; engine: SqliteEngine; notes: MessagePort };
  let store: SqliteStore;
  try {
    store = await SqliteStore.open(file, engine);
  } catch (error) {
    port.postMessage({ id: 0, error: describe(error) } satisfies ThreadReply);
    return;
  }
  // The wasm engine's reads wait for this thread; the event loop answers key lookups from a cache
  // checked against the file's change counter, and learns here which changes of it are this thread's.
  if (store.file.engine === 'wasm') store.file.watchCommits((note) => notes.postMessage(note));
  else notes.close();
  port.postMessage({ id: 0, value: store.file.engine } satisfies ThreadReply);
  const ledger = store.ledger;
  const methods: Record<string, (args: unknown[], hint: ThreadRequest['hint']) => Promise<unknown>> = {
    get: ([key]) => store.get(key as string),
    getPair: ([key, guess]) => store.getPair(key as string, guess as string | undefined),
    set: ([key, value, ttl]) => store.set(key as string, value as string, ttl as number | undefined),
    delete: ([key]) => store.delete(key as string),
    sweepExpired: ([prefix]) => store.sweepExpired(prefix as string),
    compareAndSet: ([key, expected, next]) => store.compareAndSet(key as string, expected as string | undefined, next as string | undefined),
    reserve: ([request], hint) => ledger.reserve(withAllowance(request as PlainRef<Parameters<typeof ledger.reserve>[0]>, hint)),
    settle: ([request], hint) => ledger.settle(withAllowance(request as PlainRef<Parameters<typeof ledger.settle>[0]>, hint)),
    keep: ([id]) => ledger.keep(id as string),
    claim: ([request], hint) => ledger.claim(withAllowance(request as PlainRef<ClaimRequest>, hint)),
    foldKeeps: ([fold, segments, process]) => ledger.foldKeeps(fold as number, segments as Parameters<typeof ledger.foldKeeps>[1], process as string),
    forgetFolds: ([process]) => ledger.forgetFolds(process as string),
    materialize: ([leaseId, id, amount]) => ledger.materialize(leaseId as string, id as string, amount as number),
    returnLeased: ([leaseId, amount]) => ledger.returnLeased(leaseId as string, amount as number),
    usage: ([ref, period]) => ledger.usage(ref as { account: string; recordKey: string }, period as string),
    reservations: () => ledger.reservations(),
    adopt: ([id, owner]) => ledger.adopt(id as string, owner as string),
  };
  port.on('message', (request: ThreadRequest) => {
    if (request.method === 'close') {
      void store.close().then(
        () => port.postMessage({ id: request.id } satisfies ThreadReply),
        (error: unknown) => port.postMessage({ id: request.id, error: describe(error) } satisfies ThreadReply),
      );
      return;
    }
    const method = methods[request.method];
    if (!method) {
      port.postMessage({ id: request.id, error: { kind: 'other', message: `unknown store method ${request.method}` } } satisfies ThreadReply);
      return;
    }
    method(request.args, request.hint).then(
      (value) => port.postMessage({ id: request.id, value } satisfies ThreadReply),
      (error: unknown) => port.postMessage({ id: request.id, error: describe(error) } satisfies ThreadReply),
    );
  });
}

void main();
