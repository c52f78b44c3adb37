/**
 * The client's own model on 2026-07-28, which has no server-to-client requests: a call needing it returns
 * input_required with the sampling request, and the client calls again with the answer. Each round runs
 * the call from the start on the answers so far; a round that stops for the model fails before any charge.
 * The answers wait in the store under a random id echoed as requestState (bound to the caller's account),
 * so any process answers the next round.
 */
import { createHash, randomUUID } from 'node:crypto';
import { inputRequired, inputResponse, ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server';
import { samplingParams, sampledText, type SamplingParams } from './sampling.js';
import { GleanerError } from '../../errors.js';
import type { ChatModel } from '../../ai/chat.js';
import type { AccountRecord } from '../../accounts/accounts.js';
import type { Store } from '../../store/store.js';

/** The store, as far as rounds (and cancels and sessions) need it. */
export type RoundState = Pick<Store, 'get' | 'set' | 'delete'>;

interface SavedRounds {
  ownerId: string;
  /** The model's answers so far, by the digest of the sampling request they answer. */
  answers: Record<string, string>;
}

/** How long a client may take over one answer of its model. */
const ROUND_TTL_MS = 30 * 60_000;
/** At most this many answers per call (each round adds one), so a call cannot grow without end. */
const MAX_ANSWERS = 64;
const stateKey = (id: string) => `mcp:rounds:${id}`;

function digest(params: SamplingParams): string {
  return `m${createHash('sha256').update(JSON.stringify(params)).digest('hex').slice(0, 32)}`;
}

export interface ClientModelRounds {
  model: ChatModel;
  /** The input_required result to return when this round stopped for the model, else undefined. */
  pending(): Promise<ReturnType<typeof inputRequired> | undefined>;
}

export async function clientModelRounds(ctx: ServerContext, state: RoundState, account: () => Promise<AccountRecord>): Promise<ClientModelRounds> {
  const echoed = ctx.mcpReq.requestState<unknown>();
  let answers: Record<string, string> = {};
  if (typeof echoed === 'string') {
    const saved = await state.get<SavedRounds>(stateKey(echoed.slice(0, 100)));
    const owner = await account().catch(() => undefined);
    if (!saved || !owner || saved.ownerId !== owner.id) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'The requestState of this call is unknown or has expired: call the tool again without it.');
    }
    answers = { ...saved.answers };
  }
  for (const key of Object.keys(ctx.mcpReq.inputResponses ?? {})) {
    const view = inputResponse(ctx.mcpReq.inputResponses, key);
    if (view.kind === 'sampling' && /^m[0-9a-f]{32}$/.test(key)) answers[key] = sampledText(view.result.content);
  }
  let asked: { key: string; params: SamplingParams } | undefined;
  const model: ChatModel = {
    name: 'mcp-sampling',
    async complete(request) {
      const params = samplingParams(request);
      const key = digest(params);
      if (key in answers) return answers[key];
      asked ??= { key, params };
      throw new GleanerError('UPSTREAM_UNAVAILABLE', "Waiting for the client's model to answer (the tool call is answered with input_required).");
    },
  };
  return {
    model,
    async pending() {
      if (!asked) return undefined;
      if (Object.keys(answers).length >= MAX_ANSWERS) return undefined;
      const owner = await account();
      const id = randomUUID();
      await state.set<SavedRounds>(stateKey(id), { ownerId: owner.id, answers }, ROUND_TTL_MS);
      return inputRequired({ inputRequests: { [asked.key]: inputRequired.createMessage(asked.params as never) }, requestState: id });
    },
  };
}
