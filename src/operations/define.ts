/**
 * One operation = one definition. REST routes, MCP tools, the OpenAPI document, the README table
 * and the bundle manifest are all derived from these records.
 */
import type { z } from 'zod';
import type { PlanName } from '../accounts/plans.js';
import type { AccountRecord } from '../accounts/accounts.js';
import type { Logger } from '../log.js';
import type { Services } from './services.js';
import type { ChatModel } from '../ai/chat.js';
import type { Config } from '../config.js';

export interface OperationContext {
  account: AccountRecord;
  requestId: string;
  /** Aborted when the caller goes away or the server stops. */
  signal: AbortSignal;
  /** Progress of long work (pages crawled, chunks transcribed). */
  progress: (done: number, total?: number, message?: string) => void;
  log: Logger;
  services: Services;
  /** Set when the operation runs as a job. */
  jobId?: string;
  /**
   * Reserves more credits once the work knows what it will cost (e.g. AI minutes after the media's
   * duration is read). Throws CREDITS_EXHAUSTED when the balance cannot cover them. The settled
   * cost may then go up to everything reserved; a failure releases it all.
   */
  reserveCredits: (amount: number) => Promise<void>;
  /** Credits reserved for this call before it ran: what partial work (see Cost.floor) may spend. */
  budget: number;
  /** The origin (scheme://host) the REST request came to, for absolute links in replies; absent over MCP. */
  origin?: string;
  /** The connected MCP client's model, when the call came over MCP from a client that offers sampling. */
  sampling?: ChatModel;
  /**
   * The caller can poll for a job (REST `Prefer: respond-async`, RFC 7240), and this call is not yet
   * one: an operation with `handsOffToJobs` may then throw JobHandoff when slow work is ahead.
   */
  prefersAsync?: boolean;
}

/**
 * Thrown by a sync operation's run (only when ctx.prefersAsync) to hand the call over to a job:
 * the gate starts a job with the same input and credits held, and answers 202 with it.
 */
export class JobHandoff extends Error {
  constructor(readonly reason: string) {
    super(`handed off to a job: ${reason}`);
    this.name = 'JobHandoff';
  }
}

/** What a pre-flight check sees: enough to refuse a call before anything is charged or queued. */
export type CheckContext = Pick<OperationContext, 'account' | 'services' | 'sampling' | 'signal'>;

/**
 * Credits an operation costs. A number is a fixed price. Otherwise `reserve` is taken before the
 * work (it must cover the worst case the caller asked for) and `settle` gives the actual amount,
 * never more than reserved, once the result is known. Prices the operator sets (the render price)
 * are read from the configuration each function is handed.
 */
export type Cost<I, O> =
  | number
  | {
      reserve: (input: I, config: Config) => number;
      settle: (input: I, result: O, config: Config) => number;
      /**
       * Work that can be cut short (search pages, crawled pages): when the balance cannot cover
       * `reserve`, the gate reserves what is left, down to this floor (402 below it), and the
       * work reads in ctx.budget how much it may spend, stopping there.
       */
      floor?: (input: I, config: Config) => number;
    };

export interface HttpBinding {
  method: 'GET' | 'POST' | 'DELETE';
  /** The canonical path, with {param} placeholders for path parameters. */
  path: string;
  /** Other paths that serve the same operation (the spec's neutral platform words). */
  aliases?: string[];
  /** Extra methods on the same path (e.g. GET beside POST), input from query then. */
  alsoGet?: boolean;
  /** POST beside a GET path, input from a JSON body then (lists whose items may hold commas: web_scrape's actions). */
  alsoPost?: boolean;
  /** Status of a success reply; job operations default to 202. */
  successStatus?: number;
  /**
   * Aliases (the spec's neutral paths) where a job operation answers at once with its result, as the
   * spec gives that path's reply, while the canonical path starts the job (the Supadata SDK's shape).
   */
  inlineAliases?: string[];
  /**
   * The success reply is bytes of this type, not JSON: the operation's result is `{ contentType, data }`
   * with `data` in base64, and REST sends `data` decoded (web_screenshot's PNG).
   */
  binary?: 'image/png';
}

