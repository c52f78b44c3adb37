/**
 * Reading a request body with a size cap and a deadline, for REST and /mcp alike. A client that
 * trickles its body is cut off at the deadline instead of holding a connection open for ever.
 */
import type { IncomingMessage } from 'node:http';
import { GleanerError } from '../errors.js';

export interface BodyLimits {
  maxBytes: number;
  /** Time allowed for the whole body to arrive, from the first read. */
  deadlineMs: number;
}

/**
 * The body as UTF-8 text; PAYLOAD_TOO_LARGE past the cap, INVALID_REQUEST past the deadline. On
 * either, reading stops and the rest is left unread: the error reply closes the connection.
 */
export function readBodyText(req: IncomingMessage, limits: BodyLimits): Promise<string> {
  const tooLarge = () => new GleanerError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limits.maxBytes} bytes.`);
  if (Number(req.headers['content-length'] ?? 0) > limits.maxBytes) return Promise.reject(tooLarge());
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error?: Error) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) stop(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => stop();
    const onError = (error: Error) => stop(error);
    const timer = setTimeout(
      () => stop(new GleanerError('INVALID_REQUEST', `The request body did not arrive within ${Math.round(limits.deadlineMs / 100) / 10} s.`)),
      limits.deadlineMs,
    );
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** The body parsed as JSON; INVALID_REQUEST when it is not JSON. Empty text is `undefined`. */
export async function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const text = (await readBodyText(req, limits)).trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GleanerError('INVALID_REQUEST', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
