/**
 * Every deadline and every combined wait in Gleaner, built so that it fires on every supported Node.
 *
 * Why not `AbortSignal.any([AbortSignal.timeout(ms), other])`: on Node 20 the combined signal holds
 * its sources only weakly, and a timeout signal is kept alive only by its listeners, so once the
 * garbage collector has run the timer never fires and the wait outlives its bound (issue 39). Here
 * the timer is an ordinary `setTimeout` whose callback holds the controller (the timer list holds it
 * strongly), and each source holds the controller through a listener of its own. `clear()` ends the
 * wait: the timer is cleared and the listeners removed, so a wait that ended early leaves nothing
 * behind on a long-lived source (Node 20's `AbortSignal.any` also piles up entries on those).
 *
 * The rule (docs/architecture.md): src uses neither `AbortSignal.timeout` nor `AbortSignal.any`;
 * test/unit/deadline.test.ts checks both the rule and the behaviour under forced collections.
 */

import { getEventListeners, getMaxListeners, setMaxListeners } from 'node:events';

/** The longest delay one Node timer takes (a longer one fires at once, with a warning). */
const TIMER_MAX_MS = 2 ** 31 - 1;

export interface Deadline {
  /** Aborts when `ms` pass (reason: a DOMException named TimeoutError) or when a source aborts (its reason). */
  readonly signal: AbortSignal;
  /** True when this deadline's own time ran out (not a source's abort). */
  readonly expired: boolean;
  /** Ends the wait: the timer is cleared and the sources' listeners removed. Safe to call more than once. */
  clear(): void;
}

/**
 * A signal that aborts after `ms` (none when `ms` is undefined or not finite) or with the first of
 * `sources` that aborts. Call `clear()` when the wait it bounds is over.
 */
export function deadline(ms: number | undefined, ...sources: Array<AbortSignal | undefined>): Deadline {
  const controller = new AbortController();
  const given = sources.filter((source): source is AbortSignal => source !== undefined);
  let timer: NodeJS.Timeout | undefined;
  let expired = false;
  const clear = () => {
    clearTimeout(timer);
    timer = undefined;
    for (const source of given) source.removeEventListener('abort', onSource);
  };
  const end = (reason: unknown) => {
    clear();
    controller.abort(reason);
  };
  function onSource(this: AbortSignal) {
    end(this.reason);
  }
  const arm = (left: number) => {
    timer = setTimeout(
      () => {
        if (left > TIMER_MAX_MS) return arm(left - TIMER_MAX_MS);
        expired = true;
        end(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      },
      Math.min(left, TIMER_MAX_MS),
    );
    // Like AbortSignal.timeout: a pending deadline alone does not keep the process running.
    timer.unref();
  };
  const already = given.find((source) => source.aborted);
  if (already) controller.abort(already.reason);
  else {
    for (const source of given) {
      // Many waits may share one source (a crawl's pages, a server's close) and each removes its listener when it
      // ends, so their count is the waits under way: no leak for Node's warning at 10 listeners to report.
      if (getEventListeners(source, 'abort').length >= getMaxListeners(source)) setMaxListeners(2 * getMaxListeners(source), source);
      source.addEventListener('abort', onSource, { once: true });
    }
    if (ms !== undefined && Number.isFinite(ms)) arm(Math.max(0, ms));
  }
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    clear,
  };
}

/** A deadline at the instant `at` (epoch milliseconds; none when not finite). */
export function deadlineAt(at: number, ...sources: Array<AbortSignal | undefined>): Deadline {
  return deadline(Number.isFinite(at) ? at - Date.now() : undefined, ...sources);
}
