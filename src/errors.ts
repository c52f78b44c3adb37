/**
 * The one error type of Gleaner. Every failure a caller can see is a GleanerError with a
 * stable code; REST renders it as the error envelope, MCP as an isError tool result.
 */
import { redactText } from './redact.js';

/**
 * Every error code, its HTTP status, when it is used (meaning) and what the caller or operator does
 * about it (fix). Written once, here: docs/errors.md and the OpenAPI document are generated from it.
 */
export const ERROR_CODES = {
  INVALID_REQUEST: {
    status: 400,
    meaning: 'The request is malformed or a parameter is out of bounds.',
    fix: 'Read the message: it names the parameter and the rule. Correct the request and send it again.',
  },
  URL_NOT_ALLOWED: {
    status: 400,
    meaning: 'The URL points at a private, loopback or metadata address, or uses a scheme other than http(s).',
    fix: 'Send a public http(s) URL. For pages on your own machine or network, the operator may start the server with GLEANER_ALLOW_PRIVATE_URLS=true (never on a server others can call).',
  },
  UNSUPPORTED_URL: {
    status: 400,
    meaning: 'The URL belongs to no supported platform for this operation.',
    fix: 'Use the operation for that platform, or a general one (transcript, web_scrape) that takes any URL.',
  },
  UNSUPPORTED_CONTENT: {
    status: 415,
    meaning: 'The target answered with content this operation cannot read (for example a binary file to scrape).',
    fix: 'Check that the URL serves a page, a PDF or a Word document; link to the page that shows the file rather than to the file itself.',
  },
  CONTENT_UNREADABLE: {
    status: 422,
    meaning: 'The document (PDF or Word) could not be read: it is damaged, password-protected, too complex to read within the limits, or a scanned PDF without a text layer (OCR is not supported).',
    fix: 'Try another copy of the document (unprotected, with a text layer); a scanned PDF needs OCR elsewhere first.',
  },
  UNAUTHORIZED: {
    status: 401,
    meaning: 'The x-api-key header is missing, unknown or revoked.',
    fix: 'Send a valid key in the x-api-key header (or Authorization: Bearer). The operator makes keys with `gleaner keys create`.',
  },
  UPGRADE_REQUIRED: {
    status: 402,
    meaning: 'The operation needs a higher plan (Pro or above).',
    fix: 'Ask the operator for a key on a higher plan (`gleaner keys set-plan <id> Pro`).',
  },
  CREDITS_EXHAUSTED: {
    status: 402,
    meaning: 'The monthly credit allowance cannot cover this request.',
    fix: 'Wait for the monthly reset (`creditsResetAt` in GET /v1/me), or ask the operator for a larger allowance.',
  },
  FORBIDDEN: {
    status: 403,
    meaning: 'The request was refused (for example a Host or Origin the server does not accept).',
    fix: 'Call the server by an address it accepts; the operator adds a reverse proxy\'s name to GLEANER_ALLOWED_HOSTS.',
  },
  NOT_FOUND: {
    status: 404,
    meaning: 'No such route, job or resource.',
    fix: 'Check the path (GET /v1/openapi.json lists every route) or the job id; finished jobs are kept for 7 days.',
  },
  CONTENT_NOT_FOUND: {
    status: 404,
    meaning: 'The video, post, page or channel does not exist upstream.',
    fix: 'Check the URL or id: the item may have been deleted upstream. Nothing was charged.',
  },
  CONTENT_UNAVAILABLE: {
    status: 403,
    meaning: 'The content exists but is private, age-restricted, region-locked or otherwise not viewable.',
    fix: 'Nothing to change on your side: the item cannot be viewed from this server. Nothing was charged.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'The route exists but not with this HTTP method.',
    fix: 'Use the method the Allow header names.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    meaning: 'The request body, or the upstream media, is larger than allowed.',
    fix: 'Send a smaller body, or split a batch; for media, the operator sets GLEANER_MEDIA_MAX_BYTES and GLEANER_MEDIA_MAX_MINUTES.',
  },
  RATE_LIMIT_EXCEEDED: {
    status: 429,
    meaning: 'Too many requests: the per-minute rate of the plan is used up.',
    fix: 'Wait the seconds of the Retry-After header, then send again; a higher plan has a higher rate.',
  },
  TRANSCRIPT_UNAVAILABLE: {
    status: 404,
    meaning: 'The video has no captions and no speech-to-text fallback could produce a transcript.',
    fix: 'Ask with mode=auto or mode=generate (speech to text), which needs the operator to set GLEANER_STT_URL. Nothing was charged.',
  },
  INTERNAL_ERROR: {
    status: 500,
    meaning: 'A defect in Gleaner; the request id identifies it in the logs.',
    fix: 'Report it to the operator with the requestId: the server log holds the details. Nothing was charged.',
  },
  UPSTREAM_ERROR: {
    status: 502,
    meaning: 'The upstream platform or site answered with an error.',
    fix: 'Retry later; if it persists, run `gleaner doctor` on the server. Nothing was charged.',
  },
  NOT_CONFIGURED: {
    status: 503,
    meaning: 'A provider this operation needs (speech-to-text, language model, ffmpeg, a browser to render pages) is not configured or installed.',
    fix: 'The operator sets the variable the message names (GLEANER_STT_URL, GLEANER_LLM_URL, GLEANER_FFMPEG_PATH, GLEANER_BROWSER_PATH...); docs/configuration.md lists them.',
  },
  UPSTREAM_UNAVAILABLE: {
    status: 503,
    meaning: 'The upstream platform or site could not be reached.',
    fix: "Retry later; the operator checks the server's network and proxy (GLEANER_PROXY_URL). Nothing was charged.",
  },
  SERVER_BUSY: {
    status: 503,
    meaning: 'Every reader of this kind of content (PDF and Word documents) stayed busy with other calls past the longest wait; nothing was charged.',
    fix: 'Retry after the Retry-After seconds; the operator raises the number of readers or GLEANER_DOCUMENT_TIMEOUT_MS if it happens often.',
  },
  STORE_UNAVAILABLE: {
    status: 503,
    meaning: "Gleaner's own store (the SQLite file or Redis) could not be read or written; nothing was charged.",
    fix: 'Retry shortly; the operator checks the data directory or Redis (GET /healthz shows the store). Nothing was charged.',
  },
  UPSTREAM_TIMEOUT: {
    status: 504,
    meaning: 'The upstream platform or site did not answer in time.',
    fix: 'Retry; for long media send `Prefer: respond-async` and poll the job. Nothing was charged.',
  },
  UPSTREAM_BLOCKED: {
    status: 503,
    meaning:
      'The platform refused this server (bot check, IP block, a 429 that persists, PO token required, challenge page); the message names the way out: a proxy (GLEANER_PROXY_URL or a per-platform one), cookies (GLEANER_COOKIES_FILE) or a PO-token provider.',
    fix: 'The operator follows the way out the message names, then checks with `gleaner doctor`. Nothing was charged.',
  },
  UPSTREAM_CHANGED: {
    status: 502,
    meaning: "The platform's reply is no longer understood (a missing data blob, a stale query id): update Gleaner.",
    fix: 'The operator updates Gleaner, or the platform profile (GLEANER_PLATFORM_PROFILE) with the newer value from a public source. Nothing was charged.',
  },
} as const satisfies Record<string, { status: number; meaning: string; fix: string }>;

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
