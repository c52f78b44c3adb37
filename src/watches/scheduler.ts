/**
 * The watch scheduler every working process runs (serve, worker, mcp): at each tick it takes the
 * check of the due watches nobody holds, through a lease in the watch's record (an atomic update
 * of the shared store: SQLite's transaction, Redis's lock), renews it while the check runs, and
 * hands it back with the next check due an interval later. A process killed mid-check stops
 * renewing; once the lease expires another process takes the check and resumes what was left.
 *
 * Fair between keys: a key has at most one check running in this process, and the due watches of the
 * keys served least recently go first. Webhooks are not delivered in the check (deliveries.ts), so a
 * receiver that never answers holds no check slot.
 */
import { EventEmitter } from 'node:events';
import { leaseLive, type Lease } from '../jobs/record.js';
import { toGleanerError } from '../errors.js';
import { CheckLost, WatchCheck, type CheckDeps } from './check.js';
import type { WatchRecord } from './record.js';
import { WatchDeliveries } from './deliveries.js';

export interface SchedulerOptions {
  processId: string;
  leaseMs: number;
  /** How often due watches are looked for. */
  tickMs: number;
  /** Checks this process runs at once. */
  concurrency: number;
}

/** Due watches looked at per tick (the turn order is among these). */
const MAX_CANDIDATES = 200;
/** Keys remembered for the turn order (forgotten all at once past it: they start equal again). */
const MAX_SERVED = 10_000;

export class WatchScheduler {
  /** Emits `checked` (watchId) after every check this process ran, and `delivered` (watchId) after each webhook delivery ended here, for tests and logs. */
  readonly events = new EventEmitter();
  private readonly running = new Map<string, AbortController>();
  /** The key of each running check (one check per key at a time). */
  private readonly runningOwners = new Map<string, string>();
  /** When each key's last check started here: the least recently served key goes first. */
  private readonly served = new Map<string, number>();
  private readonly deliveries: WatchDeliveries;
  /** The checks this process is running, settled once each has ended (close waits for them). */
  private readonly ending = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private ticking = false;
  private closed = false;

  constructor(
    private readonly deps: CheckDeps,
    private readonly options: SchedulerOptions,
  ) {
    this.events.setMaxListeners(0);
    this.deliveries = new WatchDeliveries(deps, options.processId, (watchId) => this.events.emit('delivered', watchId));
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
    void this.tick();
  }

  /**
   * Stops taking checks; running ones are aborted (their leases expire and another process resumes them).
   * Resolves once they have ended: the store closes after this, and a check still writing to it could leave
   * its lock behind for the next process on the same file.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const controller of this.running.values()) controller.abort();
    await Promise.allSettled([...this.ending, this.deliveries.close()]);
  }

  private lease(): Lease {
    return { owner: this.options.processId, expiresAt: Date.now() + this.options.leaseMs };
  }

  async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    this.ticking = true;
    try {
      const { watches } = this.deps;
      if (this.running.size >= this.options.concurrency) return;
      const busy = new Set(this.runningOwners.values());
      const due: WatchRecord[] = [];
      for (const id of await watches.active()) {
        if (this.closed || due.length >= MAX_CANDIDATES) break;
        if (this.running.has(id)) continue;
        const watch = await watches.record(id);
        if (!watch || (watch.status !== 'active' && watch.pending.length === 0 && !leaseLive(watch.lease))) {
          await watches.unlistActive(id);
          continue;
        }
        if (watch.nextCheckAt > Date.now() || leaseLive(watch.lease) || busy.has(watch.ownerId)) continue;
        due.push(watch);
      }
      due.sort((a, b) => (this.served.get(a.ownerId) ?? 0) - (this.served.get(b.ownerId) ?? 0));
      for (const watch of due) {
        if (this.running.size >= this.options.concurrency || this.closed) break;
        if (busy.has(watch.ownerId)) continue;
        const held = await watches.claim(watch.id, this.lease());
        if (!held) continue;
        busy.add(held.ownerId);
        if (this.served.size >= MAX_SERVED) this.served.clear();
        this.served.set(held.ownerId, Date.now());
        const check = this.check(held.id, held);
        this.ending.add(check);
        void check.finally(() => this.ending.delete(check));
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
    this.runningOwners.set(id, watch.ownerId);
    const beat = setInterval(() => {
      void this.deps.watches.renew(id, this.lease()).then((still) => {
        if (!still) controller.abort(new CheckLost(`watch ${id} lost`));
      }, () => undefined);
    }, Math.max(50, Math.min(this.options.leaseMs / 3, 2_000)));
    beat.unref();
    try {
      this.deps.log.info({ watchId: id, check: watch.checks + 1 }, 'watch check started');
      await new WatchCheck(this.deps, watch, () => this.lease(), controller.signal, this.deliveries).run();
    } catch (error) {
      if (error instanceof CheckLost || controller.signal.aborted) this.deps.log.warn({ watchId: id }, 'watch check taken from this process; left to the holder');
      else this.deps.log.warn({ watchId: id, err: toGleanerError(error).message }, 'watch check failed; tried again at the next');
    } finally {
      clearInterval(beat);
      this.running.delete(id);
      this.runningOwners.delete(id);
      // A closing process leaves its lease to expire; otherwise the next check is due an interval from now.
      if (!this.closed) await this.deps.watches.finishCheck(id, this.options.processId).catch(() => undefined);
      this.events.emit('checked', id);
    }
  }
}
