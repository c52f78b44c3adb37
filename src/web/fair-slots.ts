/**
 * Slots of one process (browser pages, document readers), shared fairly between keys (accounts): at most
 * `total` are held at once, and one owner holds at most `perOwner` of them, so one key's crawl of slow or
 * hostile pages or documents cannot take every slot while another key waits. A freed slot goes to the waiting owner that holds the
 * fewest (the first to ask among equals), not simply to the oldest waiter, which would be the crawl
 * that queued many pages at once.
 */
import { GleanerError } from '../errors.js';

interface Waiter {
  owner: string;
  grant: (release: () => void) => void;
}

export class FairSlots {
  private readonly held = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private inUse = 0;

  constructor(
    readonly total: number,
    readonly perOwner: number,
    /** What a slot is, for the error of a wait stopped without a reason of its own ("a browser slot"). */
    private readonly slotName = 'a slot',
  ) {}

  /** Resolves with the function that frees the slot; rejects when `signal` aborts first. */
  acquire(owner: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.free(owner)) return Promise.resolve(this.take(owner));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        owner,
        grant: (release) => {
          signal?.removeEventListener('abort', abandon);
          resolve(release);
        },
      };
      const abandon = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason instanceof Error ? signal.reason : new GleanerError('UPSTREAM_UNAVAILABLE', `The call was stopped while it waited for ${this.slotName}.`));
      };
      signal?.addEventListener('abort', abandon, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Slots an owner holds now (for tests and logs). */
  holding(owner: string): number {
    return this.held.get(owner) ?? 0;
  }

  /** Calls waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  private free(owner: string): boolean {
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

  /** Hands freed slots to the waiters that may take one, those holding fewest first. */
  private next(): void {
    while (this.inUse < this.total) {
      let best = -1;
      for (let i = 0; i < this.waiting.length; i++) {
        const candidate = this.waiting[i];
        if (!this.free(candidate.owner)) continue;
        if (best < 0 || this.holding(candidate.owner) < this.holding(this.waiting[best].owner)) best = i;
      }
      if (best < 0) return;
      const [waiter] = this.waiting.splice(best, 1);
      waiter.grant(this.take(waiter.owner));
    }
  }
}
