/**
 * Browser calls bounded in time. A page's script can hold its renderer in a loop, and then every call
 * that needs the renderer (page.content(), evaluate, the waits) never answers: each such call is raced
 * against the render's signal here, so the render returns at its deadline whatever the page does, and
 * the page is then closed (browser-pool.ts) rather than awaited.
 */

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
