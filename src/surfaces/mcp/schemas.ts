/**
 * The JSON Schemas an MCP tool publishes: the REST schemas made small and portable, as the tool list travels in
 * every conversation and many clients are strict. No `type` arrays or `null` branches (a nullable value is left
 * undescribed: `{ type: X }` would refuse its null); no empty schemas; never `additionalProperties` (a schema is not
 * portable; `false` would refuse what is left undescribed and what a page adds); an output lists the fields every
 * reply carries, by type; inputs leave out `restAliases`, patterns and string lengths no model reaches (the server
 * checks them and says what is wrong). The result only loosens the REST schema: a valid reply there is valid here.
 */
import type { AnyOperation } from '../../operations/define.js';
import { inputJsonSchema, replyJsonSchema } from '../schema.js';

type JsonSchema = Record<string, unknown>;

/** Levels of an output described: the reply's own fields, by their type. */
const OUTPUT_DEPTH = 1;

/**
 * Bookkeeping fields every job reply carries that a model never acts on: left out of the listed
 * outputs (six job tools each paid for them). The replies still carry them.
 */
const OUTPUT_UNLISTED = new Set(['createdAt', 'updatedAt']);

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/** A string bound no model reaches writing a value: a URL's, a token's. */
const LONG_STRING = 2048;

const isNullSchema = (node: unknown) => (node as JsonSchema | undefined)?.type === 'null';

/** The schema without its null branch; undefined when nothing but null (or nothing at all) is left. */
function withoutNull(node: JsonSchema): { schema: JsonSchema | undefined; nullable: boolean } {
  if (Array.isArray(node.type)) {
    const types = (node.type as string[]).filter((t) => t !== 'null');
    const nullable = types.length < (node.type as string[]).length;
    return { schema: types.length === 1 ? { ...node, type: types[0] } : types.length ? { ...node, type: undefined, anyOf: types.map((type) => ({ type })) } : undefined, nullable };
  }
  const branches = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
  if (branches && branches.some(isNullSchema)) {
    const rest = branches.filter((b) => !isNullSchema(b));
    const { anyOf: _a, oneOf: _o, ...own } = node;
    return { schema: rest.length === 1 ? { ...rest[0], ...own } : { ...own, anyOf: rest }, nullable: true };
  }
  return { schema: node, nullable: false };
}

/** Whether a node says anything a validator checks. */
function constrains(node: JsonSchema): boolean {
  return ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'].some((keyword) => node[keyword] !== undefined);
}

interface Options {
  /** Levels still described in full; below 1 only the type is kept. */
  depth: number;
  descriptions: boolean;
}

/** A portable copy of `node`, or undefined when it must be left undescribed. */
function portable(node: JsonSchema, options: Options): JsonSchema | undefined {
  const { schema, nullable } = withoutNull(node);
  if (!schema || nullable || !constrains(schema)) return undefined;
  const out: JsonSchema = {};
  if (schema.type !== undefined) out.type = schema.type;
  if (options.depth < 1) return typeOnly(schema);
  // No `pattern`: the server checks its inputs and says what is wrong; a date-time pattern is 500 characters.
  for (const keyword of ['enum', 'const', 'format', 'minLength', 'maxLength', 'minItems', 'maxItems', 'default']) {
    if (schema[keyword] !== undefined) out[keyword] = schema[keyword];
  }
  // A required string is not empty: saying so in every field costs more than it tells.
  if (out.minLength === 1) delete out.minLength;
  // A length bound is listed where a model writing a value could reach it (a query, a prompt): not
  // for a URL or a token (2048 and more), nor for a code whose pattern (not listed) is its real bound.
  if (typeof out.maxLength === 'number' && (out.maxLength >= LONG_STRING || schema.pattern !== undefined)) delete out.maxLength;
  // A flag that is off unless given goes without saying.
  if (out.type === 'boolean' && out.default === false) delete out.default;
  for (const bound of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
    const value = schema[bound];
    if (typeof value === 'number' && Math.abs(value) !== SAFE_INTEGER) out[bound] = value;
  }
  if (options.descriptions && typeof schema.description === 'string') out.description = schema.description;
  const deeper = { ...options, depth: options.depth - 1 };
  if (schema.properties) {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, child] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
      const kept = portable(child, deeper);
      if (kept) properties[name] = kept;
    }
    if (Object.keys(properties).length) out.properties = properties;
    const required = ((schema.required as string[] | undefined) ?? []).filter((name) => name in properties);
    if (required.length) out.required = required;
  }
  if (schema.items && typeof schema.items === 'object') {
    const items = portable(schema.items as JsonSchema, deeper);
    if (items) out.items = items;
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword] as JsonSchema[] | undefined;
    if (!branches) continue;
    const kept = branches.map((b) => portable(b, options));
    // A branch that cannot be described makes the whole union undescribable.
    if (kept.some((b) => b === undefined)) return out.type === undefined ? undefined : { type: out.type };
    out[keyword] = dedupe(kept as JsonSchema[]);
  }
  if (out.anyOf && (out.anyOf as JsonSchema[]).length === 1) {
    const [only] = out.anyOf as JsonSchema[];
    delete out.anyOf;
    Object.assign(out, only);
  }
  return constrains(out) ? out : undefined;
}

/** A value by its type alone (a union by the types of its branches). */
function typeOnly(schema: JsonSchema): JsonSchema | undefined {
  if (typeof schema.type === 'string') return { type: schema.type };
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (!branches) return undefined;
  const types = branches.map((b) => withoutNull(b));
  if (types.some((t) => t.nullable || typeof t.schema?.type !== 'string')) return undefined;
  const kept = dedupe(types.map((t) => ({ type: t.schema!.type })));
  return kept.length === 1 ? kept[0] : { anyOf: kept };
}

/** Branches cut to their type alone often coincide (the kinds of a search result): keep one of each. */
function dedupe(branches: JsonSchema[]): JsonSchema[] {
  return [...new Map(branches.map((b) => [JSON.stringify(b), b])).values()];
}

export function mcpInputSchema(operation: AnyOperation): JsonSchema {
  const full = { ...inputJsonSchema(operation) } as JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] };
  const hidden = new Set(operation.restAliases ?? []);
  const properties: Record<string, JsonSchema> = {};
  for (const [name, child] of Object.entries(full.properties ?? {})) {
    if (hidden.has(name)) continue;
    // An input value no portable schema describes (a JSON Schema the caller writes) is any object.
    properties[name] = portable(child, { depth: Infinity, descriptions: true }) ?? { type: 'object', ...(child.description ? { description: child.description } : {}) };
  }
  const required = (full.required ?? []).filter((name) => name in properties);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

/**
 * The fields every reply carries, by type (no `required` list: it would repeat the names); a union
 * of replies (a sync reply or the job it started) lists each one's.
 */
function essentials(schema: JsonSchema): JsonSchema {
  if (schema.anyOf) return { type: 'object', anyOf: dedupe((schema.anyOf as JsonSchema[]).map(essentials)) };
  const required = ((schema.required as string[] | undefined) ?? []).filter((name) => !OUTPUT_UNLISTED.has(name));
  const properties = Object.fromEntries(Object.entries((schema.properties as Record<string, JsonSchema>) ?? {}).filter(([name]) => required.includes(name)));
  return { type: 'object', ...(required.length ? { properties } : {}) };
}

export function mcpOutputSchema(operation: AnyOperation): JsonSchema {
  const schema = portable(replyJsonSchema(operation), { depth: OUTPUT_DEPTH, descriptions: false }) ?? { type: 'object' };
  return essentials(schema);
}
