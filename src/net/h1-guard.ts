/**
 * Keeps undici 7's HTTP/1 client from crashing the process when a server closes the connection
 * while a response body is paused.
 *
 * The parser pauses when the reader of a body is slower than the network (a media download writing
 * to disk, a body not read yet). If the server then closes a connection it did not keep alive
 * (HTTP/1.0 or `Connection: close`: Python's http.server and many small hosts), undici's socket
 * listeners ask the paused parser to finish, and `assert(!this.paused)` in Parser.finish throws
 * from a socket event, where no request handler can catch it (nodejs/undici#5360; fixed in undici 8,
 * which needs Node 22.19). Three events lead there:
 *   - 'end' (the server's FIN): held while the parser is paused and handed over once undici reads
 *     the socket again with the parser running, i.e. when the body's reader has caught up; undici 8's
 *     finish() does the same by resuming the parser first;
 *   - 'error' ECONNRESET (the server closed without reading our upload): undici would finish the
 *     paused parser; the error goes on under another code, so the request fails with it instead;
 *   - 'close' with no error recorded: the socket's error is set first, so the request fails.
 * As a last line, an assertion thrown by undici's own listeners of one of these sockets destroys that
 * socket with an error (failing its request) instead of escaping to the process, and is told to the
 * listeners of onH1GuardCatch (the entry points log it: it means the guard above missed a path).
 *
 * undici's parser and error fields are internal: they are taken from undici's own symbol table.
 * Should a future version move them, the guard steps aside (sockets pass through untouched) and
 * test/processes/net-crash.test.ts fails, which is the signal to look again.
 */
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

interface ParserState {
  paused: boolean;
  statusCode: number;
  shouldKeepAlive: boolean;
}

interface Internals {
  parser: symbol;
  error: symbol;
}

function undiciInternals(): Internals | undefined {
  try {
    const symbols = createRequire(import.meta.url)('undici/lib/core/symbols.js') as Record<string, unknown>;
    if (typeof symbols.kParser === 'symbol' && typeof symbols.kError === 'symbol') return { parser: symbols.kParser, error: symbols.kError };
  } catch {
    // Not this undici's layout: the guard is off.
  }
  return undefined;
}

const internals = undiciInternals();

/** True while the guard can see undici's parser (tests check it, so a layout change is noticed). */
export const h1GuardActive = internals !== undefined;

/** What a caught assertion is told as: the upstream's host and port, and the assertion's message (no path, no query). */
export interface H1GuardCatch {
  host: string | undefined;
  port: string | number | undefined;
  message: string;
}

const catchListeners = new Set<(caught: H1GuardCatch) => void>();

/** Listens for the assertions the guard catches; returns the function that stops listening. */
export function onH1GuardCatch(listener: (caught: H1GuardCatch) => void): () => void {
  catchListeners.add(listener);
  return () => void catchListeners.delete(listener);
}

/** An error undici's listeners throw from inside its own client code (an assertion, not an upstream reply). */
function isUndiciAssertion(error: unknown): boolean {
  const e = error as { code?: string; stack?: string } | null;
  return e?.code === 'ERR_ASSERTION' && /[/\\]undici[/\\]lib[/\\]/.test(e.stack ?? '');
}

/** A parser that would be asked to finish while paused: the crash above. */
function finishingPaused(parser: ParserState | null | undefined): boolean {
  return Boolean(parser && parser.paused && parser.statusCode && !parser.shouldKeepAlive);
}

function guardSocket(socket: Socket, { parser: kParser, error: kError }: Internals, upstream: { host?: string; port?: string | number }): void {
  const slots = socket as unknown as Record<symbol, unknown>;
  const parserOf = () => slots[kParser] as ParserState | null | undefined;
  const emit = socket.emit;
  const read = socket.read;
  let heldEnd = false;

  const release = () => {
    if (!heldEnd) return;
    if (socket.destroyed) {
      heldEnd = false;
      return;
    }
    if (finishingPaused(parserOf())) return;
    heldEnd = false;
    socket.allowHalfOpen = false;
    socket.emit('end');
    // undici closes the socket on 'end'; should it not have, the socket's own close-on-end runs now.
    if (!socket.destroyed) socket.end();
  };

  // undici resumes a paused parser by reading the socket; the held 'end' follows that read.
  socket.read = function (this: Socket, size?: number) {
    const chunk = read.call(this, size) as unknown;
    if (heldEnd) process.nextTick(release);
    return chunk;
  } as Socket['read'];

  socket.emit = function (this: Socket, event: string | symbol, ...args: unknown[]): boolean {
    const parser = parserOf();
    if (event === 'end' && finishingPaused(parser)) {
      heldEnd = true;
      // Node ends and destroys a socket right after its 'end' unless it allows half-open: the reply
      // still unread would be lost with it, so the socket stays readable until the 'end' is handed over.
      this.allowHalfOpen = true;
      return true;
    }
    if (event === 'error' && finishingPaused(parser) && (args[0] as { code?: string } | undefined)?.code === 'ECONNRESET') {
      const reset = args[0] as Error;
      args[0] = Object.assign(new Error('The server reset the connection before the reply was read.', { cause: reset }), { code: 'UND_ERR_SOCKET' });
    }
    if (event === 'close' && finishingPaused(parser) && !slots[kError]) {
      slots[kError] = Object.assign(new Error('The server closed the connection before the reply was read.'), { code: 'UND_ERR_SOCKET' });
    }
    try {
      return emit.apply(this, [event, ...args] as Parameters<Socket['emit']>);
    } catch (error) {
      if (!isUndiciAssertion(error)) throw error;
      // The request on this socket fails with this error; the process goes on.
      const failure = Object.assign(new Error('The HTTP client lost track of this connection; the request failed.', { cause: error }), { code: 'UND_ERR_SOCKET' });
      socket.destroy(failure);
      const caught: H1GuardCatch = { host: upstream.host, port: upstream.port, message: (error as Error).message };
      for (const listener of catchListeners) {
        try {
          listener(caught);
        } catch {
          // A listener's fault is not the socket's.
        }
      }
      return true;
    }
  } as Socket['emit'];
}

type Connector = buildConnector.connector;

/** Wraps an undici connector so every socket it opens carries the guard above. */
export function guardedConnector(connect: Connector): Connector {
  if (!internals) return connect;
  const known = internals;
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (socket) guardSocket(socket, known, { host: options.hostname, port: options.port });
      (callback as (error: Error | null, socket: Socket | null) => void)(error, socket);
    });
}
