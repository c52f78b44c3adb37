/**
 * The regular expressions of a caller's JSON Schema (`pattern`, `patternProperties`), matched by
 * RE2 (re2js, pure JS): time linear in the text, so no pattern a caller writes can make an answer's
 * check backtrack on the event loop. RE2 has no backreferences or lookaround: such a pattern is
 * refused when the schema is compiled, which is before anything is charged.
 */
import { RE2JS } from 're2js';

/** A pattern RE2 cannot take: ajv's compile fails with this message, the call with a 400. */
export class UnsupportedPattern extends Error {
  constructor(pattern: string, why: string) {
    const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
    super(`pattern "${shown}" is not supported (${why}): patterns are matched in linear time (RE2 syntax), without backreferences or lookaround`);
  }
}

/** ECMAScript's `\uXXXX` in RE2's spelling `\x{XXXX}` (an escaped backslash stays as it is). */
function re2Syntax(pattern: string): string {
  return pattern.replace(/\\\\|\\u([0-9a-fA-F]{4})/g, (escape, hex: string | undefined) => (hex ? `\\x{${hex}}` : escape));
}

class LinearPattern {
  constructor(
    private readonly source: string,
    private readonly re: RE2JS,
  ) {}

  /** Anywhere in the text, as RegExp.prototype.test. */
  test(text: string): boolean {
    return this.re.test(text);
  }

  /** ajv keys its compiled patterns by this: one per source. */
  toString(): string {
    return `/${this.source}/re2`;
  }
}

/** Why RE2 cannot take `pattern`, or undefined when it can (the meta-schema's `regex` format). */
export function patternProblem(pattern: string): string | undefined {
  try {
    linearRegExp(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** ajv's `code.regExp` engine (ajv calls it with the pattern and its unicode flag, which RE2 always has). */
export const linearRegExp = Object.assign(
  (pattern: string): LinearPattern => {
    try {
      return new LinearPattern(pattern, RE2JS.compile(re2Syntax(pattern)));
    } catch (error) {
      throw new UnsupportedPattern(pattern, (error as Error).message.replace(/^error parsing regexp: /, ''));
    }
  },
  // Only read by ajv's standalone code generation, which Gleaner does not use.
  { code: 'linearRegExp' },
);
