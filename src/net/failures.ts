/**
 * What a failed hop means: transient (worth retrying), a proxy out of reach (skip the exit), or an
 * error for the caller, in words that never carry an address (through a proxy, the proxy's, which
 * may hold its credentials).
 */
import { GleanerError } from '../errors.js';
import { BlockedAddressError } from './guard-agent.js';
import type { Exit } from './egress.js';

export function notAllowed(url: URL, why: string): GleanerError {
  return new GleanerError(
    'URL_NOT_ALLOWED',
    `${url.host} is not allowed: it points at a ${why} address, which this server does not fetch (the operator can open this with GLEANER_ALLOW_PRIVATE_URLS=true).`,
  );
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

function hasCode(error: unknown, codes: Set<string>): boolean {
  if (error instanceof GleanerError) return false;
  return causes(error).some((e) => codes.has((e as { code?: string }).code ?? ''));
}

const RETRYABLE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);

/** Codes of a connection that never reached its peer: through a proxy, the proxy itself is out of reach. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'EADDRNOTAVAIL']);

export function isTransient(error: unknown): boolean {
  return hasCode(error, RETRYABLE_CODES);
}

export function proxyUnreachable(error: unknown): boolean {
  return hasCode(error, UNREACHABLE_CODES);
}

const FAILURE_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'name not found',
  EAI_AGAIN: 'name lookup failed',
  ETIMEDOUT: 'timed out',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_ABORTED: 'request aborted',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the reply ended before its declared length',
  HPE_INVALID_EOF_STATE: 'the reply ended in the middle',
};

/**
 * A failure in words that carry no address: an error's own message names the address it
 * connected to, which through a proxy is the proxy's (and may hold its credentials).
 */
export function describeFailure(error: unknown): string {
  for (const e of causes(error)) {
    const code = (e as { code?: string }).code;
    if (code && FAILURE_WORDS[code]) return FAILURE_WORDS[code];
  }
  const code = causes(error)
    .map((e) => (e as { code?: string }).code)
    .find((c): c is string => typeof c === 'string' && /^[A-Z0-9_]+$/.test(c));
  return code ? `error ${code}` : 'the connection failed';
}

export function toClientError(url: URL, error: unknown, timedOut: boolean, exit: Exit | undefined): GleanerError {
  if (error instanceof GleanerError) return error;
  const blocked = causes(error).find((e) => e instanceof BlockedAddressError) as BlockedAddressError | undefined;
  if (blocked) return notAllowed(url, `${blocked.address}, ${blocked.reason}`);
  // Through a proxy, the error (and so its cause, which logs may print) can name the proxy: neither travels on.
  const cause = exit ? undefined : error;
  const via = exit ? ` through its proxy (${exit.label})` : '';
  if (timedOut) return new GleanerError('UPSTREAM_TIMEOUT', `${url.host} did not answer in time.`, { cause });
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new GleanerError('UPSTREAM_TIMEOUT', `${url.host} did not accept a connection in time${via}.`, { cause });
  const why = exit ? describeFailure(error) : (error as Error).message;
  return new GleanerError('UPSTREAM_UNAVAILABLE', `Could not reach ${url.host}${via}: ${why}`, { cause });
}
