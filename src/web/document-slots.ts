/**
 * The document reading slots of one process, shared fairly between keys: one key holds at most
 * `perOwner` of the `total` slots (so another key's document finds one free while a crawl of slow
 * PDFs runs), a freed slot goes to the waiting key that holds the fewest (the longest waiting among
 * equals), and a key kept out by others waits no longer than `waitMs`: past it the call is refused
 * as SERVER_BUSY (503, with Retry-After), free, rather than left hanging for minutes. (A key waiting
 * behind its own documents, as a crawl of many PDFs does, waits on.)
 */
import { GleanerError } from '../errors.js';
import { deadline } from '../deadline.js';
import { FairSlots } from './fair-slots.js';

export interface SlotRequest {
  owner: string;
  /** The longest wait for a slot. */
  waitMs: number;
  signal?: AbortSignal;
  /** What the slot is for, in the refusal ("the PDF at …"). */
  what: string;
}

/** The fair slots (fair-slots.ts) with a bounded wait for a key kept out by others. */
export class DocumentSlots {
  private readonly slots: FairSlots;

  constructor(
    readonly total: number,
    readonly perOwner: number,
  ) {
    this.slots = new FairSlots(total, perOwner, 'a document reader');
  }

  /** Resolves with the function that frees the slot. */
  acquire(request: SlotRequest): Promise<() => void> {
    const busy = new AbortController();
    const seconds = Math.max(1, Math.ceil(request.waitMs / 1000));
    const expire = () => {
      // A key with a document of its own being read waits behind itself (a crawl's next PDF): fair,
      // so it waits on. Refused is the one kept out by others.
      if (this.holding(request.owner) > 0) {
        timer = setTimeout(expire, request.waitMs);
        return;
      }
      busy.abort(
        new GleanerError('SERVER_BUSY', `Every document reader was busy with other calls for ${seconds} s, so ${request.what} was not read; nothing was charged. Try again shortly.`, {
          headers: { 'Retry-After': String(seconds) },
        }),
      );
    };
    let timer = setTimeout(expire, request.waitMs);
    const wait = deadline(undefined, request.signal, busy.signal);
    return this.slots.acquire(request.owner, wait.signal).finally(() => {
      clearTimeout(timer);
      wait.clear();
    });
  }

  /** Slots an owner holds now (for tests and logs). */
  holding(owner: string): number {
    return this.slots.holding(owner);
  }

  /** Calls waiting for a reader. */
  get queued(): number {
    return this.slots.queued;
  }
}
