/**
 * One check of one watch, by the process holding its lease: finish what a previous holder left
 * (pending events), stop when the key has no credits, list the source, record the baseline on the
 * first check, then transcribe, record, charge and deliver each new item, oldest first, at most
 * itemsPerCheck.
 *
 * Once and only once: an item's progress is written in its own record before each next step
 * (transcribing with its credit reservation -> recorded with its event -> done), and its id joins
 * the watch's seen ones when it is done. A holder that dies mid-way leaves a record the next holder
 * resumes: a transcript made but not recorded is made again (its credits were returned with the
 * dead process's reservation), a recorded one is charged (settling twice charges once) and
 * delivered with the same delivery id, which a receiver uses to drop a repeat.
 */
import type { Accounts, Reservation } from '../accounts/accounts.js';
import type { Store } from '../store/store.js';
import type { HttpClient } from '../net/http.js';
import type { Logger } from '../log.js';
import type { Config } from '../config.js';
import type { SpeechToText } from '../ai/stt.js';
import type { ChatModel } from '../ai/chat.js';
import { GleanerError, toGleanerError, type ErrorCode } from '../errors.js';
import { sourceFor } from '../sources/registry.js';
import { CAPTION_CREDITS, transcriptCredits } from '../media/credits.js';
import type { Lease } from '../jobs/record.js';
import { listSource } from './listing.js';
import type { WatchDeliveries } from './deliveries.js';
import type { FeedItem } from './feed.js';
import { MAX_ITEM_FAILURES, wasSeen, type ItemRecord, type WatchEvent, type WatchRecord } from './record.js';
import type { WatchStore } from './watches.js';

export interface CheckDeps {
  watches: WatchStore;
  store: Store;
  accounts: Accounts;
  http: HttpClient;
  config: Config;
  log: Logger;
  stt?: SpeechToText;
  chat?: ChatModel;
  secret: () => Promise<string>;
  /** Backoff base of webhook retries (tests shorten it). */
  webhookDelayMs?: number;
}

