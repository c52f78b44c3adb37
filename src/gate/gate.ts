/**
 * The gate: the one path every call takes, whichever surface it came from.
 * key -> plan -> input -> rate -> credits -> run -> charge -> headers (rate before input for a caller's schema).
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { GleanerError, toGleanerError } from '../errors.js';
import { planAtLeast } from '../accounts/plans.js';
import type { AccountRecord, Balance, Reservation } from '../accounts/accounts.js';
import type { RateLimiter, RateStatus } from '../accounts/rate.js';
import { LeaseLost, publicJob, type JobRecord, type JobRunContext, type JobProgress } from '../jobs/jobs.js';
import { costFloor, JobHandoff, reserveCost, runsAsJob, settleCost, type AnyOperation, type OperationContext } from '../operations/define.js';
import type { Services } from '../operations/services.js';
import { describeIssues, inputParseOptions, unknownParameters } from './validation.js';
import type { ChatModel } from '../ai/chat.js';
import { recordCharge, recordFailure, recordJobEnd, recordUsage } from './observe.js';

/** The page rate (see admitPage) against the plan's rate for new work. */
export const PAGE_RATE_SCALE = 10;

export interface CallOptions {
  /** The caller's account: the surface checked its key (or vouched for the stdio local owner) once. */
  account: AccountRecord;
  requestId?: string;
  signal?: AbortSignal;
  onProgress?: (progress: JobProgress) => void;
  /** The MCP client's model, when the call came over MCP from a client that offers sampling. */
  sampling?: ChatModel;
  /** The origin the REST request came to (see OperationContext.origin). */
  origin?: string;
  /** The caller can poll a job (REST `Prefer: respond-async`): slow work may answer 202 (see JobHandoff). */
  prefersAsync?: boolean;
  /** Run even a job operation in the request and answer its result (a route of HttpBinding.inlineAliases). */
  inline?: boolean;
  /**
   * Checks a synchronous result before it is charged (an MCP range naming a chapter the video lacks):
   * a throw fails the call, charged nothing.
   */
  accept?: (result: unknown) => void;
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

  /**
   * Takes one request from the key's rate (for work that is not an operation, such as opening an
   * MCP session): RATE_LIMIT_EXCEEDED when the plan's rate is used up.
   */
  async admit(account: AccountRecord): Promise<RateStatus> {
    return this.rate.take(account.id, account.plan);
  }

  /**
   * Takes one request of the key's page rate, for a later page of a kept MCP reply: a bucket of its
   * own, PAGE_RATE_SCALE times the plan's rate and burst, so reading pages of work already paid for
   * never uses up the rate meant for new work (a Free key pages a 300 KB page to its end in one go).
   * A refusal says the cursor stays valid and when to come back.
   */
  async admitPage(account: AccountRecord): Promise<RateStatus> {
    try {
      return await this.rate.take(account.id, account.plan, PAGE_RATE_SCALE);
    } catch (error) {
      if (!(error instanceof GleanerError) || error.code !== 'RATE_LIMIT_EXCEEDED') throw error;
      const wait = error.headers['Retry-After'] ?? '1';
      throw new GleanerError(
        'RATE_LIMIT_EXCEEDED',
        `Too many pages: the ${account.plan} plan reads up to ${error.headers['X-RateLimit-Limit']} pages a minute. The cursor stays valid: call again with the same cursor in ${wait} s (nothing is charged).`,
        { headers: error.headers },
      );
    }
  }

  /** The key's rate figures now, without taking a request (the console shows them). */
  async rateStatus(account: AccountRecord): Promise<RateStatus> {
    return this.rate.peek(account.id, account.plan);
  }

  /** Starts the job runner: jobs are executed, settled and, if a process died under them (or they were cancelled before starting), refunded. */
  async startJobs(): Promise<void> {
    await this.services.jobs.start(
      (job, run) => this.executeJob(job, run),
      async (job) => {
        const reservation = job.meta.reservation as Reservation | undefined;
        if (reservation) await this.services.accounts.release(reservation);
        // A job that ended without its work settling it (cancelled while queued, or its process
        // died) is recorded here, once, by the process that ended it.
        recordJobEnd(this.services.log, job, job.status === 'cancelled' ? 'cancelled' : 'failed', Date.parse(job.startedAt ?? job.finishedAt ?? job.updatedAt), job.error ?? undefined);
      },
    );
  }

  async call(operation: AnyOperation, rawInput: unknown, options: CallOptions): Promise<CallResult> {
    const requestId = options.requestId ?? randomUUID();
    try {
      return await this.callOnce(operation, rawInput, options, requestId);
    } catch (error) {
      // Refused calls too (plan, input, rate, credits): the key's holder sees why a call failed.
      const code = toGleanerError(error).code;
      recordUsage(this.services.accounts.usage, { accountId: options.account.id, operation: operation.name, outcome: code, credits: 0, counts: true, failed: true, requestId });
      throw error;
    }
  }

