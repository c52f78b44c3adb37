/**
 * API keys and the accounts behind them. A key is random, shown once at creation, and stored only
 * as its SHA-256 hash. The account record carries the key state (plan, revocation); credit usage
 * lives apart in the store's ledger, so a charge never rewrites what `keys revoke` wrote.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../store/store.js';
import { GleanerError } from '../errors.js';
import { PLAN_NAMES, PLANS, type PlanName } from './plans.js';
import { creditPeriod, nextReset, systemClock, type Clock } from './clock.js';
import { beat, HEARTBEAT_EVERY_MS, newOwnerId, ownerGone } from './owners.js';
import { UsageLog } from './usage.js';
import type { AccountRole } from './roles.js';

export interface AccountRecord {
  id: string;
  name: string;
  plan: PlanName;
  keyHash: string;
  /** The first characters of the key, so a person can tell keys apart in a list. */
  keyPrefix: string;
  /** A custom monthly allowance; absent means the plan's. null means unlimited. */
  monthlyCredits?: number | null;
  createdAt: string;
  revokedAt?: string;
  /** `owner` manages keys and plans in the console (roles.ts); absent on records older than roles. */
  role?: AccountRole;
}

export interface Balance {
  /** null when the allowance is unlimited. */
  remaining: number | null;
  allowance: number | null;
  used: number;
  resetsAt: Date;
}

/**
 * A reservation of credits for one call, settled to the actual cost (or released) afterwards.
 * It lives in the ledger under its id with its owner process, so a crash gives it back (owners.ts).
 */
export interface Reservation {
  id: string;
  accountId: string;
  period: string;
  amount: number;
}

const INDEX_KEY = 'accounts:index';
/** Each plan's monthly credits, sent with every ledger step (the store reads the record's plan itself). */
const PLAN_CREDITS = Object.fromEntries(PLAN_NAMES.map((name) => [name, PLANS[name].monthlyCredits]));
const accountKey = (id: string) => `account:${id}`;
const hashKey = (hash: string) => `keyhash:${hash}`;

