/**
 * Politeness: at most `perHost` requests in flight to one host, the rest waiting in order. One
 * p-limit queue per host, dropped once the host is idle so the map does not keep every host ever
 * asked. (Bottleneck's group did this before; its scheduler steps through timers, about 5 ms a
 * request and 20 ms a round of 8, which a crawl paid on every page: see bench/web.ts.)
 */
import pLimit, { type LimitFunction } from 'p-limit';

export class HostLimits {
  private readonly queues = new Map<string, LimitFunction>();

  constructor(private readonly perHost: number) {}

  run<T>(host: string, task: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(host);
    if (!queue) {
      queue = pLimit(this.perHost);
      this.queues.set(host, queue);
    }
    const own = queue;
    return own(task).finally(() => {
      if (own.activeCount === 0 && own.pendingCount === 0 && this.queues.get(host) === own) this.queues.delete(host);
    });
  }

  /** Hosts with requests running or waiting (tests). */
  get busyHosts(): number {
    return this.queues.size;
  }
}
