/**
 * The MCP SDK (v2) is used here, in http.ts and in client-model.ts only. One server definition serves
 * 2026-07-28 requests (stateless, capabilities in `_meta`) and 2025-era clients, over HTTP and stdio.
 */
import { z } from 'zod';
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, Server, type AuthInfo, type ServerContext } from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { failure, type JobTask, type ToolOutcome, type ToolSet } from './toolset.js';
import { PAGE_META } from './paging.js';
import { APP_MIME_TYPE, APPS, readApp } from '../apps/apps.js';
import { clientModelRounds, type RoundState } from './client-model.js';
import { samplingParams, sampledText } from './sampling.js';
import { taskOf, TASKS_EXTENSION } from './tasks.js';
import type { Cancellations } from './cancels.js';
import { IMAGE_REFUSAL, ImagesRefused, type ChatModel, type ChatRequest } from '../../ai/chat.js';
import { ERROR_CODES, GleanerError, type ErrorCode } from '../../errors.js';
import { requestsTotal } from '../../observability/metrics.js';
import { missingApiKey, type AccountRecord } from '../../accounts/accounts.js';
import type { JobProgress } from '../../jobs/jobs.js';

export interface ServerIdentity {
  name: string;
  version: string;
  instructions: string;
}

/** `accountOf`: who a request acts as; `cancels`: cancels from other processes (HTTP only); `rounds`: where a client's model answers wait. */
interface SdkServerOptions {
  accountOf: (ctx: ServerContext) => Promise<AccountRecord>;
  cancels?: Cancellations;
  rounds: RoundState;
}

/** How long a client may cache the tool list (it changes only with the server's configuration). */
const TOOL_LIST_TTL_MS = 5 * 60_000;
/** How long the client's model may take (the SDK's 60 s is short of a user approving, or frames read on a busy machine). */
const CLIENT_MODEL_TIMEOUT_MS = 10 * 60_000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The HTTP status a tool call's outcome stands for, for the request counter. */
function outcomeStatus(outcome: ToolOutcome): string {
  if (!outcome.isError) return '200';
  const code = (outcome.body as { error?: { code?: string } })?.error?.code;
  return code && code in ERROR_CODES ? String(ERROR_CODES[code as ErrorCode].status) : '500';
}

/** The result of a tool call: a failure is one text block, `CODE: message`, without structuredContent (outputSchema describes successes). */
export function callResult(outcome: ToolOutcome) {
  const text = outcome.blocks.map((block) => ({ type: 'text' as const, text: block }));
  if (outcome.isError) return { content: text, isError: true };
  const images = (outcome.images ?? []).map((image) => ({ type: 'image' as const, data: image.data, mimeType: image.mimeType }));
  const meta = outcome.page === undefined ? {} : { _meta: { [PAGE_META]: outcome.page } };
  return { content: [...text, ...images], structuredContent: outcome.body as Record<string, unknown>, ...meta };
}

/** The capabilities a 2026-07-28 request declares in its own `_meta` (absent on 2025-era requests). */
function requestCapabilities(ctx: ServerContext): Record<string, unknown> | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return envelope ? (isPlainObject(declared) ? declared : {}) : undefined;
}

function declaresTasks(capabilities: Record<string, unknown> | undefined): boolean {
  const extensions = capabilities?.extensions;
  return isPlainObject(extensions) && TASKS_EXTENSION in extensions;
}

/** The client's own model through 2025-era sampling (sampling/createMessage on the call's stream). */
function samplingModel(ctx: ServerContext): ChatModel {
  return {
    name: 'mcp-sampling',
    async complete(request: ChatRequest) {
      const params = samplingParams(request);
      let result;
      try {
        result = await ctx.mcpReq.requestSampling(params as never, { timeout: CLIENT_MODEL_TIMEOUT_MS });
      } catch (error) {
        if (request.images?.length && error instanceof Error && IMAGE_REFUSAL.test(error.message)) throw new ImagesRefused(error.message);
        throw error;
      }
      return sampledText(result.content);
    },
  };
}

