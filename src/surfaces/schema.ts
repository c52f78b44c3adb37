/** JSON Schema of an operation's input, as MCP tools and the OpenAPI document publish it. */
import { z } from 'zod';
import type { AnyOperation } from '../operations/define.js';

const cache = new WeakMap<AnyOperation, Record<string, unknown>>();

export function inputJsonSchema(operation: AnyOperation): Record<string, unknown> {
  let schema = cache.get(operation);
  if (!schema) {
    schema = z.toJSONSchema(operation.input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
    delete schema.$schema;
    if (schema.type === undefined) schema.type = 'object';
    cache.set(operation, schema);
  }
  return schema;
}
