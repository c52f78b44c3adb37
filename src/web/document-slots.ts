/**
 * The document reading slots of one process, shared fairly between keys: one key holds at most
 * `perOwner` of the `total` slots (so another key's document finds one free while a crawl of slow
 * PDFs runs), a freed slot goes to the waiting key that holds the fewest (the longest waiting among
 * equals), and a key kept out by others waits no longer than `waitMs`: past it the call is refused
 * as SERVER_BUSY (503, with Retry-After), free, rather than left hanging for minutes. (A key waiting
 * behind its own documents, as a crawl of many PDFs does, waits on.)
 */
import { GleanerError } from '../errors.js';

interface Waiter {
  owner: string;
  grant: (release: () => void) => void;
}

export interface SlotRequest {
  owner: string;
  /** The longest wait for a slot. */
  waitMs: number;
  signal?: AbortSignal;
  /** What the slot is for, in the refusal ("the PDF at …"). */
  what: string;
}

export class DocumentSlots {
  private readonly held = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private inUse = 0;

  constructor(
    readonly total: number,
    readonly perOwner: number,
  ) {}

  /** Resolves with the function that frees the slot. */
  acquire(request: SlotRequest): Promise<() => void> {
    request.signal?.throwIfAborted();
    if (this.mayTake(request.owner)) return Promise.resolve(this.take(request.owner));
    return new Promise((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', abandon);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        owner: request.owner,
        grant: (release) => {
          leave();
          resolve(release);
        },
      };
      const abandon = () => {
        leave();
        reject(request.signal?.reason ?? new Error('aborted'));
      };
      const seconds = Math.max(1, Math.ceil(request.waitMs / 1000));
      const expire = () => {
        // A key with a document of its own being read waits behind itself (a crawl's next PDF): fair,
        // so it waits on. Refused is the one kept out by others.
        if (this.holding(request.owner) > 0) {
          timer = setTimeout(expire, request.waitMs);
          return;
        }
        leave();
        reject(
          new GleanerError(
            'SERVER_BUSY',
            `Every document reader was busy with other calls for ${seconds} s, so ${request.what} was not read; nothing was charged. Try again shortly.`,
            { headers: { 'Retry-After': String(seconds) } },
          ),
        );
      };
      let timer = setTimeout(expire, request.waitMs);
      request.signal?.addEventListener('abort', abandon, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Slots an owner holds now, and the waiters (for tests and logs). */
  holding(owner: string): number {
    return this.held.get(owner) ?? 0;
  }

  get queued(): number {
    return this.waiting.length;
  }

  private mayTake(owner: string): boolean {
    return this.inUse < this.total && this.holding(owner) < this.perOwner;
  }

  private take(owner: string): () => void {
    this.inUse++;
    this.held.set(owner, this.holding(owner) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
      const left = this.holding(owner) - 1;
      if (left > 0) this.held.set(owner, left);
      else this.held.delete(owner);
      this.next();
    };
  }

  /** Hands free slots to the waiters that may take one: fewest held first, then the longest waiting. */
  private next(): void {
    while (this.inUse < this.total) {
      let best: Waiter | undefined;
      for (const candidate of this.waiting) {
        if (!this.mayTake(candidate.owner)) continue;
        const fewer = best && this.holding(candidate.owner) < this.holding(best.owner);
        if (!best || fewer) best = candidate;
      }
      if (!best) return;
      best.grant(this.take(best.owner));
    }
  }
}
