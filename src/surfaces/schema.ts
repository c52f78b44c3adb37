/**
 * JSON Schemas of an operation's input and reply, as MCP tools and the OpenAPI document publish
 * them. A job operation replies with the job (its result is the operation's output).
 */
import { z } from 'zod';
import { sometimesJob, type AnyOperation } from '../operations/define.js';
import { jobReply } from '../operations/outputs.js';

type JsonSchema = Record<string, unknown>;

const inputs = new WeakMap<AnyOperation, JsonSchema>();
const replies = new WeakMap<AnyOperation, z.ZodType>();
const replyJson = new WeakMap<AnyOperation, JsonSchema>();

function toJson(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  if (json.type === undefined) json.type = 'object';
  return json;
}

export function inputJsonSchema(operation: AnyOperation): JsonSchema {
  let schema = inputs.get(operation);
  if (!schema) inputs.set(operation, (schema = toJson(operation.input, 'input')));
  return schema;
}

/** The zod schema of what a successful call answers: the output, or for a job the job record. */
export function replySchema(operation: AnyOperation): z.ZodType {
  let schema = replies.get(operation);
  if (!schema) {
    // MCP never asks for a handed-off job (it waits instead), so only jobWhen widens the reply here.
    schema = operation.kind === 'job' ? jobReply(operation.output) : operation.jobWhen ? z.union([operation.output, jobReply(operation.output)]) : operation.output;
    replies.set(operation, schema);
  }
  return schema;
}

/**
 * The REST success bodies by status: what a sync call answers (200) and, for an operation that
 * runs as a job for some inputs (Operation.jobWhen), the job it starts (202).
 */
export function successJsonSchemas(operation: AnyOperation): { reply: JsonSchema; job?: JsonSchema } {
  if (!sometimesJob(operation)) return { reply: replyJsonSchema(operation) };
  return { reply: toJson(operation.output, 'output'), job: toJson(jobReply(operation.output), 'output') };
}

/** The operation's own result (for a job: what the job ends with), as an inline route answers it. */
export function resultJsonSchema(operation: AnyOperation): JsonSchema {
  return toJson(operation.output, 'output');
}

export function replyJsonSchema(operation: AnyOperation): JsonSchema {
  let schema = replyJson.get(operation);
  if (!schema) replyJson.set(operation, (schema = toJson(replySchema(operation), 'output')));
  return schema;
}