/** Progress notifications for the call (toolset.ts makes every value greater than the one before, as the spec asks). */
function progressSender(ctx: ServerContext, progressToken: string | number | undefined): ((p: JobProgress) => void) | undefined {
  if (progressToken === undefined) return undefined;
  return ({ done, total, message }) =>
    void ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken, progress: done, ...(total !== undefined ? { total: Math.max(total, done) } : {}), ...(message ? { message } : {}) } })
      .catch(() => undefined);
}

const TaskIdParams = z.object({ taskId: z.string().min(1).max(200) }).loose();
const TaskUpdateParams = z.object({ taskId: z.string().min(1).max(200), inputResponses: z.record(z.string(), z.unknown()).optional() }).loose();

const CALL_PARAMS_HINT = 'tools/call needs params: { "name": <a tool from tools/list>, "arguments": { ... } }.';

/** Calls whose arguments were not an object (answered as a failed call, as on REST; see tools/call). */
const badArguments = new WeakSet<object>();

/**
 * tools/call params checked before the SDK's own schema, whose refusals dump its validation: a call
 * without a name is told what a call needs; arguments that are not an object are answered INVALID_REQUEST.
 */
class GleanerServer extends Server {
  protected override _wrapHandler(method: string, handler: Parameters<Server['_wrapHandler']>[1]): ReturnType<Server['_wrapHandler']> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return (request, ctx) => {
      const params = request.params as Record<string, unknown> | undefined;
      if (!isPlainObject(params) || typeof params.name !== 'string') throw new ProtocolError(ProtocolErrorCode.InvalidParams, CALL_PARAMS_HINT);
      if (params.arguments === undefined || isPlainObject(params.arguments)) return wrapped(request, ctx);
      badArguments.add(ctx);
      return wrapped({ ...request, params: { ...params, arguments: {} } }, ctx);
    };
  }
}

