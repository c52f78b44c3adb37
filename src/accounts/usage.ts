/**
 * A key's usage log, for the person who holds the key (the console): its recent calls and, per day
 * and operation, how many calls and credits. The gate writes it once per call and once per job end
 * (gate/observe.ts); nothing else does. It is a view for people, not the ledger: credits are decided
 * by the ledger (store/ledger.ts), and a log entry lost in a crash changes no balance.
 *
 * Bounded twice per key: the last RECENT_CALLS calls, and days (and calls) older than KEEP_DAYS are
 * dropped on every write; the record itself expires KEEP_DAYS after the key's last call. What a
 * caller can put in an entry is bounded too: operation names come from the table, codes from
 * errors.ts, ids are cut to ID_CHARS. (No store TTL: an update keeps the TTL the record was created
 * with, which would erase an active key's log a month after its first call; one record a key.)
 *
 * Writes are buffered per process and flushed every FLUSH_MS in one store update per key, so a
 * burst of calls costs the store one write a key, not one a call, and never delays a reply.
 */
import type { Store } from '../store/store.js';
import { systemClock, type Clock } from './clock.js';

export const RECENT_CALLS = 100;
export const KEEP_DAYS = 30;
const FLUSH_MS = 250;
const ID_CHARS = 64;
const DAY_MS = 86_400_000;

export interface UsageEntry {
  /** ISO time of the call (or of the job's end). */
  at: string;
  operation: string;
  /** `ok`, `job started`, `job completed`, `job cancelled`, or the error code of a refused or failed call. */
  outcome: string;
  /** Credits charged by this entry (a job's are charged when it ends). */
  credits: number;
  requestId?: string;
  jobId?: string;
}

export interface DayUsage {
  /** Calls that reached the gate (refused ones too); a job counts once, when started. */
  calls: number;
  failed: number;
  credits: number;
}

export interface UsageRecord {
  /** Newest last. */
  calls: UsageEntry[];
  /** UTC day (YYYY-MM-DD) -> operation -> figures. */
  days: Record<string, Record<string, DayUsage>>;
}

/** What the gate reports of one call or job end. */
export interface UsageEvent {
  accountId: string;
  operation: string;
  outcome: string;
  credits: number;
  /** True for a new call (counted in `calls`); false for a job's end, which only adds credits. */
  counts: boolean;
  failed: boolean;
  requestId?: string;
  jobId?: string;
}

// Not `usage:`: the Redis ledger keeps each account's credit usage under that name (store/redis-store.ts).
const usageKey = (accountId: string) => `usage-log:${accountId}`;
const dayOf = (time: Date) => time.toISOString().slice(0, 10);
const cut = (id: string | undefined) => (id === undefined ? undefined : id.slice(0, ID_CHARS));

function emptyRecord(): UsageRecord {
  return { calls: [], days: {} };
}

/** Adds one event to a record (a process's buffer, before it is merged into the stored record). */
export function addEvent(record: UsageRecord, event: UsageEvent, at: Date): void {
  const operations = (record.days[dayOf(at)] ??= {});
  const figures = (operations[event.operation] ??= { calls: 0, failed: 0, credits: 0 });
  if (event.counts) figures.calls += 1;
  if (event.failed) figures.failed += 1;
  figures.credits += event.credits;
  record.calls.push({
    at: at.toISOString(),
    operation: event.operation,
    outcome: event.outcome,
    credits: event.credits,
    ...(event.requestId ? { requestId: cut(event.requestId) } : {}),
    ...(event.jobId ? { jobId: cut(event.jobId) } : {}),
  });
  // Trimmed in halves, so a flood costs no more than a constant a call.
  if (record.calls.length > RECENT_CALLS * 2) record.calls.splice(0, record.calls.length - RECENT_CALLS);
}

/** `record` plus what `added` holds, past the bounds dropped; pure, so SQLite runs it inside one transaction. */
export function mergeUsage(record: UsageRecord, added: UsageRecord, now: Date): UsageRecord {
  const oldestDay = dayOf(new Date(now.getTime() - (KEEP_DAYS - 1) * DAY_MS));
  const days: UsageRecord['days'] = {};
  for (const source of [record.days, added.days]) {
    for (const [day, operations] of Object.entries(source)) {
      if (day < oldestDay) continue;
      const merged = (days[day] ??= {});
      for (const [operation, figures] of Object.entries(operations)) {
        const sum = merged[operation] ?? { calls: 0, failed: 0, credits: 0 };
        merged[operation] = { calls: sum.calls + figures.calls, failed: sum.failed + figures.failed, credits: sum.credits + figures.credits };
      }
    }
  }
  const oldestCall = new Date(now.getTime() - KEEP_DAYS * DAY_MS).toISOString();
  return { calls: [...record.calls, ...added.calls].filter((entry) => entry.at >= oldestCall).slice(-RECENT_CALLS), days };
}

export class UsageLog {
  /** Per account, what this process noted since its last flush: counted at once, so a flood's figures stay exact. */
  private pending = new Map<string, UsageRecord>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Notes one event; it reaches the store within FLUSH_MS (or at flush()). Never throws. */
  record(event: UsageEvent): void {
    let buffer = this.pending.get(event.accountId);
    if (!buffer) this.pending.set(event.accountId, (buffer = emptyRecord()));
    addEvent(buffer, event, this.clock());
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Writes what is buffered; resolves when it is in the store. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  async read(accountId: string): Promise<UsageRecord> {
    const record = (await this.store.get<UsageRecord>(usageKey(accountId))) ?? emptyRecord();
    // Pruned on read too, so a key idle for weeks shows no stale days.
    return mergeUsage(record, emptyRecord(), this.clock());
  }

  private async write(batch: Map<string, UsageRecord>): Promise<void> {
    for (const [accountId, added] of batch) {
      try {
        const now = this.clock();
        await this.store.update<UsageRecord, void>(usageKey(accountId), (current) => ({ value: mergeUsage(current ?? emptyRecord(), added, now), result: undefined }));
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
