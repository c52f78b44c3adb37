/**
 * The CLI's one exit-code rule: 2 for a usage mistake (an unknown command or option, a missing or
 * malformed argument: the person typed something the command does not take), 1 for a failure of
 * the work itself (a key not found, a store or port unavailable). A command throws UsageError for
 * the first kind; main prints its message with the way to the command's help and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util's parseArgs, strict, with its complaints (an unknown option, a missing value, an
 * unexpected argument) turned into UsageError. `positionals`: how many arguments beside options
 * the command takes (0 refuses any).
 */
export function parseOptions<T extends Options>(args: string[], options: T, positionals: number | 'any' = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: positionals !== 0, strict: true });
  } catch (error) {
    // ERR_PARSE_ARGS_UNKNOWN_OPTION, ERR_PARSE_ARGS_INVALID_OPTION_VALUE, ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL.
    if ((error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError(firstLine((error as Error).message));
    throw error;
  }
  if (typeof positionals === 'number' && parsed.positionals.length > positionals) {
    throw new UsageError(`Unexpected argument "${parsed.positionals[positionals]}".`);
  }
  return parsed;
}

/** parseArgs appends a hint about "--" that does not apply to these commands. */
function firstLine(message: string): string {
  return message.split('\n')[0].replace(/\. To specify a positional argument.*$/, '.');
}
