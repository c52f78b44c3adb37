import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type { PinoPretty as PrettyFactory } from 'pino-pretty';
import { redactText } from './redact.js';

export type { Logger };

/**
 * Logs always go to stderr: in stdio mode stdout is the MCP protocol and must carry nothing else.
 * `json` is one object a line for machines; `pretty` formats the same lines for people, in-process
 * (no worker thread), so a crash still flushes its last line.
 */
export function createLogger(level: string, format: 'json' | 'pretty' = 'json'): Logger {
  // The finished line, whatever put a URL or a secret in it (a message, an err serializer's stack), is redacted last.
  const options = { level, base: { service: 'gleaner' }, hooks: { streamWrite: redactText } };
  if (format === 'pretty') {
    // Loaded only when asked for: JSON logging (the default) does not pay for the formatter.
    const { PinoPretty } = createRequire(import.meta.url)('pino-pretty') as { PinoPretty: typeof PrettyFactory };
    return pino(options, PinoPretty({ destination: 2, sync: true, colorize: Boolean(process.stderr.isTTY), ignore: 'pid,hostname,service' }));
  }
  return pino(options, pino.destination({ fd: 2, sync: true }));
}

/** A logger that discards everything, for library use and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
