/** JSON Schema checks with ajv: is a user's schema a schema, and does an answer follow it. */
import { Ajv, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: true, strict: false });

/** Why `schema` is not a usable JSON Schema, or undefined when it is. */
export function schemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'must be a JSON Schema object';
  try {
    ajv.compile(schema as Record<string, unknown>);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  return ajv.compile(schema);
}

export function describeValidationErrors(validate: ValidateFunction): string {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
}
