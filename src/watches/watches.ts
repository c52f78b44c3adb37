/**
 * Watch records in the store: create (with its baseline), list, delete, read events, and the
 * atomic steps a check takes (claim and renew the lease, hand out event numbers, stop).
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store.js';
import { GleanerError } from '../errors.js';
import { leaseLive, type Lease } from '../jobs/record.js';
import {
  ACTIVE_WATCHES,
  EVENT_TTL_MS,
  eventIndexKey,
  itemKey,
  ownerWatchesKey,
  SEEN_CAP,
  seenDigest,
  watchKey,
  type ItemRecord,
  type WatchEvent,
  type WatchRecord,
  type WatchSource,
} from './record.js';

export interface NewWatch {
  ownerId: string;
  source: WatchSource;
  webhookUrl?: string;
  intervalSeconds: number;
  itemsPerCheck: number;
  lang?: string;
  /** Most watches this key may have (its plan's bound). */
  limit: number;
}

export class WatchStore {
  constructor(readonly store: Store) {}

  async create(options: NewWatch): Promise<WatchRecord> {
    const id = `wch_${randomUUID().replace(/-/g, '')}`;
    // Counted and added in one atomic step: concurrent creates cannot pass the bound together.
    await this.store.update<string[], void>(ownerWatchesKey(options.ownerId), (ids = []) => {
      if (ids.length >= options.limit) {
        throw new GleanerError('INVALID_REQUEST', `This key has ${ids.length} watches, the most its plan allows (${options.limit}); delete one with watch_delete first.`);
      }
      return { value: [...ids, id], result: undefined };
    });
    const now = Date.now();
    const watch: WatchRecord = {
      id,
      ownerId: options.ownerId,
      source: options.source,
      webhookUrl: options.webhookUrl ?? null,
      intervalSeconds: options.intervalSeconds,
      itemsPerCheck: options.itemsPerCheck,
      lang: options.lang ?? null,
      status: 'active',
      stoppedReason: null,
      createdAt: new Date(now).toISOString(),
      // The first check, at once, records what the source holds as the baseline.
      baselined: false,
      nextCheckAt: now,
      lastCheckAt: null,
      checks: 0,
      lease: null,
      seen: [],
      eventCount: 0,
      pending: [],
    };
    await this.store.set(watchKey(id), watch);
    await this.store.update<string[], void>(ACTIVE_WATCHES, (ids = []) => ({ value: [...ids, id], result: undefined }));
    return watch;
  }

  /** The watch if it exists and belongs to `ownerId`; NOT_FOUND otherwise. */
  async get(id: string, ownerId: string): Promise<WatchRecord> {
    const watch = await this.store.get<WatchRecord>(watchKey(id));
    if (!watch || watch.ownerId !== ownerId) throw new GleanerError('NOT_FOUND', `No watch with id "${id}" for this key.`);
    return watch;
  }

  async record(id: string): Promise<WatchRecord | undefined> {
    return this.store.get<WatchRecord>(watchKey(id));
  }

  async list(ownerId: string): Promise<WatchRecord[]> {
    const ids = (await this.store.get<string[]>(ownerWatchesKey(ownerId))) ?? [];
    const watches: WatchRecord[] = [];
    for (const id of ids) {
      const watch = await this.store.get<WatchRecord>(watchKey(id));
      if (watch && watch.ownerId === ownerId) watches.push(watch);
    }
    return watches;
  }

  /** Removes a watch: a check running on it loses its lease at its next step and stops. */
  async delete(id: string, ownerId: string): Promise<WatchRecord> {
    const watch = await this.get(id, ownerId);
    await this.store.delete(watchKey(id));
    await this.store.update<string[], void>(ownerWatchesKey(ownerId), (ids = []) => ({ value: ids.filter((x) => x !== id), result: undefined }));
    await this.unlistActive(id);
    return watch;
  }

  async active(): Promise<string[]> {
    return (await this.store.get<string[]>(ACTIVE_WATCHES)) ?? [];
  }

  async unlistActive(id: string): Promise<void> {
    await this.store.update<string[], void>(ACTIVE_WATCHES, (ids = []) => ({ value: ids.filter((x) => x !== id), result: undefined }));
  }

  /** Events after `cursor` (an event number), oldest first, at most `limit`. */
  async events(watch: WatchRecord, cursor: number, limit: number): Promise<{ events: WatchEvent[]; nextCursor: number; more: boolean }> {
    const events: WatchEvent[] = [];
    let seq = cursor;
    while (seq < watch.eventCount && events.length < limit) {
      seq += 1;
      const item = await this.store.getThrough<ItemRecord>(eventIndexKey(watch.id, seq), (key) => key);
      // An expired event (older than EVENT_TTL_MS) is skipped.
      if (item?.event && item.event.seq === seq) events.push(item.event);
    }
    return { events, nextCursor: seq, more: seq < watch.eventCount };
  }

  /** Takes the check of a due watch if nobody holds it: the record when this process now holds it. */
  async claim(id: string, lease: Lease, now = Date.now()): Promise<WatchRecord | undefined> {
    return this.store.update<WatchRecord, WatchRecord | undefined>(watchKey(id), (watch) => {
      // A stopped watch is taken only to deliver what its stopping check left pending (an interval apart, as checks).
      const wanted = watch && watch.nextCheckAt <= now && (watch.status === 'active' || watch.pending.length > 0);
      if (!watch || !wanted || leaseLive(watch.lease, now)) return { value: watch, result: undefined };
      const held = { ...watch, lease };
      return { value: held, result: held };
    });
  }