/** A request that carries no key, on REST or over HTTP MCP. */
export function missingApiKey(): GleanerError {
  return new GleanerError('UNAUTHORIZED', 'Missing API key: send it in the x-api-key header or as Authorization: Bearer <key>.');
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export class Accounts {
  /** This process, as the owner of the reservations it takes. */
  readonly owner = newOwnerId();
  private heartbeat?: NodeJS.Timeout;
  private sweeping?: Promise<number>;
  private lastSweep = 0;
  /** Each key's recent calls and daily usage, written by the gate, read by the console. */
  readonly usage: UsageLog;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {
    this.usage = new UsageLog(store, clock);
  }

  /**
   * Starts this process's heartbeat and the sweep that returns the credits of calls whose process
   * died (kill -9, power loss). A server calls it; a one-shot CLI command does not need it.
   */
  async start(): Promise<void> {
    await beat(this.store, this.owner);
    await this.sweep();
    this.heartbeat = setInterval(() => {
      void beat(this.store, this.owner)
        .then(() => this.sweep())
        .catch(() => undefined);
    }, HEARTBEAT_EVERY_MS);
    this.heartbeat.unref();
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
  }

  /** A sweep shared by the calls that need one now, at most one a second (a refused burst needs one, not 900). */
  private sweepSoon(): Promise<number> {
    if (this.sweeping) return this.sweeping;
    if (Date.now() - this.lastSweep < 1_000) return Promise.resolve(0);
    this.lastSweep = Date.now();
    this.sweeping = this.sweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Returns the reservations of owners that are gone; how many credits came back. */
  async sweep(): Promise<number> {
    let returned = 0;
    const gone = new Map<string, boolean>();
    for (const held of await this.store.ledger.reservations()) {
      if (held.owner === this.owner) continue;
      if (!gone.has(held.owner)) gone.set(held.owner, await ownerGone(this.store, held.owner));
      if (!gone.get(held.owner)) continue;
      const settled = await this.store.ledger.settle({ ...this.ref(held.account), reservationId: held.id, period: creditPeriod(this.clock()), actual: 0 });
      if (settled.found) returned += held.amount;
    }
    return returned;
  }

  /** Creates an account and returns its key: the only time the key exists outside the caller. */
  async create(options: { plan: PlanName; name?: string; monthlyCredits?: number | null; role?: AccountRole }): Promise<{ account: AccountRecord; apiKey: string }> {
    const apiKey = `gl_${randomBytes(24).toString('base64url')}`;
    const now = this.clock();
    const account: AccountRecord = {
      id: `acct_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
      name: options.name ?? '',
      plan: options.plan,
      keyHash: hashApiKey(apiKey),
      keyPrefix: apiKey.slice(0, 7),
      ...(options.monthlyCredits !== undefined ? { monthlyCredits: options.monthlyCredits } : {}),
      createdAt: now.toISOString(),
      role: options.role ?? 'member',
    };
    await this.store.set(accountKey(account.id), account);
    await this.store.set(hashKey(account.keyHash), account.id);
    await this.store.update<string[], void>(INDEX_KEY, (ids = []) => ({ value: [...ids, account.id], result: undefined }));
    // Read back: a store that silently dropped the writes must not hand out a key that does not exist.
    if ((await this.store.get<string>(hashKey(account.keyHash))) !== account.id) {
      throw new GleanerError('STORE_UNAVAILABLE', `The store ${this.store.location} did not keep the new key.`);
    }
    return { account, apiKey };
  }

  async list(): Promise<AccountRecord[]> {
    const ids = (await this.store.get<string[]>(INDEX_KEY)) ?? [];
    const accounts = await Promise.all(ids.map((id) => this.store.get<AccountRecord>(accountKey(id))));
    return accounts.filter((a): a is AccountRecord => a !== undefined);
  }

  /** True when at least one usable (unrevoked) key exists. */
  async hasActiveKeys(): Promise<boolean> {
    return (await this.list()).some((a) => !a.revokedAt);
  }

  async get(id: string): Promise<AccountRecord> {
    const account = await this.store.get<AccountRecord>(accountKey(id));
    if (!account) throw new GleanerError('NOT_FOUND', `No key with id "${id}".`);
    return account;
  }

  /** The account of a presented key, or UNAUTHORIZED. */
  async authenticate(apiKey: string | undefined): Promise<AccountRecord> {
    if (!apiKey) throw missingApiKey();
    const account = await this.store.getThrough<AccountRecord>(hashKey(hashApiKey(apiKey)), accountKey);
    if (!account || account.revokedAt) throw new GleanerError('UNAUTHORIZED', 'Invalid API key: it is unknown or has been revoked.');
    return account;
  }

  /** Key state changes touch only the account record, in one transaction: never the credit usage. */
  async revoke(id: string): Promise<AccountRecord> {
    return this.modify(id, (account) => ({ ...account, revokedAt: account.revokedAt ?? this.clock().toISOString() }));
  }

  async setPlan(id: string, plan: PlanName): Promise<AccountRecord> {
    return this.modify(id, (account) => ({ ...account, plan }));
  }

  async balance(account: AccountRecord): Promise<Balance> {
    const { used, record } = await this.store.guard(() => this.store.ledger.usage(this.ref(account.id), creditPeriod(this.clock())));
    return this.balanceOf(record ? (JSON.parse(record) as AccountRecord) : account, used);
  }

  /**
   * Takes `amount` credits from the balance, atomically in the store: concurrent reservations on one
   * account, from any number of processes, can never together take more than it holds.
   * With `into`, the credits are added to that reservation. CREDITS_EXHAUSTED when they cannot be covered.
   */
  async reserve(accountId: string, amount: number, into?: Reservation): Promise<{ reservation: Reservation; balance: Balance }> {
    const period = into?.period ?? creditPeriod(this.clock());
    const reservationId = into?.id ?? randomUUID();
    const attempt = async () => {
      try {
        return await this.store.guard(() => this.store.ledger.reserve({ ...this.ref(accountId), period, amount, reservationId, owner: this.owner }));
      } catch (error) {
        // A reservation that timed out may still run when the store wakes up: the release sent after
        // it on the same connection undoes it then (settling an unknown reservation does nothing).
        if (!into) void this.store.ledger.settle({ ...this.ref(accountId), reservationId, period, actual: 0 }).catch(() => undefined);
        throw error;
      }
    };
    let outcome = await attempt();
    // Credits held by a process that died may be what is missing: return them and try once more.
    if (!outcome.ok && outcome.record && (await this.sweepSoon()) > 0) outcome = await attempt();
    if (!outcome.record) throw new GleanerError('UNAUTHORIZED', 'The account of this key no longer exists.');
    const balance = this.balanceOf(JSON.parse(outcome.record) as AccountRecord, outcome.used);
    if (!outcome.ok) {
      throw new GleanerError(
        'CREDITS_EXHAUSTED',
        `Not enough credits: this request needs ${amount} and ${balance.remaining} remain this month. The allowance resets on ${nextReset(this.clock()).toISOString()}.`,
      );
    }
    return { reservation: { id: reservationId, accountId, period, amount: (into?.amount ?? 0) + amount }, balance };
  }

  /**
   * Settles a reservation to the actual cost: refunds what was over-reserved, or charges the
   * difference, never past the remaining balance. Returns what was charged in all and the balance.
   * Settling twice, or after the sweep returned it, charges nothing more.
   */
  async settle(reservation: Reservation, actual: number): Promise<{ charged: number; balance: Balance }> {
    const outcome = await this.store.guard(() =>
      this.store.ledger.settle({ ...this.ref(reservation.accountId), reservationId: reservation.id, period: creditPeriod(this.clock()), actual }),
    );
    const balance = outcome.record
      ? this.balanceOf(JSON.parse(outcome.record) as AccountRecord, outcome.used)
      : { remaining: 0, allowance: 0, used: 0, resetsAt: nextReset(this.clock()) };
    return { charged: outcome.charged, balance };
  }

  /**
   * Closes a reservation charged exactly as reserved: the credits are already counted in the usage,
   * so this only removes the reservation's row. Resolves once that is durable: a reply sent before
   * it would be a charge the sweep returns should the process die in the next milliseconds. On
   * SQLite it shares the group commit of the charges that arrive meanwhile.
   * The caller answers with the balance it got when reserving, which this does not change.
   */
  async keep(reservation: Reservation): Promise<void> {
    await this.store.guard(() => this.store.ledger.keep(reservation.id));
  }

  /** Gives a whole reservation back (the work failed). */
  async release(reservation: Reservation): Promise<Balance> {
    return (await this.settle(reservation, 0)).balance;
  }

  /**
   * Makes this process the owner of a reservation taken by another (a job resumed here), so it is
   * not returned when that process goes. False when it was already returned: the work must reserve again.
   */
  async adopt(reservation: Reservation): Promise<boolean> {
    return this.store.guard(() => this.store.ledger.adopt(reservation.id, this.owner));
  }

  private async modify(id: string, change: (account: AccountRecord) => AccountRecord): Promise<AccountRecord> {
    return this.store.update<AccountRecord, AccountRecord>(accountKey(id), (account) => {
      if (!account) throw new GleanerError('NOT_FOUND', `No key with id "${id}".`);
      const updated = change(account);
      return { value: updated, result: updated };
    });
  }

  private ref(accountId: string) {
    return { account: accountId, recordKey: accountKey(accountId), planCredits: PLAN_CREDITS };
  }

  private allowanceOf(account: AccountRecord): number | null {
    return account.monthlyCredits !== undefined ? account.monthlyCredits : PLANS[account.plan].monthlyCredits;
  }

  private balanceOf(account: AccountRecord, used: number): Balance {
    const allowance = this.allowanceOf(account);
    return {
      allowance,
      used,
      remaining: allowance === null ? null : Math.max(0, allowance - used),
      resetsAt: nextReset(this.clock()),
    };
  }
}
