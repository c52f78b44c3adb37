/**
 * API keys and the accounts behind them. A key is random, shown once at creation, and stored only
 * as its SHA-256 hash; the account record carries the plan and this month's credit usage.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../store/store.js';
import { GleanerError } from '../errors.js';
import { PLANS, type PlanName } from './plans.js';
import { creditPeriod, nextReset, systemClock, type Clock } from './clock.js';

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
  /** The credit period (UTC month) `used` belongs to. */
  period: string;
  used: number;
}

export interface Balance {
  /** null when the allowance is unlimited. */
  remaining: number | null;
  allowance: number | null;
  used: number;
  resetsAt: Date;
}

/** A reservation of credits for one call, settled to the actual cost (or released) afterwards. */
export interface Reservation {
  accountId: string;
  period: string;
  amount: number;
}

const INDEX_KEY = 'accounts:index';
const accountKey = (id: string) => `account:${id}`;
const hashKey = (hash: string) => `keyhash:${hash}`;

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export class Accounts {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Creates an account and returns its key: the only time the key exists outside the caller. */
  async create(options: { plan: PlanName; name?: string; monthlyCredits?: number | null }): Promise<{ account: AccountRecord; apiKey: string }> {
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
      period: creditPeriod(now),
      used: 0,
    };
    await this.store.set(accountKey(account.id), account);
    await this.store.set(hashKey(account.keyHash), account.id);
    await this.store.update<string[], void>(INDEX_KEY, (ids = []) => ({ value: [...ids, account.id], result: undefined }));
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
    if (!apiKey) throw new GleanerError('UNAUTHORIZED', 'Missing API key: send it in the x-api-key header.');
    const id = await this.store.get<string>(hashKey(hashApiKey(apiKey)));
    const account = id ? await this.store.get<AccountRecord>(accountKey(id)) : undefined;
    if (!account || account.revokedAt) throw new GleanerError('UNAUTHORIZED', 'Invalid API key: it is unknown or has been revoked.');
    return account;
  }

  async revoke(id: string): Promise<AccountRecord> {
    return this.modify(id, (account) => ({ ...account, revokedAt: account.revokedAt ?? this.clock().toISOString() }));
  }

  async setPlan(id: string, plan: PlanName): Promise<AccountRecord> {
    return this.modify(id, (account) => ({ ...account, plan }));
  }

  async balance(account: AccountRecord): Promise<Balance> {
    const current = (await this.store.get<AccountRecord>(accountKey(account.id))) ?? account;
    return this.balanceOf(this.rolled(current));
  }

  /**
   * Takes `amount` credits from the balance, atomically: concurrent reservations on one account
   * can never together take more than it holds. CREDITS_EXHAUSTED when it cannot cover them.
   */
  async reserve(accountId: string, amount: number): Promise<{ reservation: Reservation; balance: Balance }> {
    return this.store.update<AccountRecord, { reservation: Reservation; balance: Balance }>(accountKey(accountId), (stored) => {
      if (!stored) throw new GleanerError('UNAUTHORIZED', 'The account of this key no longer exists.');
      const account = this.rolled(stored);
      const { remaining } = this.balanceOf(account);
      if (remaining !== null && amount > remaining) {
        throw new GleanerError(
          'CREDITS_EXHAUSTED',
          `Not enough credits: this request needs ${amount} and ${remaining} remain this month. The allowance resets on ${nextReset(this.clock()).toISOString()}.`,
        );
      }
      const updated = { ...account, used: account.used + amount };
      return { value: updated, result: { reservation: { accountId, period: account.period, amount }, balance: this.balanceOf(updated) } };
    });
  }

  /**
   * Settles a reservation to the actual cost: refunds what was over-reserved, or charges the
   * difference, never past the remaining balance. Returns what was charged in all and the balance.
   */
  async settle(reservation: Reservation, actual: number): Promise<{ charged: number; balance: Balance }> {
    return this.store.update<AccountRecord, { charged: number; balance: Balance }>(accountKey(reservation.accountId), (stored) => {
      if (!stored) return { value: undefined, result: { charged: 0, balance: { remaining: 0, allowance: 0, used: 0, resetsAt: nextReset(this.clock()) } } };
      const account = this.rolled(stored);
      if (account.period !== reservation.period) {
        // The month turned while the work ran: the reservation went with the old period.
        return { value: account, result: { charged: reservation.amount, balance: this.balanceOf(account) } };
      }
      const { remaining } = this.balanceOf(account);
      let delta = actual - reservation.amount;
      if (delta > 0 && remaining !== null) delta = Math.min(delta, remaining);
      const updated = { ...account, used: Math.max(0, account.used + delta) };
      return { value: updated, result: { charged: reservation.amount + delta, balance: this.balanceOf(updated) } };
    });
  }

  /** Gives a whole reservation back (the work failed). */
  async release(reservation: Reservation): Promise<Balance> {
    return (await this.settle(reservation, 0)).balance;
  }

  private async modify(id: string, change: (account: AccountRecord) => AccountRecord): Promise<AccountRecord> {
    return this.store.update<AccountRecord, AccountRecord>(accountKey(id), (account) => {
      if (!account) throw new GleanerError('NOT_FOUND', `No key with id "${id}".`);
      const updated = change(account);
      return { value: updated, result: updated };
    });
  }

  /** The account with its usage reset if a new credit period has begun. */
  private rolled(account: AccountRecord): AccountRecord {
    const period = creditPeriod(this.clock());
    return account.period === period ? account : { ...account, period, used: 0 };
  }

  private balanceOf(account: AccountRecord): Balance {
    const allowance = account.monthlyCredits !== undefined ? account.monthlyCredits : PLANS[account.plan].monthlyCredits;
    return {
      allowance,
      used: account.used,
      remaining: allowance === null ? null : Math.max(0, allowance - account.used),
      resetsAt: nextReset(this.clock()),
    };
  }
}