/** Upstream failures that may pass: the item is tried again at the next check (up to MAX_ITEM_FAILURES). */
const PASSING: ErrorCode[] = ['UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'UPSTREAM_BLOCKED', 'UPSTREAM_ERROR', 'SERVER_BUSY', 'STORE_UNAVAILABLE', 'INTERNAL_ERROR'];
/** Listing failures that will not pass: the watch stops, saying why. */
const FINAL_LISTING: ErrorCode[] = ['CONTENT_NOT_FOUND', 'CONTENT_UNAVAILABLE', 'UNSUPPORTED_CONTENT', 'URL_NOT_ALLOWED', 'INVALID_REQUEST'];

const BASELINE = 'baseline';
const STOPPED = 'stopped';

/** The check was taken from this process (the watch was deleted, stopped, or its lease expired). */
export class CheckLost extends Error {}

export class WatchCheck {
  private readonly owner: string;

  constructor(
    private readonly deps: CheckDeps,
    private watch: WatchRecord,
    private readonly lease: () => Lease,
    private readonly signal: AbortSignal,
    private readonly deliveries: WatchDeliveries,
  ) {
    this.owner = lease().owner;
  }

  async run(): Promise<void> {
    const { watches, accounts, log } = this.deps;
    for (const itemId of this.watch.pending) await this.finish(itemId);
    if (this.watch.status !== 'active') return;

    const account = await accounts.get(this.watch.ownerId).catch(() => undefined);
    if (!account || account.revokedAt) return this.halt('UNAUTHORIZED', 'The key that made this watch was revoked or deleted.');
    const balance = await accounts.balance(account);
    if (balance.remaining !== null && balance.remaining <= 0) {
      return this.halt('CREDITS_EXHAUSTED', `The key has no credits left (it resets on ${balance.resetsAt.toISOString()}); the watch stopped. Create it again once credits are back.`);
    }

    let items: FeedItem[];
    try {
      items = await listSource(this.deps.http, this.watch.source, log, this.signal);
    } catch (error) {
      const failure = toGleanerError(error);
      if (FINAL_LISTING.includes(failure.code)) return this.halt(failure.code, `The watched ${this.watch.source.kind} cannot be read: ${failure.message}`);
      log.warn({ watchId: this.watch.id, err: failure.message, code: failure.code }, 'watch listing failed; tried again at the next check');
      return;
    }

    if (!this.watch.baselined) {
      await this.record(BASELINE, '', { type: 'watch.baseline', baselineItems: items.length });
      await watches.setBaseline(this.watch.id, this.owner, items.map((item) => item.id));
      await this.finish(BASELINE);
      log.info({ watchId: this.watch.id, items: items.length }, 'watch baseline recorded');
      return;
    }

    const seen = new Set(this.watch.seen);
    const fresh = items.filter((item) => !wasSeen(seen, item.id)).reverse().slice(0, this.watch.itemsPerCheck);
    for (const item of fresh) {
      const outcome = await this.handle(item);
      if (outcome) return this.halt(outcome.code, outcome.message);
    }
  }

  /** Holds the watch still? Throws CheckLost when not, so nothing is recorded or charged by a process that lost it. */
  private async confirm(): Promise<void> {
    const held = await this.deps.watches.renew(this.watch.id, this.lease());
    if (!held) throw new CheckLost(`watch ${this.watch.id} is no longer held by this process`);
    this.watch = held;
  }

  /** One new item: transcribed and charged as the transcript operation charges, recorded, delivered. A stop reason when credits ran out. */
  private async handle(item: FeedItem): Promise<{ code: ErrorCode; message: string } | undefined> {
    const { watches, accounts, log } = this.deps;
    let record: ItemRecord = (await watches.item(this.watch.id, item.id)) ?? { itemId: item.id, url: item.url, state: 'transcribing', reservation: null, failures: 0, event: null, webhook: null };
    if (record.state !== 'transcribing') return void (await this.finish(item.id));
    await this.confirm();
    // A reservation left by a holder that died is adopted when it still stands, else taken again.
    let reservation: Reservation | null = record.reservation && (await accounts.adopt(record.reservation)) ? record.reservation : null;
    const hold = async (amount: number) => {
      ({ reservation } = await accounts.reserve(this.watch.ownerId, amount, reservation ?? undefined));
      record = { ...record, reservation };
      await watches.saveItem(this.watch.id, record);
    };
    try {
      if (!reservation) await hold(CAPTION_CREDITS);
    } catch (error) {
      const failure = toGleanerError(error);
      if (failure.code === 'CREDITS_EXHAUSTED') return { code: failure.code, message: `No credits left for the transcript of ${item.url}: ${failure.message}` };
      throw error;
    }
    let transcript;
    try {
      const url = new URL(item.url);
      const source = sourceFor(url);
      if (!source?.transcript) throw new GleanerError('UNSUPPORTED_URL', `${item.url} is not a video or media file this server can transcribe.`);
      transcript = await source.transcript(url, { lang: this.watch.lang ?? undefined, timestamps: true }, {
        services: { config: this.deps.config, http: this.deps.http, stt: this.deps.stt, store: this.deps.store, chat: this.deps.chat },
        log: log.child({ watchId: this.watch.id }),
        signal: this.signal,
        reserveCredits: hold,
      });
    } catch (error) {
      if (reservation) await accounts.release(reservation);
      record = { ...record, reservation: null };
      const failure = toGleanerError(error);
      if (error instanceof CheckLost || this.signal.aborted) throw error;
      if (failure.code === 'CREDITS_EXHAUSTED') {
        await watches.saveItem(this.watch.id, record);
        return { code: failure.code, message: `No credits left for the transcript of ${item.url}: ${failure.message}` };
      }
      if (PASSING.includes(failure.code) && record.failures + 1 < MAX_ITEM_FAILURES) {
        await watches.saveItem(this.watch.id, { ...record, failures: record.failures + 1 });
        log.warn({ watchId: this.watch.id, item: item.id, code: failure.code }, 'watch item failed; tried again at the next check');
        return undefined;
      }
      await watches.saveItem(this.watch.id, record);
      await this.record(item.id, item.url, { type: 'watch.item_failed', item: { id: item.id, url: item.url }, error: { code: failure.code, message: failure.message } });
      await this.finish(item.id);
      return undefined;
    }
    // Charged as the transcript operation settles, never past what was held.
    const credits = Math.min(transcriptCredits(transcript), reservation!.amount);
    try {
      await this.record(item.id, item.url, { type: 'watch.upload', item: { id: item.id, url: item.url }, transcript, creditsUsed: credits }, record.reservation);
    } catch (error) {
      // Lost before recording (deleted, or taken over): the credits held go back rather than stay held by a live process.
      if (error instanceof CheckLost && reservation) await accounts.release(reservation).catch(() => undefined);
      throw error;
    }
    await this.finish(item.id, credits);
    return undefined;
  }

  /** Records an item's event under the next number (once: an item already recorded keeps its event). */
  private async record(itemId: string, url: string, event: Omit<WatchEvent, 'eventId' | 'seq' | 'watchId' | 'createdAt'>, reservation: Reservation | null = null): Promise<void> {
    const { watches } = this.deps;
    const existing = await watches.item(this.watch.id, itemId);
    if (existing && existing.state !== 'transcribing') return;
    const seq = await watches.nextSeq(this.watch.id, this.owner, itemId);
    if (seq === undefined) throw new CheckLost(`watch ${this.watch.id} is no longer held by this process`);
    const eventId = `wev_${this.watch.id.slice(4)}_${seq}`;
    const full: WatchEvent = { eventId, seq, watchId: this.watch.id, createdAt: new Date().toISOString(), ...event };
    const item: ItemRecord = {
      itemId,
      url,
      state: 'recorded',
      reservation,
      failures: existing?.failures ?? 0,
      event: full,
      webhook: this.watch.webhookUrl ? { deliveryId: `dlv_${eventId}`, attempts: 0, state: 'pending' } : null,
    };
    await watches.saveItem(this.watch.id, item);
    await watches.indexEvent(this.watch.id, item);
  }

  /** Settles a recorded item's charge and hands its webhook to the deliveries (which mark it done), or marks it done. */
  private async finish(itemId: string, credits?: number): Promise<void> {
    const { watches, accounts } = this.deps;
    let item = await watches.item(this.watch.id, itemId);
    if (!item || item.state === 'transcribing' || !item.event) return;
    if (item.state === 'recorded') {
      await watches.indexEvent(this.watch.id, item);
      if (item.reservation) {
        const actual = credits ?? item.event.creditsUsed ?? CAPTION_CREDITS;
        const { charged } = await accounts.settle(item.reservation, actual);
        accounts.usage.record({ accountId: this.watch.ownerId, operation: 'watch', outcome: 'ok', credits: charged, counts: false, failed: false, requestId: item.event.eventId });
        item = { ...item, reservation: null };
        await watches.saveItem(this.watch.id, item);
      }
      // The webhook is delivered apart (deliveries.ts), holding no check slot; the delivery finishes the item.
      if (item.webhook?.state === 'pending' && this.watch.webhookUrl) {
        this.deliveries.enqueue({ watchId: this.watch.id, ownerId: this.watch.ownerId, itemId, listed: itemId !== BASELINE && itemId !== STOPPED });
        return;
      }
      item = { ...item, state: 'done' };
      await watches.saveItem(this.watch.id, item);
    }
    await watches.settleItem(this.watch.id, this.owner, itemId, itemId !== BASELINE && itemId !== STOPPED);
  }

  /** Stops the watch with an event saying why (delivered like any other). */
  private async halt(code: ErrorCode | 'UNAUTHORIZED', message: string): Promise<void> {
    // Recorded, then stopped, then delivered: whoever receives the event finds the watch stopped.
    await this.record(STOPPED, '', { type: 'watch.stopped', error: { code, message } });
    await this.deps.watches.stop(this.watch.id, { code, message });
    await this.finish(STOPPED);
    this.deps.log.info({ watchId: this.watch.id, code }, 'watch stopped');
  }
}
