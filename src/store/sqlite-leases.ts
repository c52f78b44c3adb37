/**
 * Credit reservations answered on the event loop, on both engines: a call's 1-credit reservation
 * otherwise waits for the store's thread (on the wasm engine blocked in a commit; on node:sqlite a
 * commit of its own and two messages) before its work can start (docs/ledger.md).
 *
 * A process claims a block of an account's credits durably enough for the ledger, like any
 * reservation: one row (`lease:…`, owned by the process, so the sweep returns it when the process is
 * gone), counted in the usage and checked against the allowance in the same transaction as every
 * reservation. So the blocks of all processes together never pass the balance, and a block is taken
 * only while the balance is far from its end (SqliteLedger.claim). A call then takes its credits from
 * the block here, with no wait, and its keep is made durable before the call replies, in this
 * process's journal of kept charges (keep-journal.ts), folded into the block's row later. A kill -9
 * loses nothing: the sweep folds the journal, then returns what is left in the block, which holds
 * exactly the credits not charged.
 *
 * A reservation taken from a block is answered only while the account record is the one the block
 * was claimed under, as the file holds it now (wasm: the key cache, sqlite-key-cache.ts; node: a read
 * on the event loop's own WAL connection): a plan changed or a key
 * revoked by another process sends the call to the thread, which checks it in the file. Anything but a
 * plain keep or release (a settle to another price, an adopt by a job, credits added to the call)
 * first moves the call's credits to a reservation row of its own (materialize). A block unused for
 * IDLE_MS goes back, so credits do not sit in an idle process while another one needs them.
 */
import { StoreFileError } from './sqlite.js';
import type { ClaimRequest, ClaimResult } from './sqlite-store.js';
import type { ReserveRequest } from './ledger.js';

/** The fewest credits claimed beyond a call's at once (less near the end of a balance: SqliteLedger.claim). */
export const LEASE_BLOCK = 64;
/** The most: a block lasts about BLOCK_LASTS_MS of a burst's calls, so a fast burst claims less often. */
const LEASE_BLOCK_MAX = 1_024;
const BLOCK_LASTS_MS = 500;
/** A block unused this long goes back to the balance. */
const IDLE_MS = 1_000;

/**
 * The next claim's size, from the pace of the block's calls since its last claim: each claim is a
 * commit, which on the wasm engine holds the store's thread (and every keep behind it) for the
 * length of four fsyncs; at 500 calls a second blocks of 64 meant eight of them a second.
 */
function nextBlockSize(block: Block | undefined, now: number): number {
  if (!block || block.takes === 0) return LEASE_BLOCK;
  const perMs = block.takes / Math.max(1, now - block.claimedAt);
  return Math.max(LEASE_BLOCK, Math.min(LEASE_BLOCK_MAX, Math.ceil(perMs * BLOCK_LASTS_MS)));
}

interface Block {
  leaseId: string;
  account: string;
  period: string;
  /** The account record the block was claimed under. */
  record: string;
  available: number;
  /** The usage shown to the block's calls. */
  used: number;
  lastUse: number;
  timer?: NodeJS.Timeout;
  /** The size of its last claim: when fewer than half of that are left, the next is claimed in the background. */
  size: number;
  /** When it was last claimed or topped up, and how many calls took from it since (nextBlockSize). */
  claimedAt: number;
  takes: number;
}

interface Taken {
  leaseId: string;
  amount: number;
  account: string;
  owner: string;
}

type Call = <T>(method: string, args: unknown[]) => Promise<T>;

export class LeasedCredits {
  private readonly blocks = new Map<string, Block>();
  private readonly taken = new Map<string, Taken>();
  /** One claim on its way per account: a burst waits for it instead of claiming 32 blocks. */
  private readonly claiming = new Map<string, Promise<unknown>>();
  private nextLease = 1;
  /** Accounts whose last claim got no block (near the end of the balance), until when. */
  private readonly plainUntil = new Map<string, number>();