  /** Renews this process's lease; the record when still held, undefined when lost (deleted, taken over). */
  async renew(id: string, lease: Lease): Promise<WatchRecord | undefined> {
    return this.store.update<WatchRecord, WatchRecord | undefined>(watchKey(id), (watch) => {
      // A watch its own check stopped is still held until that check ends (its stop event is delivered under the lease).
      if (!watch || watch.lease?.owner !== lease.owner) return { value: watch, result: undefined };
      const held = { ...watch, lease };
      return { value: held, result: held };
    });
  }

  /** Ends a check this process held: the next one is due an interval from now. */
  async finishCheck(id: string, owner: string): Promise<void> {
    await this.store.update<WatchRecord, void>(watchKey(id), (watch) => {
      if (!watch || watch.lease?.owner !== owner) return { value: watch, result: undefined };
      const now = Date.now();
      return { value: { ...watch, lease: null, nextCheckAt: now + watch.intervalSeconds * 1000, lastCheckAt: new Date(now).toISOString(), checks: watch.checks + 1 }, result: undefined };
    });
  }

  /**
   * Hands out the next event number for an item and lists the item as pending, while `owner` holds
   * the watch; undefined when it lost it.
   */
  async nextSeq(id: string, owner: string, itemId: string): Promise<number | undefined> {
    return this.store.update<WatchRecord, number | undefined>(watchKey(id), (watch) => {
      if (!watch || watch.lease?.owner !== owner) return { value: watch, result: undefined };
      const pending = watch.pending.includes(itemId) ? watch.pending : [...watch.pending, itemId];
      return { value: { ...watch, eventCount: watch.eventCount + 1, pending }, result: watch.eventCount + 1 };
    });
  }

  /** An item is finished: no longer pending, and (a listed item) seen, so it is never handled again. */
  async settleItem(id: string, owner: string, itemId: string, seen: boolean): Promise<void> {
    await this.store.update<WatchRecord, void>(watchKey(id), (watch) => {
      if (!watch || watch.lease?.owner !== owner) return { value: watch, result: undefined };
      const next = { ...watch, pending: watch.pending.filter((x) => x !== itemId) };
      const digest = seenDigest(itemId);
      if (seen && !watch.seen.includes(digest)) next.seen = [...watch.seen, digest].slice(-SEEN_CAP);
      return { value: next, result: undefined };
    });
  }

  /**
   * A delivered (or given up) webhook's item is finished, whoever holds the check: no longer pending, and
   * (a listed item) seen. Needs no lease: it only takes the item out of what a check still has to do.
   */
  async settleDelivered(id: string, itemId: string, seen: boolean): Promise<void> {
    await this.store.update<WatchRecord, void>(watchKey(id), (watch) => {
      if (!watch) return { value: watch, result: undefined };
      const next = { ...watch, pending: watch.pending.filter((x) => x !== itemId) };
      const digest = seenDigest(itemId);
      if (seen && !watch.seen.includes(digest)) next.seen = [...watch.seen, digest].slice(-SEEN_CAP);
      return { value: next, result: undefined };
    });
  }

  /**
   * Takes (or keeps) the delivery of an item's webhook for `holder` and counts attempt `attempt`: the item
   * record when this process may make it; undefined when the watch is gone, the delivery ended, or another
   * live process holds it.
   */
  async holdDelivery(watchId: string, itemId: string, holder: Lease, attempt: number): Promise<ItemRecord | undefined> {
    if (!(await this.record(watchId))) return undefined;
    return this.store.update<ItemRecord, ItemRecord | undefined>(itemKey(watchId, itemId), (item) => {
      const webhook = item?.webhook;
      if (!item || !webhook || webhook.state !== 'pending') return { value: item, result: undefined };
      if (leaseLive(webhook.holder) && webhook.holder.owner !== holder.owner) return { value: item, result: undefined };
      const held: ItemRecord = { ...item, webhook: { ...webhook, holder, attempts: Math.max(webhook.attempts, attempt + 1) } };
      return { value: held, result: held };
    });
  }

  /** The first check's baseline: every id the source holds now is seen, none is delivered. */
  async setBaseline(id: string, owner: string, ids: string[]): Promise<void> {
    await this.store.update<WatchRecord, void>(watchKey(id), (watch) => {
      if (!watch || watch.lease?.owner !== owner) return { value: watch, result: undefined };
      return { value: { ...watch, baselined: true, seen: [...new Set([...watch.seen, ...ids.slice().reverse().map(seenDigest)])].slice(-SEEN_CAP) }, result: undefined };
    });
  }

  /** Stops a watch (no more checks); false when it was already stopped or is gone. */
  async stop(id: string, reason: NonNullable<WatchRecord['stoppedReason']>): Promise<boolean> {
    const stopped = await this.store.update<WatchRecord, boolean>(watchKey(id), (watch) => {
      if (!watch || watch.status !== 'active') return { value: watch, result: false };
      // The lease stays with the check that stopped it, which delivers the stop event and then lets go.
      return { value: { ...watch, status: 'stopped', stoppedReason: reason }, result: true };
    });
    // Left in the active list until its stop event is delivered (the scheduler unlists it then).
    return stopped;
  }

  async item(watchId: string, itemId: string): Promise<ItemRecord | undefined> {
    return this.store.get<ItemRecord>(itemKey(watchId, itemId));
  }

  async saveItem(watchId: string, item: ItemRecord): Promise<void> {
    await this.store.set(itemKey(watchId, item.itemId), item, EVENT_TTL_MS);
  }

  /** Makes an event readable under its number (idempotent: a takeover may write it again). */
  async indexEvent(watchId: string, item: ItemRecord): Promise<void> {
    if (item.event) await this.store.set(eventIndexKey(watchId, item.event.seq), itemKey(watchId, item.itemId), EVENT_TTL_MS);
  }
}
