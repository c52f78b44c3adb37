/**
 * What the store keeps for a watch: the watch itself (owner, source, delivery, interval, lease),
 * one record per new item (its progress, its event, its charge, its webhook), and an index from
 * event numbers to item records so events read in order. See docs/watches.md.
 */
import { createHash } from 'node:crypto';
import type { Lease } from '../jobs/record.js';
import type { Reservation } from '../accounts/accounts.js';
import type { ErrorCode } from '../errors.js';

export type WatchSourceKind = 'channel' | 'playlist' | 'search' | 'feed';

export interface WatchSource {
  kind: WatchSourceKind;
  /** A channel id, handle or URL; a playlist id or URL; a search query; a feed URL. */
  value: string;
}

export interface WatchRecord {
  id: string;
  ownerId: string;
  source: WatchSource;
  webhookUrl: string | null;
  intervalSeconds: number;
  itemsPerCheck: number;
  lang: string | null;
  status: 'active' | 'stopped';
  stoppedReason: { code: ErrorCode | 'DELETED'; message: string } | null;
  createdAt: string;
  /** False until the first check recorded what the source already held (the baseline). */
  baselined: boolean;
  /** Epoch ms of the next check. */
  nextCheckAt: number;
  lastCheckAt: string | null;
  checks: number;
  /** The process checking it now (one at a time, across every process sharing the store). */
  lease: Lease | null;
  /**
   * Digests (seenDigest) of the item ids already seen (the baseline and every item handled since), newest
   * last, capped: a fixed size each, so the record stays small whatever a feed puts in its guids.
   * Records written before digests hold the ids themselves; both are recognised.
   */
  seen: string[];
  /** Event numbers handed out so far (the last event's number). */
  eventCount: number;
  /** Items whose event is recorded but not yet finished (charge settled, webhook delivered): resumed first by the next check. */
  pending: string[];
}

export type WatchEventType = 'watch.baseline' | 'watch.upload' | 'watch.item_failed' | 'watch.stopped';

export interface WatchEvent {
  eventId: string;
  seq: number;
  type: WatchEventType;
  watchId: string;
  createdAt: string;
  /** The new item (upload, failed item). */
  item?: { id: string; url: string };
  transcript?: unknown;
  creditsUsed?: number;
  /** Why an item failed or the watch stopped. */
  error?: { code: string; message: string };
  /** How many items the baseline recorded. */
  baselineItems?: number;
}

/** One new item's way through a check; every step is recorded before the next, so a takeover resumes it. */
export interface ItemRecord {
  itemId: string;
  url: string;
  state: 'transcribing' | 'recorded' | 'done';
  /** Credits held for its transcript while it is made (returned by the sweep if the holder dies). */
  reservation: Reservation | null;
  /** Transcript attempts that failed on a passing upstream error. */
  failures: number;
  event: WatchEvent | null;
  /** `holder`: the process delivering it now (deliveries.ts), so two never attempt it at once. */
  webhook: { deliveryId: string; attempts: number; state: 'pending' | 'delivered' | 'abandoned'; holder?: Lease | null } | null;
}

export const watchKey = (id: string) => `watch:${id}`;
export const ownerWatchesKey = (ownerId: string) => `watches:of:${ownerId}`;
export const ACTIVE_WATCHES = 'watches:active';
/** Item ids can be long feed URLs: a hash keeps the key bounded. */
export const itemKey = (watchId: string, itemId: string) => `watch:${watchId}:item:${createHash('sha256').update(itemId).digest('hex').slice(0, 32)}`;
export const eventIndexKey = (watchId: string, seq: number) => `watch:${watchId}:event:${seq}`;

/** Events (and the item records holding them) are kept this long. */
export const EVENT_TTL_MS = 30 * 24 * 3600 * 1000;
/** Seen item ids kept per watch (far more than one listing holds, so a listing never looks new again). */
export const SEEN_CAP = 2_000;
/** A seen id as kept: 128 bits of its SHA-256, so 2,000 of them are about 50 KB whatever the ids' size. */
export const seenDigest = (itemId: string) => `#${createHash('sha256').update(itemId).digest('base64url').slice(0, 22)}`;
/** True when `itemId` is among `seen` (as a digest, or as itself in a record from before digests). */
export const wasSeen = (seen: ReadonlySet<string>, itemId: string) => seen.has(seenDigest(itemId)) || seen.has(itemId);
/** Items listed per check: the window new items are looked for in. */
export const LISTING_WINDOW = 50;
/** A transcript that keeps failing on passing upstream errors is given up after this many checks. */
export const MAX_ITEM_FAILURES = 3;

/** What a caller sees of a watch. */
export function publicWatch(watch: WatchRecord) {
  return {
    watchId: watch.id,
    source: watch.source,
    webhookUrl: watch.webhookUrl,
    intervalSeconds: watch.intervalSeconds,
    itemsPerCheck: watch.itemsPerCheck,
    lang: watch.lang,
    status: watch.status,
    stoppedReason: watch.stoppedReason,
    createdAt: watch.createdAt,
    lastCheckAt: watch.lastCheckAt,
    nextCheckAt: watch.status === 'active' ? new Date(watch.nextCheckAt).toISOString() : null,
    checks: watch.checks,
    events: watch.eventCount,
  };
}
