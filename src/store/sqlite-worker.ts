/**
 * The store's thread: it owns the SQLite connection, so the fsync of every commit blocks this thread,
 * never the event loop. Requests come as messages (sqlite-thread.ts): a method of the store, or of its
 * ledger (`ledger.reserve`), with its arguments.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from './sqlite-store.js';
import { StoreFileError } from './sqlite.js';

export type ThreadRequest = { id: number; method: string; args: unknown[] };
/** What the event loop sends: a step, or that the early answers of a round were handled. */
export type ToThread = ThreadRequest | { answered: true };

export type ThreadError = { kind: 'file'; file: string; detail: string } | { kind: 'other'; message: string };

export type ThreadReply = { id: number; value?: unknown; error?: ThreadError };
/** What the thread sends: a step's answer, or that a round of early answers was sent. */
export type FromThread = ThreadReply | { round: true };

/** The steps the event loop may ask for: the store's methods, and its ledger's as `ledger.<name>`. */
const STEPS = new Set(['get', 'getPair', 'set', 'delete', 'sweepExpired', 'compareAndSet', 'close', ...['reserve', 'settle', 'keep', 'usage', 'reservations', 'adopt'].map((name) => `ledger.${name}`)]);

function describe(error: unknown): ThreadError {
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
  type Method = (...args: unknown[]) => Promise<unknown>;
  port.on('message', (request: ToThread) => {
    if ('answered' in request) return handled?.();
    const [target, name] = request.method.startsWith('ledger.') ? [store.ledger, request.method.slice('ledger.'.length)] : [store, request.method];
    const method = STEPS.has(request.method) ? (target as unknown as Record<string, Method>)[name] : undefined;
    const step = method ? method.apply(target, request.args) : Promise.reject(new Error(`unknown store method ${request.method}`));
    step.then(
      (value) => port.postMessage({ id: request.id, value } satisfies ThreadReply),
      (error: unknown) => port.postMessage({ id: request.id, error: describe(error) } satisfies ThreadReply),
    );
  });
}

void main();
