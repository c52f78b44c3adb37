/**
 * The one error type of Gleaner. Every failure a caller can see is a GleanerError with a
 * stable code; REST renders it as the error envelope, MCP as an isError tool result.
 */
import { redactText } from './redact.js';

/** Every error code, its HTTP status and when it is used. Written once, here. */
export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, meaning: 'The request is malformed or a parameter is out of bounds.' },
  URL_NOT_ALLOWED: { status: 400, meaning: 'The URL points at a private, loopback or metadata address, or uses a scheme other than http(s).' },
  UNSUPPORTED_URL: { status: 400, meaning: 'The URL belongs to no supported platform for this operation.' },
  UNSUPPORTED_CONTENT: { status: 415, meaning: 'The target answered with content this operation cannot read (for example a binary file to scrape).' },
  CONTENT_UNREADABLE: {
    status: 422,
    meaning: 'The document (PDF or Word) could not be read: it is damaged, password-protected, too complex to read within the limits, or a scanned PDF without a text layer (OCR is not supported).',
  },
  UNAUTHORIZED: { status: 401, meaning: 'The x-api-key header is missing, unknown or revoked.' },
  UPGRADE_REQUIRED: { status: 402, meaning: 'The operation needs a higher plan (Pro or above).' },
  CREDITS_EXHAUSTED: { status: 402, meaning: 'The monthly credit allowance cannot cover this request.' },
  FORBIDDEN: { status: 403, meaning: 'The request was refused (for example a Host or Origin the server does not accept).' },
  NOT_FOUND: { status: 404, meaning: 'No such route, job or resource.' },
  CONTENT_NOT_FOUND: { status: 404, meaning: 'The video, post, page or channel does not exist upstream.' },
  CONTENT_UNAVAILABLE: { status: 403, meaning: 'The content exists but is private, age-restricted, region-locked or otherwise not viewable.' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The route exists but not with this HTTP method.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The request body, or the upstream media, is larger than allowed.' },
  RATE_LIMIT_EXCEEDED: { status: 429, meaning: 'Too many requests: the per-minute rate of the plan is used up.' },
  TRANSCRIPT_UNAVAILABLE: { status: 404, meaning: 'The video has no captions and no speech-to-text fallback could produce a transcript.' },
  INTERNAL_ERROR: { status: 500, meaning: 'A defect in Gleaner; the request id identifies it in the logs.' },
  UPSTREAM_ERROR: { status: 502, meaning: 'The upstream platform or site answered with an error.' },
  NOT_CONFIGURED: { status: 503, meaning: 'A provider this operation needs (speech-to-text, language model, ffmpeg, a browser to render pages) is not configured or installed.' },
  UPSTREAM_UNAVAILABLE: { status: 503, meaning: 'The upstream platform or site could not be reached.' },
  SERVER_BUSY: {
    status: 503,
    meaning: 'Every reader of this kind of content (PDF and Word documents) stayed busy with other calls past the longest wait; nothing was charged. Retry after the Retry-After seconds.',
  },
  STORE_UNAVAILABLE: { status: 503, meaning: "Gleaner's own store (the SQLite file or Redis) could not be read or written; nothing was charged." },
  UPSTREAM_TIMEOUT: { status: 504, meaning: 'The upstream platform or site did not answer in time.' },
  UPSTREAM_BLOCKED: {
    status: 503,
    meaning:
      'The platform refused this server (bot check, IP block, a 429 that persists, PO token required, challenge page); the message names the way out: a proxy (GLEANER_PROXY_URL or a per-platform one), cookies (GLEANER_COOKIES_FILE) or a PO-token provider.',
  },
  UPSTREAM_CHANGED: {
    status: 502,
    meaning: "The platform's reply is no longer understood (a missing data blob, a stale query id): update Gleaner.",
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class GleanerError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers (e.g. Retry-After), rendered by the REST surface. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; headers?: Record<string, string> } = {}) {
    // Every message a caller or a log sees passes here: no configured credential leaves in one.
    super(redactText(message), { cause: options.cause });
    this.name = 'GleanerError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.headers = options.headers ?? {};
  }
}

export function isGleanerError(error: unknown): error is GleanerError {
  return error instanceof GleanerError;
}

/** Any thrown value as a GleanerError: unknown failures become INTERNAL_ERROR without leaking internals. */
export function toGleanerError(error: unknown): GleanerError {
  if (isGleanerError(error)) return error;
  if (error instanceof Error && error.name === 'AbortError') {
    return new GleanerError('UPSTREAM_TIMEOUT', 'The request was aborted before it finished.', { cause: error });
  }
  return new GleanerError('INTERNAL_ERROR', 'An internal error occurred; the request id identifies it in the server log.', { cause: error });
}

/**
 * The body every surface shows for an error: the spec's nested `error`, plus the message at the top
 * level, where clients written for Supadata's flat errors (its SDK's SupadataError) read it.
 */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; requestId: string };
  message: string;
}

export function errorEnvelope(error: GleanerError, requestId: string): ErrorEnvelope {
  return { error: { code: error.code, message: error.message, requestId }, message: error.message };
}
