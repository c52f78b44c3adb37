/**
 * notifications/cancelled across processes. A 2025 client served statelessly sends its cancel as a
 * POST of its own, which any process may answer: the cancel is written to the store, where the
 * process running the call sees it (at once when it is the same process, else within a second).
 * A cancel counts only for a call of the same key that started before it (clients reuse ids).
 */
import { EventEmitter } from 'node:events';
import type { RoundState } from './client-model.js';
import { deadline } from '../../deadline.js';

const KEEP_MS = 10 * 60_000;
const POLL_MS = 1_000;
const cancelKey = (ownerId: string, requestId: string | number) => `mcp:cancelled:${ownerId}:${JSON.stringify(requestId).slice(0, 100)}`;

export class Cancellations {
  private readonly local = new EventEmitter();

  constructor(private readonly store: RoundState) {
    this.local.setMaxListeners(0);
  }

  async cancel(ownerId: string, requestId: string | number): Promise<void> {
    const key = cancelKey(ownerId, requestId);
    const at = Date.now();
    this.local.emit(key, at);
    await this.store.set(key, at, KEEP_MS);
  }

  /** A signal that aborts with `signal` or with a cancel of this call; stop() when the call ends. */
  watch(ownerId: string, requestId: string | number, signal: AbortSignal): { signal: AbortSignal; stop: () => void } {
    const key = cancelKey(ownerId, requestId);
    const started = Date.now();
    const controller = new AbortController();
    // Listens before stop() does, so a cancel reaches the call's signal before stop() lets go.
    const wait = deadline(undefined, signal, controller.signal);
    const heard = (at: number) => {
      if (at >= started) controller.abort();
    };
    this.local.on(key, heard);
    const timer = setInterval(() => {
      void this.store.get<number>(key).then(
        (at) => at !== undefined && heard(at),
        () => undefined,
      );
    }, POLL_MS);
    timer.unref();
    const stop = () => {
      clearInterval(timer);
      this.local.off(key, heard);
      wait.clear();
    };
    controller.signal.addEventListener('abort', stop, { once: true });
    return { signal: wait.signal, stop };
  }
}