/** One SDK server over the tool set, for one HTTP request or one stdio connection. */
export function createSdkServer(identity: ServerIdentity, tools: ToolSet, options: SdkServerOptions): Server {
  const server = new GleanerServer(
    { name: identity.name, version: identity.version },
    {
      capabilities: { tools: {}, resources: {}, logging: {}, extensions: { [TASKS_EXTENSION]: {} } },
      instructions: identity.instructions,
      cacheHints: { 'tools/list': { ttlMs: TOOL_LIST_TTL_MS, cacheScope: 'public' } },
    },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: tools.list() as never }));
  // MCP Apps: the ui:// resources the tools name (surfaces/apps).
  server.setRequestHandler('resources/list', async () => ({ resources: APPS.map(({ uri, name, description, meta }) => ({ uri, name, description, mimeType: APP_MIME_TYPE, _meta: meta })) }));
  server.setRequestHandler('resources/read', async (request) => {
    const app = readApp(request.params.uri);
    if (!app) throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Unknown resource: ${request.params.uri.slice(0, 100)}`);
    return app as never;
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const params = request.params;
    // An unknown tool is a protocol error. Checked first: no caller's name reaches a label or a log unchecked.
    if (!tools.has(params.name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name.slice(0, 100)}. tools/list names the tools.`);
    const args = params.arguments ?? {};
    if (badArguments.has(ctx)) {
      const outcome = failure({ code: 'INVALID_REQUEST', message: 'The tool arguments must be a JSON object of named parameters.' });
      requestsTotal.inc({ surface: 'mcp', operation: params.name, status: outcomeStatus(outcome) });
      return callResult(outcome);
    }
    const capabilities = requestCapabilities(ctx);
    const modern = capabilities !== undefined;
    const account = () => options.accountOf(ctx);
    // The client's model: 2026-07-28 asks for it in input_required rounds; 2025 clients sample.
    const rounds = modern && capabilities.sampling ? await clientModelRounds(ctx, options.rounds, account) : undefined;
    const sampling = rounds ? rounds.model : !modern && server.getClientCapabilities()?.sampling ? samplingModel(ctx) : undefined;
    // A notifications/cancelled may reach another process: watched through the store.
    const owner = options.cancels ? await account().catch(() => undefined) : undefined;
    const watch = owner && options.cancels ? options.cancels.watch(owner.id, ctx.mcpReq.id, ctx.mcpReq.signal) : undefined;
    const outcome = await tools
      .call(params.name, args, {
        sampling,
        account,
        signal: watch?.signal ?? ctx.mcpReq.signal,
        progress: progressSender(ctx, params._meta?.progressToken),
        startJobs: modern && declaresTasks(capabilities),
      })
      .finally(() => watch?.stop());
    const asked = rounds ? await rounds.pending() : undefined;
    if (asked) return asked;
    requestsTotal.inc({ surface: 'mcp', operation: params.name, status: outcomeStatus(outcome) });
    if (outcome.job) return { resultType: 'task', ...taskOf({ job: outcome.job }) } as never;
    return callResult(outcome);
  });

  // The Tasks extension (io.modelcontextprotocol/tasks): a task is a Gleaner job, kept in the store,
  // so any process answers for it. Only a request that declares the extension may use it.
  const taskCall = (ctx: ServerContext, taskId: string, cancel = false): Promise<unknown> => {
    if (!declaresTasks(requestCapabilities(ctx))) {
      throw new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    return tools.task(taskId, () => options.accountOf(ctx), cancel).then(
      // The inline result is a 2026-07-28 CallToolResult, which names its kind.
      (task: JobTask) => taskOf(task, (outcome) => ({ resultType: 'complete', ...callResult(outcome) })),
      (error) => {
        if (error instanceof GleanerError && error.code === 'NOT_FOUND') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: ${error.message}`);
        throw error;
      },
    );
  };
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, (p, ctx) => taskCall(ctx, p.taskId) as never);
  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, (p, ctx) => taskCall(ctx, p.taskId, true).then(() => ({})));
  // Gleaner's jobs never wait for input: an update is acknowledged once the task is known to be the caller's.
  server.setRequestHandler('tasks/update', { params: TaskUpdateParams }, (p, ctx) => taskCall(ctx, p.taskId).then(() => ({})));
  return server;
}

/** Serves the tools over stdio (either era, decided by the client's opening); stdout carries the protocol only. */
export async function serveStdio(
  identity: ServerIdentity,
  tools: ToolSet,
  account: () => Promise<AccountRecord>,
  rounds: RoundState,
  onerror?: (error: Error) => void,
): Promise<() => Promise<void>> {
  const handle = sdkServeStdio(() => createSdkServer(identity, tools, { accountOf: withStdioKeyHint(account), rounds }), { onerror });
  return () => handle.close();
}

const STDIO_KEY_REFUSED =
  'The key in GLEANER_API_KEY is unknown or revoked: set GLEANER_API_KEY in the environment of the Gleaner MCP server (in Claude Desktop, the "env" of its entry) to a key from "gleaner keys create", or remove it to act as the local owner of the store.';

/** Over stdio the key is fixed in the server's environment, so a refusal says where (the local owner's already does). */
function withStdioKeyHint(account: () => Promise<AccountRecord>): () => Promise<AccountRecord> {
  return () =>
    account().catch((error: unknown) => {
      if (error instanceof GleanerError && error.code === 'UNAUTHORIZED' && !/GLEANER_API_KEY/.test(error.message)) throw new GleanerError('UNAUTHORIZED', STDIO_KEY_REFUSED);
      throw error;
    });
}

/** An HTTP request acts as the account its key was checked for (the HTTP surface passes it as authInfo). */
export async function accountOfRequest(ctx: ServerContext): Promise<AccountRecord> {
  const account = ctx.http?.authInfo?.extra?.account as AccountRecord | undefined;
  if (!account) throw missingApiKey();
  return account;
}

/** The authInfo the SDK hands to handlers for a request of `account`. */
export function authInfoOf(account: AccountRecord | undefined): AuthInfo | undefined {
  return account ? { token: '', clientId: account.id, scopes: [], extra: { account } } : undefined;
}
