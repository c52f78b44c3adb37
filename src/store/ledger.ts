/**
 * The credit ledger's contract, kept apart from key state: a charge touches only usage and
 * reservations, never the account record that `keys revoke` and `set-plan` change.
 * Each method is one atomic step in the database (a SQLite transaction or one Redis script).
 */

/** Usage of one account in one credit period (a UTC month). */
export interface ReserveRequest {
  account: string;
  /** The current period: usage of an older one counts as 0. */
  period: string;
  amount: number;
  /** null: unlimited. */
  allowance: number | null;
  /** The reservation to create, or to add to when it exists. */
  reservationId: string;
  /** The process holding the reservation (see owners.ts). */
  owner: string;
}

export interface SettleRequest {
  reservationId: string;
  account: string;
  period: string;
  /** What the work actually cost; 0 gives the reservation back. */
  actual: number;
  allowance: number | null;
}

export interface HeldReservation {
  id: string;
  account: string;
  owner: string;
  amount: number;
}

export interface CreditLedger {
  /** Adds `amount` to the usage and to the reservation unless that would pass the allowance. */
  reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number }>;
  /**
   * Removes the reservation and turns it into the actual charge (capped by the allowance).
   * A reservation that no longer exists (already settled, or returned by the sweep) charges nothing.
   */
  settle(request: SettleRequest): Promise<{ charged: number; used: number; found: boolean }>;
  used(account: string, period: string): Promise<number>;
  reservations(): Promise<HeldReservation[]>;
  /** Hands a reservation to another process (a job resumed elsewhere); false when it is gone. */
  adopt(reservationId: string, owner: string): Promise<boolean>;
}