  constructor(
    private readonly file: string,
    private readonly call: Call,
    /** The claim itself, with the allowance of the record last seen (ThreadLedger.withAllowance). */
    private readonly claimOnThread: (request: Omit<ClaimRequest, 'allowanceOf'> & Pick<ReserveRequest, 'allowanceOf'>) => Promise<ClaimResult>,
    /** The account record as the file holds it now, when the key cache can tell without the thread. */
    private readonly current: (recordKey: string) => string | undefined,
    /** Charges credits of a block, durable before it resolves (the thread's commit, or the journal of kept charges). */
    private readonly keepLeased: (leaseId: string, amount: number, account: string, owner: string) => Promise<void>,
  ) {}

  /** A reservation of `request.amount`, from this process's block where it can, else claimed with one. */
  async reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number; record?: string }> {
    for (;;) {
      const local = this.take(request);
      if (local) return local;
      const pending = this.claiming.get(request.account);
      if (!pending) break;
      await pending.catch(() => undefined);
    }
    // Reservations go to the thread side by side, as before, near the end of the balance (no block is
    // granted there), and while the key cache cannot tell the account record (another process keeps
    // changing the file): a block could not be used then, and claims one at a time would queue calls.
    const current = this.current(request.recordKey);
    const plain = this.plainUntil.get(request.account);
    if (current === undefined || (plain !== undefined && plain > Date.now())) return this.claimOnThread({ ...request, leaseId: '', extra: 0 });
    const block = this.blocks.get(request.account);
    // A block claimed under another record (a plan changed) goes back; the claim below checks the file.
    if (block && block.period === request.period && current !== block.record) this.giveBack(block);
    const reuse = this.blocks.get(request.account);
    const leaseId = reuse && reuse.period === request.period ? reuse.leaseId : `lease:${request.owner}:${request.account}:${this.nextLease++}`;
    const size = nextBlockSize(reuse, Date.now());
    const claim = this.claimOnThread({ ...request, leaseId, extra: size });
    this.claiming.set(request.account, claim);
    let result: ClaimResult;
    try {
      result = await claim;
    } finally {
      if (this.claiming.get(request.account) === claim) this.claiming.delete(request.account);
    }
    if (!result.ok || result.leased === 0 || result.record === undefined) {
      if (this.plainUntil.size >= 10_000) this.plainUntil.clear();
      this.plainUntil.set(request.account, Date.now() + IDLE_MS);
      return result;
    }
    this.plainUntil.delete(request.account);
    let target = this.blocks.get(request.account);
    if (!target || target.leaseId !== leaseId) {
      if (target) this.giveBack(target);
      target = { leaseId, account: request.account, period: request.period, record: result.record, available: 0, used: result.used, lastUse: Date.now(), size, claimedAt: Date.now(), takes: 0 };
      this.blocks.set(request.account, target);
    }
    target.available += result.leased;
    target.size = size;
    target.claimedAt = Date.now();
    target.takes = 0;
    target.record = result.record;
    target.used = result.used + request.amount;
    this.taken.set(request.reservationId, { leaseId, amount: request.amount, account: request.account, owner: request.owner });
    this.touch(target);
    return { ok: true, used: target.used, record: result.record };
  }

  /** Calls holding credits of a block that have not kept or released them yet: keeps on their way. */
  get outstanding(): number {
    return this.taken.size;
  }

  /** Whether this reservation's credits are in a block (not a row of its own). */
  holds(reservationId: string): boolean {
    return this.taken.has(reservationId);
  }

  /** Charges a reservation taken from a block: durable before it resolves. */
  async keep(reservationId: string): Promise<void> {
    const taken = this.taken.get(reservationId)!;
    this.taken.delete(reservationId);
    try {
      await this.keepLeased(taken.leaseId, taken.amount, taken.account, taken.owner);
    } catch (error) {
      // The block is not what this process believes (its claim failed, or it was swept): start anew.
      const block = [...this.blocks.values()].find((b) => b.leaseId === taken.leaseId);
      if (block) this.drop(block);
      throw error;
    }
  }

  /**
   * Gives a reservation's credits back to its block (released work): no commit needed, they never
   * left it. Undefined when the block was given back meanwhile: the caller materializes and settles.
   */
  release(reservationId: string): { used: number; record: string } | undefined {
    const taken = this.taken.get(reservationId)!;
    const block = [...this.blocks.values()].find((b) => b.leaseId === taken.leaseId);
    if (!block) return undefined;
    this.taken.delete(reservationId);
    block.available += taken.amount;
    block.used -= taken.amount;
    return { used: block.used, record: block.record };
  }

  /** Moves a reservation's credits to a row of its own, for any step but a keep or a release. */
  async materialize(reservationId: string): Promise<void> {
    const taken = this.taken.get(reservationId)!;
    this.taken.delete(reservationId);
    if (!(await this.call<boolean>('materialize', [taken.leaseId, reservationId, taken.amount]))) {
      throw new StoreFileError(this.file, 'the credits of this call were returned meanwhile (its process was taken for gone)');
    }
  }

  /** Gives every block back (the store closes). */
  async close(): Promise<void> {
    await Promise.all([...this.claiming.values()].map((claim) => claim.catch(() => undefined)));
    await Promise.all([...this.blocks.values()].map((block) => this.giveBack(block)));
  }

  private take(request: ReserveRequest): { ok: boolean; used: number; record: string } | undefined {
    const block = this.blocks.get(request.account);
    if (!block || block.period !== request.period || block.available < request.amount) return undefined;
    if (this.current(request.recordKey) !== block.record) return undefined;
    block.available -= request.amount;
    block.used += request.amount;
    this.taken.set(request.reservationId, { leaseId: block.leaseId, amount: request.amount, account: request.account, owner: request.owner });
    this.touch(block);
    block.takes++;
    // Fewer than half of the last claim left: the next one is claimed in the background, so a burst's
    // reservations never wait for a claim (each would wait for the commit in flight on the thread).
    if (block.available < block.size / 2) this.topUp(block, request);
    return { ok: true, used: block.used, record: block.record };
  }

  /** Claims more credits into a block that runs low, while its calls go on taking what is left. */
  private topUp(block: Block, request: ReserveRequest): void {
    if (this.claiming.has(block.account)) return;
    const size = nextBlockSize(block, Date.now());
    const claim = this.claimOnThread({ ...request, amount: 0, reservationId: `${block.leaseId}:top-up`, leaseId: block.leaseId, extra: size });
    this.claiming.set(block.account, claim);
    claim.then(
      (result) => {
        if (!result.ok || result.leased === 0) return;
        // Given back meanwhile (idle, a plan changed, the store closing): these credits go back too.
        if (this.blocks.get(block.account) !== block || result.record !== block.record) {
          void this.call<void>('returnLeased', [block.leaseId, result.leased]).catch(() => undefined);
          return;
        }
        block.available += result.leased;
        block.size = size;
        block.claimedAt = Date.now();
        block.takes = 0;
      },
      () => undefined,
    ).finally(() => {
      if (this.claiming.get(block.account) === claim) this.claiming.delete(block.account);
    });
  }

  private touch(block: Block): void {
    block.lastUse = Date.now();
    if (block.timer) return;
    const check = () => {
      block.timer = undefined;
      if (this.blocks.get(block.account) !== block) return;
      if (Date.now() - block.lastUse >= IDLE_MS) void this.giveBack(block);
      else block.timer = setTimeout(check, IDLE_MS).unref();
    };
    block.timer = setTimeout(check, IDLE_MS).unref();
  }

  /** Returns a block's unused credits to the balance; calls holding some of it still keep or release them. */
  private giveBack(block: Block): Promise<void> {
    const left = block.available;
    this.drop(block);
    return left > 0 ? this.call<void>('returnLeased', [block.leaseId, left]).catch(() => undefined) : Promise.resolve();
  }

  private drop(block: Block): void {
    block.available = 0;
    if (block.timer) clearTimeout(block.timer);
    block.timer = undefined;
    if (this.blocks.get(block.account) === block) this.blocks.delete(block.account);
  }
}
