/**
 * The shapes of net/'s public API (re-exported by http.ts, which the rest of src/ imports) and of
 * what travels between its stages.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher, FormData } from 'undici';

export interface FetchOptions {
  method?: 'GET' | 'POST' | 'HEAD' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  headers?: Record<string, string>;
  /** FormData (undici's) for multipart uploads such as the speech-to-text endpoint's. */
  body?: string | Uint8Array | FormData;
  /** Total time for the request, redirects, retries and body included. */
  timeoutMs?: number;
  /** Largest (decompressed) body accepted; a larger one is PAYLOAD_TOO_LARGE. */
  maxBytes?: number;
  /** Redirects followed (5 by default); one more is UPSTREAM_ERROR. */
  maxRedirects?: number;
  /** 'manual' returns a 3xx reply as is (its Location in headers) instead of following it. */
  redirect?: 'follow' | 'manual';
  signal?: AbortSignal;
  /** The SSRF guard (see http.ts's file comment). Default true; false only for operator-configured URLs. */
  guard?: boolean;
  /**
   * The operator's platform credentials go with this request: the cookies of GLEANER_COOKIES_FILE
   * that match each hop's host. Set only by platform adapters for their own requests, never for a
   * URL a caller chose (pages, media files, webhooks). Default false. Whatever the setting, a
   * redirect to another site drops the cookies and every header but the generic ones.
   */
  credentials?: boolean;
  /** Retries on 429, 5xx and connection resets; default 2 for GET and HEAD, 0 for other methods. */
  retries?: number;
  /**
   * False: a 429 is the answer, not retried. Platforms that block by address (YouTube) only extend
   * the block when asked again from the same exit; their adapters rotate the exit instead.
   */
  retryRateLimited?: boolean;
}

export interface FetchResponse {
  /** The URL finally answered (after redirects), as the caller sees it (before overrides). */
  url: string;
  status: number;
  /** Lower-case names; content-encoding and content-length are dropped once the body is decoded. */
  headers: Record<string, string>;
  body: Buffer;
  /** Decoded with the charset of the Content-Type header, a BOM or <meta charset>, else UTF-8. */
  text(): string;
  json<T = unknown>(): T;
}

export interface StreamResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** Decompressed, capped at maxBytes (the stream errors with PAYLOAD_TOO_LARGE past it). */
  body: Readable;
}

/** One hop's reply as the fetch stage hands it to the decode stage. */
export interface Hop {
  status: number;
  headers: Record<string, string>;
  /** Undecoded body stream. */
  body: Dispatcher.ResponseData['body'];
}

/** The decode stage: turns the last hop's reply into what the caller gets (a buffered or a streamed response). */
export type Finish<R> = (hop: Hop, url: URL) => Promise<R>;
