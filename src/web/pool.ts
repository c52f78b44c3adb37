/**
 * Works through a queue that grows while it is worked on (links found on pages), at most
 * `concurrency` items at once, until the queue is empty and nothing is running, or `canStart`
 * says no more work should begin (running items are still awaited).
 */
export async function drainQueue<T>(
  queue: T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
  canStart: (running: number) => boolean = () => true,
): Promise<void> {
  let running = 0;
  let failed = false;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (failed) return;
      while (running < concurrency && queue.length && canStart(running)) {
        const item = queue.shift() as T;
        running++;
        work(item).then(
          () => {
            running--;
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
