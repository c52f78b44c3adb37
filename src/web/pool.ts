/**
 * Works through a queue that grows while it is worked on (links found on pages), at most
 * `concurrency` items at once, until the queue is empty and nothing is running, or `canStart`
 * says no more work should begin (running items are still awaited).
 *
 * An item may give its slot back before it is done (`release`): the crawler does once a page is
 * fetched, so the next fetch starts while that page is still being extracted instead of waiting
 * for the extraction threads. Released items still count as running for `canStart`, and no more
 * than twice `concurrency` items are unfinished at once, so fetched pages cannot pile up faster
 * than they are extracted.
 */
export async function drainQueue<T>(
  queue: T[],
  concurrency: number,
  work: (item: T, release: () => void) => Promise<void>,
  canStart: (running: number) => boolean = () => true,
): Promise<void> {
  /** Items holding one of the `concurrency` slots. */
  let holding = 0;
  /** Items started and not done, released or not. */
  let running = 0;
  let failed = false;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (failed) return;
      while (holding < concurrency && running < 2 * concurrency && queue.length && canStart(running)) {
        const item = queue.shift() as T;
        holding++;
        running++;
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          holding--;
          pump();
        };
        work(item, release).then(
          () => {
            running--;
            release();
            pump();
          },
          (error: unknown) => {
            failed = true;
            reject(error);
          },
        );
      }
      if (running === 0) resolve();
    };
    pump();
  });
}