  private async callOnce(operation: AnyOperation, rawInput: unknown, options: CallOptions, requestId: string): Promise<CallResult> {
    const { account } = options;

    if (!planAtLeast(account.plan, operation.plan)) {
      throw new GleanerError(
        'UPGRADE_REQUIRED',
        `${operation.name} needs the ${operation.plan} plan or higher; this key is on the ${account.plan} plan. Upgrade the key's plan to use it.`,
      );
    }

    // A caller's JSON Schema is real work to check (size, depth, the meta-schema) even when it is refused, so a
    // call carrying one takes its rate token first: such refusals cannot come faster than calls (429 when over).
    // Other bad input is refused before the rate, as before: a typo does not cost one of the minute's requests.
    let rate = carriesSchema(rawInput) ? await this.rate.take(account.id, account.plan) : undefined;
    const input = this.parseInput(operation, rawInput);
    const signal = options.signal ?? new AbortController().signal;
    await operation.check?.(input, { account, services: this.services, sampling: options.sampling, signal });
    rate ??= await this.rate.take(account.id, account.plan);

    const held = new HeldCredits(this.services.accounts, account.id);
    try {
      await held.add(await this.affordable(operation, input, account));
      let balance: Balance = held.balance ?? (await this.services.accounts.balance(account));

      const startJob = async (status: number): Promise<CallResult> => {
        const reserved = held.reservation;
        // The job record carries the reservation to whichever process runs, cancels or resumes the job.
        const job = await this.services.jobs.submit({
          operation: operation.name,
          ownerId: account.id,
          input,
          meta: reserved ? { reservation: reserved, requestId } : { requestId },
        });
        // A client's model lives only as long as its session: it is lent to the job in memory.
        if (options.sampling) this.samplers.set(job.jobId, options.sampling);
        recordUsage(this.services.accounts.usage, { accountId: account.id, operation: operation.name, outcome: 'job started', credits: 0, counts: true, failed: false, requestId, jobId: job.jobId });
        return {
          status,
          body: { ...publicJob(job), message: `Job started. Poll GET /v1/jobs/${job.jobId} every 2 to 5 seconds until it is completed or failed.` },
          // Nothing is charged yet: the job settles when it ends (its creditsUsed says what).
          headers: { ...this.headers(rate, 0, held.balance ?? balance), 'X-Credits-Reserved': String(reserved?.amount ?? 0) },
          job,
          account,
        };
      };
      if (runsAsJob(operation, input) && !options.inline) return await startJob(operation.http.successStatus ?? 202);

      // A job's budget is its reservation (see executeJob); a synchronous call's is taken above.
      const context = this.context(account, requestId, options, held);
      if ((options.prefersAsync || operation.handsOffAlways) && operation.handsOffToJobs) context.prefersAsync = true;
      let result;
      try {
        result = await operation.run(input, context);
      } catch (thrown) {
        // The credits held so far go with the job, which settles them when it ends.
        if (thrown instanceof JobHandoff && context.prefersAsync) return await startJob(202);
        throw thrown;
      }
      options.accept?.(result);
      let charged = 0;
      if (held.reservation) {
        const actual = Math.max(0, Math.min(settleCost(operation.cost, input, result, this.services.config), held.reservation.amount));
        if (actual === held.reservation.amount && held.balance) {
          // The usual case (a fixed price): the reservation already counted the charge, so closing it
          // needs no read. The reply waits for it to be durable (a crash after the reply must not
          // refund what was delivered), sharing one group commit with the other charges of the moment.
          await this.services.accounts.keep(held.reservation);
          charged = actual;
        } else {
          // Settled even at the reserved price: that closes the reservation, which a crash would otherwise return.
          ({ charged, balance } = await this.services.accounts.settle(held.reservation, actual));
        }
      }
      recordCharge(operation.name, charged);
      recordUsage(this.services.accounts.usage, { accountId: account.id, operation: operation.name, outcome: 'ok', credits: charged, counts: true, failed: false, requestId });
      const status = options.inline ? 200 : (operation.http.successStatus ?? 200);
      return { status, body: result, headers: this.headers(rate, charged, balance), account };
    } catch (error) {
      await held.releaseAll();
      throw recordFailure(this.services.log, operation.name, input, toGleanerError(error), requestId);
    }
  }

  /**
   * What to reserve up front: the worst case, or for partial work (Cost.floor) as much of it as
   * the balance allows, down to the floor (below it, reserving throws CREDITS_EXHAUSTED).
   */
  private async affordable(operation: AnyOperation, input: unknown, account: AccountRecord): Promise<number> {
    const estimate = reserveCost(operation.cost, input, this.services.config);
    const floor = costFloor(operation.cost, input, this.services.config);
    if (floor === undefined || estimate <= floor) return estimate;
    const { remaining } = await this.services.accounts.balance(account);
    return remaining === null || remaining >= estimate ? estimate : Math.max(floor, remaining);
  }

