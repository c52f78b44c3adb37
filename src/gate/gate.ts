/**
 * The gate: the one path every call takes, whichever surface it came from.
 * key -> plan -> input -> rate -> credits -> run -> charge -> headers.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { GleanerError, toGleanerError } from '../errors.js';
import { planAtLeast } from '../accounts/plans.js';
import type { AccountRecord, Balance, Reservation } from '../accounts/accounts.js';
import type { RateLimiter, RateStatus } from '../accounts/rate.js';
import { publicJob, type JobProgress, type JobRecord } from '../jobs/jobs.js';
import { reserveCost, settleCost, type AnyOperation, type OperationContext } from '../operations/define.js';
import type { Services } from '../operations/services.js';
import { describeIssues } from './validation.js';
import type { ChatModel } from '../ai/chat.js';

export interface CallOptions {
  apiKey: string | undefined;
  requestId?: string;
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
  /** The MCP client's model, when the call came over MCP from a client that offers sampling. */
  sampling?: ChatModel;
}

export interface CallResult {
  /** HTTP status of the success (200, or 202 for a started job). */
  status: number;
  body: unknown;
  /** The rate and credit headers every success carries. */
  headers: Record<string, string>;
  /** Set when the call started a job. */
  job?: JobRecord;
  account: AccountRecord;
}

export class Gate {
  private readonly byName: Map<string, AnyOperation>;
  private readonly samplers = new Map<string, ChatModel>();

  constructor(
    private readonly services: Services,
    private readonly rate: RateLimiter,
    operations: AnyOperation[],
  ) {
    this.byName = new Map(operations.map((op) => [op.name, op]));
  }

  operation(name: string): AnyOperation | undefined {
    return this.byName.get(name);
  }

  /** Starts the job runner: jobs are executed, settled and, if a process died under them, refunded. */
  async startJobs(): Promise<void> {
    await this.services.jobs.start(
      (job, report) => this.executeJob(job, report),
      async (job) => {
        const reservation = job.meta.reservation as Reservation | undefined;
        if (reservation) await this.services.accounts.release(reservation);
      },
    );
  }

  async call(operation: AnyOperation, rawInput: unknown, options: CallOptions): Promise<CallResult> {
    const requestId = options.requestId ?? randomUUID();
    const account = await this.services.accounts.authenticate(options.apiKey);

    if (!planAtLeast(account.plan, operation.plan)) {
      throw new GleanerError(
        'UPGRADE_REQUIRED',
        `${operation.name} needs the ${operation.plan} plan or higher; this key is on the ${account.plan} plan. Upgrade the key's plan to use it.`,
      );
    }

    const input = this.parseInput(operation, rawInput);
    const signal = options.signal ?? new AbortController().signal;
    await operation.check?.(input, { account, services: this.services, sampling: options.sampling, signal });

    const rate = await this.rate.take(account.id, account.plan);
    const held = new HeldCredits(this.services.accounts, account.id);
    try {
      const estimate = reserveCost(operation.cost, input);
      await held.add(estimate);
      let balance: Balance = held.balance ?? (await this.services.accounts.balance(account));
      const reservation = held.reservation;

      if (operation.kind === 'job') {
        const job = await this.services.jobs.submit({
          operation: operation.name,
          ownerId: account.id,
          input,
          meta: reservation ? { reservation, requestId } : { requestId },
        });
        // A client's model lives only as long as its session: it is lent to the job in memory.
        if (options.sampling) this.samplers.set(job.jobId, options.sampling);
        return {
          status: operation.http.successStatus ?? 202,
          body: { ...publicJob(job), message: `Job started. Poll GET /v1/jobs/${job.jobId} every 2 to 5 seconds until it is completed or failed.` },
          headers: this.headers(rate, reservation?.amount ?? 0, balance),
          job,
          account,
        };
      }

      const result = await operation.run(input, this.context(account, requestId, options, held));
      let charged = 0;
      if (held.reservation) {
        const actual = Math.max(0, Math.min(settleCost(operation.cost, input, result), held.reservation.amount));
        // Settled even at the reserved price: that closes the reservation, which a crash would otherwise return.
        ({ charged, balance } = await this.services.accounts.settle(held.reservation, actual));
      }
      return { status: operation.http.successStatus ?? 200, body: result, headers: this.headers(rate, charged, balance), account };
    } catch (error) {
      await held.releaseAll();
      throw toGleanerError(error);
    }
  }

