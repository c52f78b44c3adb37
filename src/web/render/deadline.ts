/**
 * Browser calls bounded in time. A page's script can hold its renderer in a loop, and then every call
 * that needs the renderer (page.content(), evaluate, the waits) never answers: each such call is raced
 * against the render's signal here, so the render returns at its deadline whatever the page does, and
 * the page is then closed (session.ts, browser-pool.ts) rather than awaited. Each render's own time is a
 * RenderClock, built on src/deadline.ts.
 */
import { deadline, type Deadline } from '../../deadline.js';

/** `work`, or a rejection with the signal's reason as soon as `signal` aborts. `work` is left to settle alone. */
export function deadlineRace<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // A call that loses the race may reject later (its page closed): that rejection is nobody's.
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/** True when `work` settled (either way) within `ms`; false when it was still pending. */
export function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    work.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}

/** How long a page (then its context, then the browser) is given to close once its render is over or cut. */
export const CLOSE_GRACE_MS = 3_000;

/** How long the page's network must be idle before its DOM is read, and the longest wait for that. */
export const QUIET_MS = 120;
export const SETTLE_MAX_MS = 5_000;
/** The part of the page deadline kept for reading the DOM after the waits (at most). */
const READ_RESERVE_MS = 2_000;

/**
 * One render's time: its deadline (the page's, or the call's when that comes first), the end of its
 * waits (a little before the deadline, so that what the page shows by then can still be read), and
 * the signal every browser call of the render is raced against (the deadline, the caller leaving, or
 * `crash`). `clear()` when the render is over.
 */
export class RenderClock {
  readonly started = Date.now();
  /** When the render must be over (epoch ms). */
  readonly endsAt: number;
  /** The call's rendering as a whole ends first (a crawl's, a map's). */
  readonly cutBySession: boolean;
  private readonly waitsEnd: number;
  private readonly limit: Deadline;
  private readonly waits = new Set<Deadline>();

  constructor(timeoutMs: number, sessionDeadline: number, ...sources: Array<AbortSignal | undefined>) {
    this.endsAt = Math.min(this.started + timeoutMs, sessionDeadline);
    this.cutBySession = sessionDeadline < this.started + timeoutMs;
    this.waitsEnd = this.endsAt - Math.min(READ_RESERVE_MS, Math.floor((this.endsAt - this.started) / 4));
    this.limit = deadline(Math.max(1, this.endsAt - this.started), ...sources);
  }

  get signal(): AbortSignal {
    return this.limit.signal;
  }

  /** True when the render's own time ran out (not the caller, not a crash). */
  get expired(): boolean {
    return this.limit.expired;
  }

  /** Whole milliseconds left for the waits (Playwright refuses a fractional timeout). */
  remaining = (): number => Math.max(1, Math.floor(this.waitsEnd - Date.now()));

  /** `work`, ended at the render's deadline whether or not the page answers. */
  bound = <T>(work: Promise<T>): Promise<T> => deadlineRace(work, this.signal);

  /** A settle wait: at most SETTLE_MAX_MS, within the render's time. */
  settle(): Deadline {
    const wait = deadline(Math.min(this.remaining(), SETTLE_MAX_MS), this.signal);
    this.waits.add(wait);
    return wait;
  }

  clear(): void {
    this.limit.clear();
    for (const wait of this.waits) wait.clear();
    this.waits.clear();
  }
}