  private parseInput(operation: AnyOperation, rawInput: unknown): unknown {
    const extra = unknownParameters(operation.input, rawInput);
    if (extra) {
      const names = extra.unknown.map((name) => `"${name}"`).join(', ');
      throw new GleanerError('INVALID_REQUEST', `Unknown parameter${extra.unknown.length > 1 ? 's' : ''} ${names}; ${operation.name} takes: ${extra.known.join(', ') || 'none'}.`);
    }
    const parsed = (operation.input as z.ZodType).safeParse(rawInput ?? {}, inputParseOptions);
    if (!parsed.success) throw new GleanerError('INVALID_REQUEST', describeIssues(parsed.error.issues));
    return parsed.data;
  }

  private context(
    account: AccountRecord,
    requestId: string,
    options: Pick<CallOptions, 'signal' | 'onProgress' | 'sampling' | 'origin'>,
    held: HeldCredits,
    jobId?: string,
  ): OperationContext {
    return {
      sampling: options.sampling,
      origin: options.origin,
      account,
      requestId,
      jobId,
      reserveCredits: (amount) => held.add(amount),
      budget: held.reservation?.amount ?? 0,
      signal: options.signal ?? new AbortController().signal,
      progress: (done, total, message) => options.onProgress?.({ done, total, message }),
      log: this.services.log.child({ requestId, ...(jobId ? { jobId } : {}) }),
      services: this.services,
    };
  }

  private async executeJob(job: JobRecord, run: JobRunContext): Promise<unknown> {
    const operation = this.byName.get(job.operation);
    const held = new HeldCredits(this.services.accounts, job.ownerId, job.meta.reservation as Reservation | undefined, async (reservation) => {
      await this.services.jobs.updateMeta(job.jobId, { reservation });
    });
    const started = Date.now();
    this.services.log.info({ jobId: job.jobId, operation: job.operation, accountId: job.ownerId }, 'job started');
    try {
      if (!operation) throw new GleanerError('INTERNAL_ERROR', `This server no longer has the operation "${job.operation}".`);
      const account = await this.services.accounts.get(job.ownerId);
      await held.adopt();
      const requestId = String(job.meta.requestId ?? job.jobId);
      const sampling = this.samplers.get(job.jobId);
      const result = await operation.run(job.input, this.context(account, requestId, { onProgress: run.report, sampling, signal: run.signal }, held, job.jobId));
      // Settled only while this process still holds the job: one that was taken over was refunded there.
      if (!(await run.confirm())) throw new LeaseLost(job.jobId);
      let charged = 0;
      if (held.reservation) {
        // A cancelled job's result is the part done before it stopped: that part is charged.
        const actual = Math.max(0, Math.min(settleCost(operation.cost, job.input, result, this.services.config), held.reservation.amount));
        ({ charged } = await this.services.accounts.settle(held.reservation, actual));
        recordCharge(job.operation, actual);
        await this.services.jobs.updateMeta(job.jobId, { creditsUsed: actual });
      }
      const cancelled = run.cancelled();
      recordUsage(this.services.accounts.usage, { accountId: job.ownerId, operation: job.operation, outcome: cancelled ? 'job cancelled' : 'job completed', credits: charged, counts: false, failed: false, requestId: String(job.meta.requestId ?? job.jobId), jobId: job.jobId });
      // A cancelled job's result is the part done before the cancel: it ended cancelled, not completed.
      recordJobEnd(this.services.log, job, cancelled ? 'cancelled' : 'completed', started);
      return result;
    } catch (error) {
      if (!(error instanceof LeaseLost) && (await run.confirm())) {
        await held.releaseAll();
        const code = toGleanerError(error).code;
        recordUsage(this.services.accounts.usage, { accountId: job.ownerId, operation: job.operation, outcome: `job failed: ${code}`, credits: 0, counts: false, failed: true, requestId: String(job.meta.requestId ?? job.jobId), jobId: job.jobId });
      }
      // A job taken over is recorded by the process that took it (see startJobs), not twice.
      if (error instanceof LeaseLost) throw error;
      if (run.cancelled()) recordJobEnd(this.services.log, job, 'cancelled', started);
      else recordJobEnd(this.services.log, job, 'failed', started, recordFailure(this.services.log, job.operation, job.input, toGleanerError(error), String(job.meta.requestId ?? job.jobId)));
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

  /** Adds run one after another: each extends the reservation the previous one left (a crawl's pages reserve their renders concurrently). */
  private adding: Promise<unknown> = Promise.resolve();

  add(amount: number): Promise<void> {
    const next = this.adding.then(() => this.addNow(amount));
    this.adding = next.catch(() => undefined);
    return next;
  }

  private async addNow(amount: number): Promise<void> {
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

/** Whether a call's raw input carries a caller's JSON Schema (web_scrape's `schema`, video_analysis's). */
function carriesSchema(rawInput: unknown): boolean {
  return typeof rawInput === 'object' && rawInput !== null && (rawInput as { schema?: unknown }).schema !== undefined;
}
