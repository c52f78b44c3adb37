/**
 * The credit ledger's contract, kept apart from key state: a charge touches only usage and
 * reservations, never the account record that `keys revoke` and `set-plan` change. Each method is one
 * atomic step in the database (a SQLite transaction or one Redis script), which reads the account
 * record too, so a charge sees the plan as it is now.
 */

export interface AccountRef {
  account: string;
  /** The store key of the account record (JSON). */
  recordKey: string;
  /** Each plan's monthly credits (null unlimited), for `allowanceOf` the record read in the step. */
  planCredits: Record<string, number | null>;
}

/** An account record's allowance (null unlimited): its own `monthlyCredits`, else its plan's. */
export function allowanceOf(record: string, planCredits: AccountRef['planCredits']): number | null {
  const { plan, monthlyCredits } = JSON.parse(record) as { plan: string; monthlyCredits?: number | null };
  if (monthlyCredits !== undefined) return monthlyCredits;
  // null is a plan without a monthly limit (Enterprise); a plan this process does not know has none to spend.
  return Object.hasOwn(planCredits, plan) ? planCredits[plan] : 0;
}

export interface ReserveRequest extends AccountRef {
  /** The current period: usage of an older one counts as 0. */
  period: string;
  amount: number;
  /** The reservation to create, or to add to when it exists. */
  reservationId: string;
  /** The process holding the reservation (see owners.ts). */
  owner: string;
}

export interface SettleRequest extends AccountRef {
  reservationId: string;
  period: string;
  /** What the work actually cost; 0 gives the reservation back. */
  actual: number;
}

export type HeldReservation = { id: string; account: string; owner: string; amount: number };

export interface CreditLedger {
  /**
   * Adds `amount` to the usage and to the reservation unless that would pass the allowance.
   * `record` is the account record read in the same step (undefined: no such account, nothing reserved).
   */
  reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number; record?: string }>;
  /**
   * Removes the reservation and turns it into the actual charge (capped by the allowance).
   * A reservation that no longer exists (already settled, or returned by the sweep) charges nothing.
   */
  settle(request: SettleRequest): Promise<{ charged: number; used: number; found: boolean; record?: string }>;
  /** Closes a reservation charged exactly as reserved (only its row goes); resolves once that is durable. */
  keep(reservationId: string): Promise<void>;
  /** The account record and its usage, read together. */
  usage(ref: Omit<AccountRef, 'planCredits'>, period: string): Promise<{ used: number; record?: string }>;
  reservations(): Promise<HeldReservation[]>;
  /** Hands a reservation to another process (a job resumed elsewhere); false when it is gone. */
  adopt(reservationId: string, owner: string): Promise<boolean>;
}