/** Groups of MCP tools an operator can list by name (see GLEANER_MCP_TOOLS). */
export const TOOL_GROUPS = ['video', 'youtube', 'web', 'analysis', 'account', 'watch'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

export interface Operation<S extends z.ZodType = z.ZodType, O = unknown> {
  /** The MCP tool name, e.g. `youtube_transcript`. */
  name: string;
  title: string;
  /** Written for a model that must pick the right tool. */
  description: string;
  http: HttpBinding;
  input: S;
  /**
   * The reply of `run` (for a job: its result). The OpenAPI response bodies, the MCP tools'
   * outputSchema and the tests' reply validation are derived from it.
   */
  output: z.ZodType<O>;
  /** The lowest plan that may call it. */
  plan: PlanName;
  cost: Cost<z.output<S>, O>;
  kind: 'sync' | 'job';
  /**
   * A sync operation that runs as a job for some inputs (the Supadata SDK's batch shape, which
   * expects a job id): when this holds, the call starts a job whose result is `output`.
   */
  jobWhen?: (input: z.output<S>) => boolean;
  /** Its run may answer with a job when the caller prefers one (see JobHandoff); REST then also declares 202. */
  handsOffToJobs?: boolean;
  /**
   * With handsOffToJobs: the run may hand off whatever the caller prefers (work found long only once
   * it has started, such as a search that must fetch many transcripts); REST answers 202 with the job,
   * MCP follows it as it follows every job.
   */
  handsOffAlways?: boolean;
  /**
   * Input fields that only repeat another field under a second name (a spelling the Supadata SDK
   * or the spec's GET form sends): REST accepts them, MCP tools do not list them.
   */
  restAliases?: string[];
  /**
   * Served on REST only, not as an MCP tool: a view that only reshapes what another tool already
   * answers, for a REST client that expects that shape (the Supadata SDK's job views).
   */
  restOnly?: boolean;
  /**
   * Listed as an MCP tool only when GLEANER_MCP_TOOLS names it (or says `all`): a tool another one
   * already covers (the per-platform transcripts, which `transcript` routes to), kept out of the
   * default list because every listed tool costs context in every conversation.
   */
  mcpOnRequest?: boolean;
  /**
   * Left out of the default MCP list (GLEANER_MCP_TOOLS unset) but listed with its group: a tool most
   * conversations never need (another covers it, or it manages something set up once, like watches),
   * kept out because every listed tool costs context in every conversation.
   */
  mcpGroupOnly?: boolean;
  /** The MCP tool groups it belongs to (GLEANER_MCP_TOOLS picks groups or names). */
  groups?: ToolGroup[];
  /** MCP tool annotations. */
  readOnly?: boolean;
  openWorld?: boolean;
  /**
   * Refuses a call before it is charged or queued (a job's bad webhook URL, a missing provider).
   * Throw a GleanerError; returning means go on.
   */
  check?: (input: z.output<S>, ctx: CheckContext) => Promise<void>;
  run: (input: z.output<S>, ctx: OperationContext) => Promise<O>;
}

export type AnyOperation = Operation<z.ZodType, any>;

/** Identity with inference: the input type of `run` flows from the zod schema. */
export function defineOperation<S extends z.ZodType, O>(operation: Operation<S, O>): Operation<S, O> {
  return operation;
}

export function reserveCost<I, O>(cost: Cost<I, O>, input: I, config: Config): number {
  return typeof cost === 'number' ? cost : cost.reserve(input, config);
}

/** The least a partial operation may reserve, or undefined when it is all or nothing. */
export function costFloor<I, O>(cost: Cost<I, O>, input: I, config: Config): number | undefined {
  return typeof cost === 'number' ? undefined : cost.floor?.(input, config);
}

export function settleCost<I, O>(cost: Cost<I, O>, input: I, result: O, config: Config): number {
  return typeof cost === 'number' ? cost : cost.settle(input, result, config);
}

/** True when this call of the operation starts a job rather than answering at once. */
export function runsAsJob(operation: AnyOperation, input: unknown): boolean {
  return operation.kind === 'job' || (operation.jobWhen?.(input) ?? false);
}

/** True when some calls of a sync operation answer 202 with a job (by input, or on the caller's preference). */
export function sometimesJob(operation: AnyOperation): boolean {
  return operation.kind === 'sync' && (operation.jobWhen !== undefined || operation.handsOffToJobs === true);
}
