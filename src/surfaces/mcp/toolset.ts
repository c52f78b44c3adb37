/**
 * The MCP tools as plain functions of (input, context): one tool per operation of the table, every
 * call through the gate. Nothing here knows the MCP SDK; sdk.ts adapts this to it.
 */
import { randomUUID } from 'node:crypto';
import type { App } from '../../app.js';
import { GleanerError, toGleanerError, type ErrorCode } from '../../errors.js';
import { isFinal, publicJob, type JobProgress, type JobRecord } from '../../jobs/jobs.js';
import { createPager, type PagedOutcome } from './paging.js';
import { selectOperations, toolDescriptor, type ToolDescriptor } from './descriptors.js';
import type { ChatModel } from '../../ai/chat.js';
import type { AccountRecord } from '../../accounts/accounts.js';
import { readScreenshot } from '../../operations/screenshots.js';
import { appOf } from '../apps/apps.js';

export type { ToolDescriptor } from './descriptors.js';

export interface ToolCallContext {
  /** The account the call acts as (the request's key, GLEANER_API_KEY or the stdio local owner); UNAUTHORIZED is the call's error. */
  account: () => Promise<AccountRecord>;
  signal: AbortSignal;
  /** Present when the client asked for progress notifications. */
  progress?: (progress: JobProgress) => void;
  /** The client's model, when it offers sampling. */
  sampling?: ChatModel;
  /** Return as soon as a job is started: a client with the Tasks extension follows it as a task (tasks.ts). */
  startJobs?: boolean;
}

/** A reply's page (see paging.ts), or an error: its envelope as body, its one block `CODE: message`. */
export interface ToolOutcome extends PagedOutcome {
  isError: boolean;
  /** The job the call started and left running (only with startJobs). */
  job?: JobRecord;
  /** Images after the text (a web_scrape screenshot), on the first page of a reply only. */
  images?: Array<{ data: string; mimeType: 'image/png' }>;
}

export function failure(error: { code: ErrorCode; message: string }, requestId: string = randomUUID()): ToolOutcome {
  return { isError: true, body: { error: { code: error.code, message: error.message, requestId } }, blocks: [`${error.code}: ${error.message}`] };
}

/**
 * Progress as MCP wants it: every value greater than the one before. The work repeats values (0 while
 * downloading, then while converting); a repeat still tells the client the call is alive (clients
 * reset their timeout on it), so it goes on as a step halfway to the next whole unit, below any later
 * report. A repeat at the total, or one too small to tell apart, is dropped.
 */
export function increasingProgress(send: (progress: JobProgress) => void): (progress: JobProgress) => void {
  let last: number | undefined;
  return (progress) => {
    let value = progress.done;
    if (last !== undefined && value <= last) {
      if (progress.total !== undefined && last >= progress.total) return;
      const ceiling = Math.floor(last) + 1;
      value = last + (ceiling - last) / 2;
      if (!(value > last && value < ceiling) || (progress.total !== undefined && value > progress.total)) return;
    }
    last = value;
    send({ ...progress, done: value });
  };
}

export type ToolSet = ReturnType<typeof createToolSet>;

export interface JobTask {
  job: JobRecord;
  /** The tool result of an ended job: completed (the tool's own reply) or failed (its error). */
  outcome?: ToolOutcome;
}

