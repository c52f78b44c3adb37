/** Resolves on the first SIGINT or SIGTERM: how a long-running command learns to stop. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
