/**
 * The decode stage: the last hop's reply as the caller gets it, decompressed and capped at maxBytes,
 * either whole (with charset-aware text and JSON) or as a stream.
 */
import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { GleanerError } from '../errors.js';
import { decodeBody } from './charset.js';
import { describeFailure } from './failures.js';
import type { FetchResponse, Hop, StreamResponse } from './types.js';

function tooLarge(url: URL, maxBytes: number): GleanerError {
  return new GleanerError('PAYLOAD_TOO_LARGE', `The response from ${url.host} is larger than ${maxBytes} bytes.`);
}

function undecodable(url: URL, encoding: string | undefined, cause?: unknown): GleanerError {
  return new GleanerError('UPSTREAM_ERROR', `The response from ${url.host} could not be decompressed (${encoding}).`, cause === undefined ? undefined : { cause });
}

/** Headers as the caller sees them once the body is decoded: no content-encoding, no content-length. */
function decodedHeaders(headers: Record<string, string>, decoded: boolean): Record<string, string> {
  const copy = { ...headers };
  if (decoded) {
    delete copy['content-encoding'];
    delete copy['content-length'];
  }
  return copy;
}

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

/** Reads the body, decompresses it, and refuses more than maxBytes before or after decompression. */
export async function readCapped(hop: Hop, url: URL, maxBytes: number): Promise<Buffer> {
  const declared = Number(hop.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    hop.body.destroy();
    throw tooLarge(url, maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of hop.body) {
    size += chunk.length;
    if (size > maxBytes) {
      hop.body.destroy();
      throw tooLarge(url, maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  const encoding = hop.headers['content-encoding']?.trim().toLowerCase();
  if (!encoding || encoding === 'identity' || raw.length === 0) return raw;
  const limits = { maxOutputLength: maxBytes };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return await gunzip(raw, limits);
    if (encoding === 'br') return await brotli(raw, limits);
    // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
    if (encoding === 'deflate') return (raw[0] & 0x0f) === 8 ? await inflate(raw, limits) : await inflateRaw(raw, limits);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(url, maxBytes);
    throw undecodable(url, encoding, error);
  }
  return raw;
}

/** The whole reply: body read (capped, decompressed), text decoded on first use. */
export async function bufferedResponse(hop: Hop, url: URL, maxBytes: number): Promise<FetchResponse> {
  const body = await readCapped(hop, url, maxBytes);
  // undici reuses a kept-alive socket only after a full turn of the event loop; answering after
  // that turn lets the caller's next request to the host take the same connection, not a new one.
  await new Promise((resolve) => setImmediate(resolve));
  const headers = decodedHeaders(hop.headers, Boolean(hop.headers['content-encoding']));
  let decoded: string | undefined;
  const text = () => (decoded ??= decodeBody(body, headers['content-type']).text);
  // A body that is not JSON where JSON was expected is the upstream's failure, never a SyntaxError (a 500).
  const json = <T>() => {
    try {
      return JSON.parse(text()) as T;
    } catch {
      throw new GleanerError('UPSTREAM_ERROR', `${url.host} answered ${hop.status} with a body that is not JSON (${headers['content-type'] ?? 'no content type'}).`);
    }
  };
  return { url: url.toString(), status: hop.status, headers, body, text, json };
}

function decompressor(encoding: string | undefined): Transform | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'deflate':
      return zlib.createInflate();
    default:
      return undefined;
  }
}

/** The reply as a stream once the headers are in: decompressed, capped (the stream errors past maxBytes). */
export function streamedResponse(hop: Hop, url: URL, maxBytes: number): StreamResponse {
  const decoder = decompressor(hop.headers['content-encoding']);
  const headers = decodedHeaders(hop.headers, decoder !== undefined);
  let size = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) done(tooLarge(url, maxBytes));
      else done(null, chunk);
    },
  });
  const source = hop.body as unknown as Readable;
  const body = decoder ? source.pipe(decoder).pipe(cap) : source.pipe(cap);
  // A reply cut off on the way (the server closed mid-body, a reset) fails the reader with a clear error.
  source.on('error', (error: Error) =>
    body.destroy(
      error instanceof GleanerError
        ? error
        : new GleanerError('UPSTREAM_UNAVAILABLE', `The connection to ${url.host} broke while its reply was being read (${describeFailure(error)}).`),
    ),
  );
  decoder?.on('error', () => body.destroy(undecodable(url, hop.headers['content-encoding'])));
  // A reply abandoned by its reader must not take the process down with an 'error' nobody
  // listens to; readers (pipeline, for await) still get the error.
  body.on('error', () => undefined);
  // A caller that stops reading (a file refused by its headers) must free the connection too:
  // pipe() does not pass a destroy upstream, and an unread body would hold it open forever.
  body.on('close', () => {
    if (!source.destroyed) source.destroy();
  });
  return { url: url.toString(), status: hop.status, headers, body };
}
