/**
 * Watch webhooks, delivered apart from the checks: a check records an event, settles its charge and
 * hands the webhook here, then goes on (and lets go of its check slot). A receiver that never answers
 * costs its own key's delivery slot, never a check: at most one delivery per key is in flight, keys take
 * turns for the slots, and a key's queue is bounded (what does not fit stays pending in the store and is
 * handed here again by the watch's next check).
 *
 * Once across processes: the item record names the process delivering it (`webhook.holder`, renewed before
 * each attempt and long enough for the backoff before the next), so a delivery another live process holds
 * is left to it; one whose holder died is taken over with the same delivery id and attempt count.
 */
import { deliverWebhook } from '../jobs/webhook.js';
import { leaseLive } from '../jobs/record.js';
import type { HttpClient } from '../net/http.js';
import type { Logger } from '../log.js';
import type { WatchStore } from './watches.js';
import type { ItemRecord } from './record.js';

export interface DeliveryDeps {
  watches: WatchStore;
  http: HttpClient;
  log: Logger;
  secret: () => Promise<string>;
  /** Backoff base of webhook retries (tests shorten it). */
  webhookDelayMs?: number;
}

interface Delivery {
  watchId: string;
  ownerId: string;
  itemId: string;
  /** Counted (not seen) ids: BASELINE and STOPPED are events, not listed items. */
  listed: boolean;
}

/** Deliveries queued per key: more wait in the store for the watch's next check. */
export const QUEUED_PER_KEY = 20;
/** Deliveries in flight at once in this process (one per key). */
export const DELIVERY_SLOTS = 16;
/** How long a holder keeps a delivery between attempts: one attempt (15 s) plus the longest backoff, with room. */
const HOLD_MS = 60_000;

export class WatchDeliveries {
  private readonly queues = new Map<string, Delivery[]>();
  /** Keys with a delivery in flight. */
  private readonly busy = new Set<string>();
  private readonly known = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly controller = new AbortController();
  /** Keys in the order they take turns. */
  private turn: string[] = [];

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly processId: string,
    /** Told when a delivery ended here (delivered, given up, or left to another process), for tests and logs. */
    private readonly onEnded: (watchId: string) => void = () => undefined,
  ) {}

  /** Queues the webhook of a recorded item; false when the key's queue is full or it is already queued here. */
  enqueue(delivery: Delivery): boolean {
    const id = `${delivery.watchId}\n${delivery.itemId}`;
    if (this.known.has(id) || this.controller.signal.aborted) return false;
    const queue = this.queues.get(delivery.ownerId) ?? [];
    if (queue.length >= QUEUED_PER_KEY) return false;
    queue.push(delivery);
    this.known.add(id);
    if (!this.queues.has(delivery.ownerId)) {
      this.queues.set(delivery.ownerId, queue);
      this.turn.push(delivery.ownerId);
    }
    this.pump();
    return true;
  }

  /** Stops: deliveries in flight end at their next step, and stay pending in the store for whoever resumes the watch. */
  async close(): Promise<void> {
    this.controller.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private pump(): void {
    while (this.busy.size < DELIVERY_SLOTS && !this.controller.signal.aborted) {
      const owner = this.turn.find((key) => !this.busy.has(key));
      if (!owner) return;
      const queue = this.queues.get(owner)!;
      const next = queue.shift()!;
      // The key goes to the back of the line; an empty queue leaves it.
      this.turn = this.turn.filter((key) => key !== owner);
      if (queue.length > 0) this.turn.push(owner);
      else this.queues.delete(owner);
      this.busy.add(owner);
      const running = this.deliver(next)
        .catch((error) => this.deps.log.warn({ watchId: next.watchId, err: (error as Error).message }, 'watch webhook delivery failed; tried again at the next check'))
        .finally(() => {
          this.busy.delete(owner);
          this.known.delete(`${next.watchId}\n${next.itemId}`);
          this.inFlight.delete(running);
          this.onEnded(next.watchId);
          this.pump();
        });
      this.inFlight.add(running);
    }
  }

  private async deliver(delivery: Delivery): Promise<void> {
    const { watches, log } = this.deps;
    const watch = await watches.record(delivery.watchId);
    const item = await watches.item(delivery.watchId, delivery.itemId);
    if (!watch || !item?.event || !item.webhook) return;
    if (item.webhook.state !== 'pending' || !watch.webhookUrl) return void (await this.settle(delivery, item));
    const event = item.event;
    let current: ItemRecord = item;
    const delivered = await deliverWebhook({
      http: this.deps.http,
      secret: await this.deps.secret(),
      url: watch.webhookUrl,
      log,
      id: item.webhook.deliveryId,
      attemptsMade: item.webhook.attempts,
      baseDelayMs: this.deps.webhookDelayMs,
      event: event.type,
      payload: event,
      signal: this.controller.signal,
      // Each attempt is counted before it is made, and only while no other live process holds the delivery.
      beforeAttempt: async (attempt) => {
        const held = await watches.holdDelivery(delivery.watchId, delivery.itemId, { owner: this.processId, expiresAt: Date.now() + HOLD_MS }, attempt);
        if (held) current = held;
        return held !== undefined;
      },
    });
    if (!delivered && this.controller.signal.aborted) return;
    const latest = await watches.item(delivery.watchId, delivery.itemId);
    // Left to another process that holds it (this one was stopped by its beforeAttempt).
    if (!delivered && latest?.webhook?.holder?.owner !== this.processId && leaseLive(latest?.webhook?.holder)) return;
    const finished: ItemRecord = { ...current, state: 'done', webhook: { ...current.webhook!, holder: null, state: delivered ? 'delivered' : 'abandoned' } };
    await watches.saveItem(delivery.watchId, finished);
    log.info({ watchId: delivery.watchId, eventId: event.eventId, type: event.type, item: event.item?.id, delivered }, 'watch event delivered');
    await this.settle(delivery, finished);
  }

  private async settle(delivery: Delivery, item: ItemRecord): Promise<void> {
    if (item.state !== 'done') await this.deps.watches.saveItem(delivery.watchId, { ...item, state: 'done' });
    await this.deps.watches.settleDelivered(delivery.watchId, delivery.itemId, delivery.listed);
  }
}