export function createToolSet(app: App) {
  const selected = selectOperations(app.operations, app.config.GLEANER_MCP_TOOLS);
  const names = new Set(selected.map((operation) => operation.name));
  const pager = createPager(app, (name) => names.has(name));
  const descriptors = selected.map((operation) => {
    const descriptor = toolDescriptor(operation, app.config.GLEANER_MCP_WAIT_SECONDS);
    // Paging adds cursor (and its kin) to the input and nextCursor to the output of tools with long replies.
    const view = appOf(operation.name);
    return {
      ...descriptor,
      inputSchema: pager.inputSchema(operation, descriptor.inputSchema),
      outputSchema: pager.outputSchema(operation, descriptor.outputSchema),
      // MCP Apps: the app a host that renders them shows beside this tool's result (surfaces/apps).
      ...(view ? { _meta: { ui: { resourceUri: view.uri } } } : {}),
    };
  });

  const success = (page: PagedOutcome): ToolOutcome => ({ isError: false, ...page });

  /**
   * A reply naming a screenshot (web_scrape's) carries the PNG as an image block: read once here from
   * the store, by the key that took it, so the image travels with the first page and never with the next.
   */
  const withScreenshot = async (outcome: ToolOutcome, body: unknown, accountId: string): Promise<ToolOutcome> => {
    const url = (body as { screenshot?: { url?: unknown } } | undefined)?.screenshot?.url;
    if (typeof url !== 'string') return outcome;
    const data = await readScreenshot(app.services.store, url, accountId);
    return data ? { ...outcome, images: [{ data, mimeType: 'image/png' }] } : outcome;
  };

  return {
    list: (): ToolDescriptor[] => descriptors,
    /** Whether a tool of that name exists (an unknown one is a protocol error, not a tool error). */
    has: (name: string) => names.has(name),
    async call(name: string, args: unknown, context: ToolCallContext): Promise<ToolOutcome> {
      const requestId = randomUUID();
      const operation = app.gate.operation(name);
      const progress = context.progress && increasingProgress(context.progress);
      if (!operation) return failure(new GleanerError('NOT_FOUND', `No tool named "${name}".`), requestId);
      try {
        // cursor, maxChars, from and to are MCP's own: the operation never sees them.
        const { args: input, request } = pager.split(operation, args);
        const account = await context.account();
        if (request?.cursor) return success(await pager.next(operation, input, request, account));
        const result = await app.gate.call(operation, input, {
          account,
          requestId,
          signal: context.signal,
          sampling: context.sampling,
          // Long synchronous work (a download, each speech-to-text chunk) reports here, so clients
          // that cancel after a quiet minute keep waiting.
          onProgress: progress,
          // A chapter named in from/to is checked against the reply before the call is charged.
          accept: (body) => pager.resolve(body, request),
        });
        const paged = (body: unknown) => pager.first(operation, input, body, request, result.account.id);
        if (!result.job) return withScreenshot(success(await paged(result.body)), result.body, result.account.id);
        const { jobId } = result.job;
        if (context.startJobs) {
          const job = await app.services.jobs.get(jobId, result.account.id);
          if (!isFinal(job.status)) return { ...success(await paged(publicJob(job))), job };
        }
        // The client cancelling the tool call cancels the job it started (charged for what was done).
        const cancel = () => void app.services.jobs.cancel(jobId, result.account.id, 0).catch((error) => app.log.warn({ err: error, jobId }, 'job cancel failed'));
        if (context.signal.aborted) cancel();
        context.signal.addEventListener('abort', cancel, { once: true });
        const job = await app.services.jobs.waitFor(jobId, result.account.id, app.config.GLEANER_MCP_WAIT_SECONDS * 1000, progress, context.signal).finally(() =>
          context.signal.removeEventListener('abort', cancel),
        );
        if (job.status === 'completed') return success(await paged(publicJob(job)));
        if (job.status === 'failed' && job.error) return failure(job.error, requestId);
        const waitedSeconds = app.config.GLEANER_MCP_WAIT_SECONDS;
        const message = `The job is still ${job.status} after ${waitedSeconds} s. Call job_status with jobId "${job.jobId}" to get its result.`;
        return success(await pager.first(operation, input, { ...publicJob(job), message }, request, result.account.id, waitedSeconds));
      } catch (thrown) {
        const error = toGleanerError(thrown);
        if (error.code === 'INTERNAL_ERROR') app.log.error({ err: thrown, requestId, tool: name }, 'internal error in tool call');
        return failure(error, requestId);
      }
    },
    /**
     * A job of the caller's as a task (`cancel`: asked to stop first, charged for what was done): its
     * record and, once it has ended, the tool result it gives (its reply, paged as a first call, or its error).
     */
    async task(jobId: string, account: () => Promise<AccountRecord>, cancel = false): Promise<JobTask> {
      const owner = await account();
      const job = cancel ? await app.services.jobs.cancel(jobId, owner.id, 0) : await app.services.jobs.get(jobId, owner.id);
      const operation = app.gate.operation(job.operation);
      if (job.status === 'completed' && operation) return { job, outcome: success(await pager.first(operation, job.input, publicJob(job), undefined, owner.id)) };
      return { job, outcome: job.status === 'failed' && job.error ? failure(job.error) : undefined };
    },
  };
}
