/**
 * The last line against an upstream crashing a long-running process (serve, mcp, worker; issue 19
 * item 4). The HTTP/1 guard (net/h1-guard.ts) keeps undici's paused-parser assertion from escaping
 * its sockets; should another path reach undici's client code and throw from a socket event, no
 * request handler can catch it. Such an exception is logged and the process keeps serving: the
 * request on that connection fails by its own deadline (every upstream request has one, net/http.ts).
 *
 * Only an exception thrown by undici's own code is taken: its stack's first frame is in undici's
 * lib (the npm package or Node's bundled copy), and it was thrown, not a promise left unhandled (a
 * missing catch is this program's fault). Anything else is reported as Node would and ends the
 * process with code 1: a programming error is never swallowed.
 */
import { inspect } from 'node:util';
import type { Logger } from '../log.js';
import { onH1GuardCatch } from '../net/h1-guard.js';
import { redactText } from '../redact.js';

/** undici's client code: the npm package's lib, or Node's bundled copy behind fetch. */
const UNDICI_FRAME = /[/\\]node_modules[/\\]undici[/\\]lib[/\\]|[( ]node:internal\/deps\/undici\//;

/** The first `at ...` line of a stack. */
function firstFrame(error: unknown): string | undefined {
  const stack = (error as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string') return undefined;
  return stack.split('\n').find((line) => /^\s+at /.test(line));
}

/** Whether an exception comes from undici's client code, i.e. from an upstream connection. */
export function isUpstreamClientFault(error: unknown, origin: string): boolean {
  if (origin !== 'uncaughtException' || !(error instanceof Error)) return false;
  const frame = firstFrame(error);
  return frame !== undefined && UNDICI_FRAME.test(frame);
}

export interface SafetyNetOptions {
  /** How the process ends on any other exception (process.exit in production). */
  exit?: (code: number) => void;
  /** Where that exception is reported (stderr in production). */
  report?: (text: string) => void;
}

/**
 * Logs the guard's catches and installs the process-level handler above; returns the function that
 * removes both (for tests; a command's process keeps them for its life).
 */
export function installUpstreamSafetyNet(log: Logger, options: SafetyNetOptions = {}): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const report = options.report ?? ((text: string) => void process.stderr.write(text));
  const stopListening = onH1GuardCatch(({ host, port, message }) =>
    log.warn({ upstream: host === undefined ? undefined : `${host}${port ? `:${port}` : ''}`, assertion: message }, 'HTTP client assertion caught on an upstream connection: that request failed, the process goes on'),
  );
  const handler = (error: unknown, origin: string) => {
    if (isUpstreamClientFault(error, origin)) {
      const e = error as Error & { code?: string };
      log.warn({ error: { name: e.name, code: e.code, message: e.message }, at: firstFrame(e)?.trim() }, 'uncaught exception from the HTTP client on an upstream connection: that request fails, the process goes on');
      return;
    }
    // What Node does without a handler: the error on stderr (its credentials redacted), exit code 1.
    report(`${redactText(inspect(error))}\n`);
    exit(1);
  };
  process.on('uncaughtException', handler);
  return () => {
    stopListening();
    process.off('uncaughtException', handler);
  };
}
