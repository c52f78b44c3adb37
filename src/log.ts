import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Logs always go to stderr: in stdio mode stdout is the MCP protocol and must carry nothing else.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'gleaner' } }, pino.destination({ fd: 2, sync: true }));
}

/** A logger that discards everything, for library use and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
