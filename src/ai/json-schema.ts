/**
 * JSON Schema checks with ajv: is a caller's schema a schema, and does an answer follow it.
 *
 * Checking a call's schema compiles nothing: its bounds (size, depth, nodes), the draft-07
 * meta-schema (whose `regex` format is RE2's syntax here) and its references (inside the schema
 * only) are checked by validators fixed at start. A schema is compiled only when an answer is to be
 * checked against it, by an ajv of its own: one key's `$id` never reaches or breaks another key's
 * schema, and no compiled schema outlives the few most recent kept below. Patterns are matched by
 * RE2 (see linear-pattern.ts), in time linear in the answer.
 */
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import { GleanerError } from '../errors.js';
import { linearRegExp, patternProblem } from './linear-pattern.js';

/** Longest schema as JSON text: it goes to the model with every page. */
export const MAX_SCHEMA_CHARS = 10_000;
/** Deepest nesting of objects and arrays, and most of them, in one schema. */
const MAX_SCHEMA_DEPTH = 32;
const MAX_SCHEMA_NODES = 1_000;
/** Compiled schemas kept for reuse (a crawl checks every page's answer against one schema). */
const KEPT_VALIDATORS = 64;

// Fixed at start and shared: it validates callers' schemas as data, and never compiles one. The
// meta-schema is compiled as a plain schema here, as ajv checks no format in its own meta-schemas.
const metaValidator = new Ajv({ strict: false, logger: false, meta: false, validateSchema: false, formats: { regex: (pattern: string) => patternProblem(pattern) === undefined } }).compile({
  ...draft07,
  $id: 'urn:gleaner:draft-07-meta-schema',
});

const options = {
  allErrors: true,
  strict: false,
  logger: false as const,
  // Checked against the shared meta-schema validator first: a fresh ajv skips compiling its own.
  meta: false,
  validateSchema: false,
  // No format is known to this ajv: `format` is left to the model, as before, and logs nothing.
  validateFormats: false,
  code: { regExp: linearRegExp },
};

const kept = new Map<string, ValidateFunction>();

/** Why the shape of `schema` is past the bounds, or undefined; cheap, and no compiling. */
function boundsProblem(schema: unknown): string | undefined {
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS) return `is ${size} characters of JSON; at most ${MAX_SCHEMA_CHARS}`;
  let nodes = 0;
  const walk = (value: unknown, depth: number): string | undefined => {
    if (typeof value !== 'object' || value === null) return undefined;
    if (depth > MAX_SCHEMA_DEPTH) return `nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
    if (++nodes > MAX_SCHEMA_NODES) return `has more than ${MAX_SCHEMA_NODES} objects and arrays`;
    for (const child of Object.values(value)) {
      const problem = walk(child, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(schema, 1);
}

/** The value at a JSON pointer (`/a/b`, or `#/a/b` for a reference) inside `root`. */
function at(root: unknown, pointer: string): unknown {
  const parts = pointer.replace(/^#/, '').split('/').slice(1).map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
  let value = root;
  for (const part of parts) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A `$ref` that leaves the schema (another document, another key's `$id`) or points at nothing in it. */
function referenceProblem(schema: Record<string, unknown>): string | undefined {
  let problem: string | undefined;
  const walk = (value: unknown): void => {
    if (problem || typeof value !== 'object' || value === null) return;
    const ref = (value as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && (!ref.startsWith('#') || at(schema, ref) === undefined)) {
      problem = `$ref "${ref.slice(0, 100)}" is not a place inside this schema: only references such as "#/definitions/name" are taken`;
    }
    for (const child of Object.values(value)) walk(child);
  };
  walk(schema);
  return problem;
}

function metaProblem(schema: Record<string, unknown>): string | undefined {
  if (metaValidator(schema)) return undefined;
  const errors = metaValidator.errors ?? [];
  const pattern = errors.find((error) => error.keyword === 'format' && error.params.format === 'regex');
  if (pattern) {
    const source = pattern.propertyName ?? at(schema, pattern.instancePath);
    return `is not a valid JSON Schema: ${patternProblem(String(source))}`;
  }
  return `is not a valid JSON Schema: ${describeErrors(errors)}`;
}

/** Why `schema` is not a usable JSON Schema (past the bounds, not a schema, a pattern RE2 refuses, a reference outside it), or undefined. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'must be a JSON Schema object';
  const object = schema as Record<string, unknown>;
  return boundsProblem(object) ?? metaProblem(object) ?? referenceProblem(object);
}

/**
 * The validator of a caller's schema (checked by schemaProblem when the call was parsed). Kept by
 * the hash of its text: a validator is a function of the schema alone, compiled by an ajv of its
 * own, so two keys sending one schema share nothing else.
 */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const problem = schemaProblem(schema);
  if (problem) throw new GleanerError('INVALID_REQUEST', `schema: ${problem}.`);
  const hash = createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
  const found = kept.get(hash);
  if (found) {
    kept.delete(hash);
    kept.set(hash, found);
    return found;
  }
  let validate: ValidateFunction;
  try {
    validate = new Ajv(options).compile(schema);
  } catch (error) {
    throw new GleanerError('INVALID_REQUEST', `schema: is not a valid JSON Schema: ${(error as Error).message}.`);
  }
  kept.set(hash, validate);
  if (kept.size > KEPT_VALIDATORS) kept.delete(kept.keys().next().value!);
  return validate;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
}

export function describeValidationErrors(validate: ValidateFunction): string {
  return describeErrors(validate.errors);
}
