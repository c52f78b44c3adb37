/**
 * The credit ledger's contract, kept apart from key state: a charge touches only usage and
 * reservations, never the account record that `keys revoke` and `set-plan` change.
 * Each method is one atomic step in the database (a SQLite transaction or one Redis script).
 */

/**
 * The account record is read in the same atomic step as the usage (one SQLite transaction), so a
 * charge sees the plan as it is now and costs one round trip to the file.
 */
export interface AccountRef {
  account: string;
  /** The store key of the account record (JSON). */
  recordKey: string;
  /** The allowance of the record: null unlimited. */
  allowanceOf: (record: string) => number | null;
}

export interface ReserveRequest extends AccountRef {
  /** The current period: usage of an older one counts as 0. */
  period: string;
  amount: number;
  /** The reservation to create, or to add to when it exists. */
  reservationId: string;
  /** Credits added to a reservation made earlier (which may have a row of its own): never from a block of credits. */
  adding?: boolean;
  /** The process holding the reservation (see owners.ts). */
  owner: string;
}

export interface SettleRequest extends AccountRef {
  reservationId: string;
  period: string;
  /** What the work actually cost; 0 gives the reservation back. */
  actual: number;
}

export interface SettleOptions {
  /**
   * Only for a settle whose loss in a crash favours the user: one that charges exactly what was
   * reserved, whose row, left behind by a crash, is returned by the sweep. SQLite no longer needs it
   * (its steps are grouped on the store's thread, in order, docs/ledger.md); kept for the interface.
   */
  lazy?: boolean;
}

export interface HeldReservation {
  id: string;
  account: string;
  owner: string;
  amount: number;
}

export interface CreditLedger {
  /**
   * Adds `amount` to the usage and to the reservation unless that would pass the allowance.
   * `record` is the account record read in the same step (undefined: no such account, nothing reserved).
   */
  reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number; record?: string }>;
  /**
   * Removes the reservation and turns it into the actual charge (capped by the allowance).
   * A reservation that no longer exists (already settled, or returned by the sweep) charges nothing.
   * `returned`: the credits it gave back, where that is not simply the reservation as listed (SQLite: a
   * dead process's block, less the charges its journal kept, store/keep-journal.ts).
   */
  settle(request: SettleRequest, options?: SettleOptions): Promise<{ charged: number; used: number; found: boolean; record?: string; returned?: number }>;
  /**
   * Closes a reservation charged exactly as reserved: its credits are already in the usage, so only
   * its row goes (no read, no usage write). On SQLite it shares the next group commit on the store's
   * thread and resolves once committed: a caller replies only then, or a crash would refund the reply.
   */
  keep(reservationId: string): Promise<void>;
  /** The account record and its usage, read together. */
  usage(ref: Omit<AccountRef, 'allowanceOf'>, period: string): Promise<{ used: number; record?: string }>;
  reservations(): Promise<HeldReservation[]>;
  /** Hands a reservation to another process (a job resumed elsewhere); false when it is gone. */
  adopt(reservationId: string, owner: string): Promise<boolean>;
  /**
   * Makes sure the reservation is a row any process can settle, release or adopt (SQLite's wasm
   * engine may answer a reservation from this process's block of credits, store/sqlite-leases.ts).
   */
  pin?(reservationId: string): Promise<void>;
}
