/**
 * The watch scheduler every working process runs (serve, worker, mcp): at each tick it takes the
 * check of the due watches nobody holds, through a lease in the watch's record (an atomic update
 * of the shared store: SQLite's transaction, Redis's lock), renews it while the check runs, and
 * hands it back with the next check due an interval later. A process killed mid-check stops
 * renewing; once the lease expires another process takes the check and resumes what was left.
 */
import { EventEmitter } from 'node:events';
import { leaseLive, type Lease } from '../jobs/record.js';
import { toGleanerError } from '../errors.js';
import { CheckLost, WatchCheck, type CheckDeps } from './check.js';
import type { WatchRecord } from './record.js';

export interface SchedulerOptions {
  processId: string;
  leaseMs: number;
  /** How often due watches are looked for. */
  tickMs: number;
  /** Checks this process runs at once. */
  concurrency: number;
}

export class WatchScheduler {
  /** Emits `checked` (watchId) after every check this process ran, for tests and logs. */
  readonly events = new EventEmitter();
  private readonly running = new Map<string, AbortController>();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private closed = false;

  constructor(
    private readonly deps: CheckDeps,
    private readonly options: SchedulerOptions,
  ) {
    this.events.setMaxListeners(0);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
    void this.tick();
  }

  /** Stops taking checks; running ones are aborted (their leases expire and another process resumes them). */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const controller of this.running.values()) controller.abort();
  }

  private lease(): Lease {
    return { owner: this.options.processId, expiresAt: Date.now() + this.options.leaseMs };
  }

  async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      const { watches } = this.deps;
      for (const id of await watches.active()) {
        if (this.running.size >= this.options.concurrency || this.closed) break;
        if (this.running.has(id)) continue;
        const watch = await watches.record(id);
        if (!watch || (watch.status !== 'active' && watch.pending.length === 0 && !leaseLive(watch.lease))) {
          await watches.unlistActive(id);
          continue;
        }
        if ((watch.status === 'active' && watch.nextCheckAt > Date.now()) || leaseLive(watch.lease)) continue;
        const held = await watches.claim(id, this.lease());
        if (held) void this.check(held.id, held);
      }
    } catch (error) {
      this.deps.log.warn({ err: error }, 'watch scheduler tick failed');
    } finally {
      this.ticking = false;
    }
  }

  private async check(id: string, watch: WatchRecord): Promise<void> {
    const controller = new AbortController();
    this.running.set(id, controller);
    const beat = setInterval(() => {
      void this.deps.watches.renew(id, this.lease()).then((still) => {
        if (!still) controller.abort(new CheckLost(`watch ${id} lost`));
      }, () => undefined);
    }, Math.max(50, Math.min(this.options.leaseMs / 3, 2_000)));
    beat.unref();
    try {
      this.deps.log.info({ watchId: id, check: watch.checks + 1 }, 'watch check started');
      await new WatchCheck(this.deps, watch, () => this.lease(), controller.signal).run();
    } catch (error) {
      if (error instanceof CheckLost || controller.signal.aborted) this.deps.log.warn({ watchId: id }, 'watch check taken from this process; left to the holder');
      else this.deps.log.warn({ watchId: id, err: toGleanerError(error).message }, 'watch check failed; tried again at the next');
    } finally {
      clearInterval(beat);
      this.running.delete(id);
      // A closing process leaves its lease to expire; otherwise the next check is due an interval from now.
      if (!this.closed) await this.deps.watches.finishCheck(id, this.options.processId).catch(() => undefined);
      this.events.emit('checked', id);
    }
  }
}