  private parseInput(operation: AnyOperation, rawInput: unknown): unknown {
    const parsed = (operation.input as z.ZodType).safeParse(rawInput ?? {});
    if (!parsed.success) throw new GleanerError('INVALID_REQUEST', describeIssues(parsed.error.issues));
    return parsed.data;
  }

  private context(
    account: AccountRecord,
    requestId: string,
    options: Pick<CallOptions, 'signal' | 'onProgress' | 'sampling'>,
    held: HeldCredits,
    jobId?: string,
  ): OperationContext {
    return {
      sampling: options.sampling,
      account,
      requestId,
      jobId,
      reserveCredits: (amount) => held.add(amount),
      signal: options.signal ?? new AbortController().signal,
      progress: (done, total, message) => options.onProgress?.({ done, total, message }),
      log: this.services.log.child({ requestId, ...(jobId ? { jobId } : {}) }),
      services: this.services,
    };
  }

  private async executeJob(job: JobRecord, report: (progress: JobProgress) => void): Promise<unknown> {
    const operation = this.byName.get(job.operation);
    const held = new HeldCredits(this.services.accounts, job.ownerId, job.meta.reservation as Reservation | undefined, (reservation) =>
      this.services.jobs.updateMeta(job.jobId, { reservation }),
    );
    try {
      if (!operation) throw new GleanerError('INTERNAL_ERROR', `This server no longer has the operation "${job.operation}".`);
      const account = await this.services.accounts.get(job.ownerId);
      await held.adopt();
      const requestId = String(job.meta.requestId ?? job.jobId);
      const sampling = this.samplers.get(job.jobId);
      const result = await operation.run(job.input, this.context(account, requestId, { onProgress: report, sampling }, held, job.jobId));
      if (held.reservation) {
        const actual = Math.max(0, Math.min(settleCost(operation.cost, job.input, result), held.reservation.amount));
        await this.services.accounts.settle(held.reservation, actual);
      }
      return result;
    } catch (error) {
      await held.releaseAll();
      throw error;
    } finally {
      this.samplers.delete(job.jobId);
    }
  }

  private headers(rate: RateStatus, creditsUsed: number, balance: Balance): Record<string, string> {
    return {
      'X-RateLimit-Limit': rate.limit === null ? 'unlimited' : String(rate.limit),
      'X-RateLimit-Remaining': rate.remaining === null ? 'unlimited' : String(rate.remaining),
      'X-RateLimit-Reset': String(rate.reset),
      'X-Credits-Used': String(creditsUsed),
      'X-Credits-Remaining': balance.remaining === null ? 'unlimited' : String(balance.remaining),
    };
  }
}


/** The credits one call holds: the reservation taken up front plus any the work adds. */
class HeldCredits {
  balance?: Balance;

  constructor(
    private readonly accounts: Services['accounts'],
    private readonly accountId: string,
    public reservation?: Reservation,
    /** Told of every change, so a job's record always holds what it has reserved. */
    private readonly onChange?: (reservation: Reservation) => Promise<void>,
  ) {}

  async add(amount: number): Promise<void> {
    if (amount <= 0) return;
    const { reservation, balance } = await this.accounts.reserve(this.accountId, amount, this.reservation);
    this.balance = balance;
    this.reservation = reservation;
    await this.onChange?.(this.reservation);
  }

  /** Takes over a reservation made by another process (a job resumed here); reserves again if it was returned meanwhile. */
  async adopt(): Promise<void> {
    const previous = this.reservation;
    if (!previous || (await this.accounts.adopt(previous))) return;
    this.reservation = undefined;
    await this.add(previous.amount);
  }

  async releaseAll(): Promise<void> {
    if (this.reservation) await this.accounts.release(this.reservation);
    this.reservation = undefined;
  }
}
