/**
 * Callers' JSON Schemas (issue 39, the review's High findings): patterns matched in linear time,
 * patterns RE2 cannot take refused with a clear reason, each schema compiled on its own (one
 * schema's `$id` never reaches another's), and the bounds checked before anything is compiled.
 */
import { describe, expect, it } from 'vitest';
import { compileSchema, describeValidationErrors, schemaProblem } from '../../src/ai/json-schema.js';

describe('caller patterns', () => {
  it('a catastrophic pattern checks a long non-matching answer, and answers it correctly', () => {
    // ^(a|a)*$ against 40 a's and a "!": a backtracking engine takes 2^40 steps (days); RE2 is linear.
    const validate = compileSchema({ type: 'string', pattern: '^(a|a)*$' });
    expect(validate(`${'a'.repeat(40)}!`)).toBe(false);
    expect(describeValidationErrors(validate)).toMatch(/must match pattern/);
    expect(validate('a'.repeat(40))).toBe(true);
  });

  it('patternProperties are matched by the same engine', () => {
    const validate = compileSchema({ type: 'object', patternProperties: { '^(a|a)*$': { type: 'number' } }, additionalProperties: false });
    expect(validate({ [`${'a'.repeat(40)}!`]: 1 })).toBe(false);
    expect(validate({ aaa: 1 })).toBe(true);
  });

  it('patterns keep ECMAScript meaning where RE2 spells them differently (\\u escapes, anywhere-in-text)', () => {
    const validate = compileSchema({ type: 'string', pattern: '\\u00e9t\\u00e9' });
    expect(validate('un été chaud')).toBe(true);
    expect(validate('ete')).toBe(false);
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['a lookahead', '^(?=a)a'],
    ['a negative lookahead', '^(?!b)a'],
    ['a lookbehind', '(?<=a)b'],
  ])('%s is refused with the reason, before anything runs', (_name, pattern) => {
    expect(schemaProblem({ type: 'object', properties: { v: { type: 'string', pattern } } })).toMatch(/not a valid JSON Schema: pattern ".*" is not supported .*linear time \(RE2 syntax\), without backreferences or lookaround/);
  });
});

describe('each schema on its own', () => {
  it("one schema's $id does not break another schema that has the same $id", () => {
    const first = compileSchema({ $id: 'https://example.test/shared', type: 'object', required: ['a'] });
    const second = compileSchema({ $id: 'https://example.test/shared', type: 'object', required: ['b'] });
    expect(first({ a: 1 })).toBe(true);
    expect(second({ a: 1 })).toBe(false);
    expect(second({ b: 1 })).toBe(true);
  });

  it("a $ref to another schema's $id, or to anything outside the schema, is refused", () => {
    compileSchema({ $id: 'https://example.test/secret', type: 'object', properties: { token: { const: 'hidden' } } });
    expect(schemaProblem({ $ref: 'https://example.test/secret' })).toMatch(/\$ref "https:\/\/example\.test\/secret" is not a place inside this schema/);
    expect(schemaProblem({ $ref: 'https://elsewhere.test/schema.json' })).toMatch(/is not a place inside this schema/);
    expect(schemaProblem({ properties: { a: { $ref: '#/definitions/missing' } } })).toMatch(/is not a place inside this schema/);
  });

  it('a $ref inside the schema still works', () => {
    const validate = compileSchema({ definitions: { name: { type: 'string', minLength: 2 } }, type: 'object', properties: { a: { $ref: '#/definitions/name' } } });
    expect(validate({ a: 'ok' })).toBe(true);
    expect(validate({ a: 'x' })).toBe(false);
  });
});

describe('bounds before compiling', () => {
  const nested = (depth: number): Record<string, unknown> => (depth === 0 ? { type: 'string' } : { type: 'array', items: nested(depth - 1) });

  it('too deep, too many nodes, too long: refused with the bound', () => {
    expect(schemaProblem(nested(40))).toMatch(/nests deeper than 32 levels/);
    expect(schemaProblem(nested(10))).toBeUndefined();
    // Within the length bound, a schema can still be a great many small objects and arrays.
    expect(schemaProblem({ enum: Array.from({ length: 1_100 }, () => []) })).toMatch(/more than 1000 objects and arrays/);
    expect(schemaProblem({ description: 'x'.repeat(10_001) })).toMatch(/10\d{3} characters of JSON; at most 10000/);
  });

  it('not a schema: the meta-schema says why', () => {
    expect(schemaProblem({ type: 'not-a-type' })).toMatch(/not a valid JSON Schema: \/type must be equal to one of the allowed values/);
    expect(schemaProblem([])).toBe('must be a JSON Schema object');
  });
});
