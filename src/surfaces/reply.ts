/** Error replies shared by REST and /mcp: the envelope, its headers, and closing unread bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorEnvelope, type GleanerError } from '../errors.js';
import { WWW_AUTHENTICATE } from './auth.js';

export function sendJson(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** An operation's bytes (HttpBinding.binary): its result's base64 `data`, decoded. Private to the key that asked. */
export function sendBytes(res: ServerResponse, status: number, contentType: string, body: { data: string }): void {
  const bytes = Buffer.from(body.data, 'base64');
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', bytes.length);
  res.setHeader('Cache-Control', 'private, no-store');
  res.end(bytes);
}

export function sendError(req: IncomingMessage, res: ServerResponse, error: GleanerError, requestId: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  // /mcp's refusals carry their own challenge (where to sign in with OAuth); REST's say to send the key.
  if (error.code === 'UNAUTHORIZED' && !res.hasHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', WWW_AUTHENTICATE);
  // A body we refused before reading it is not drained: close the connection with the reply.
  if (!req.complete) res.setHeader('Connection', 'close');
  res.setHeader('X-Request-Id', requestId);
  sendJson(res, error.status, JSON.stringify(errorEnvelope(error, requestId)));
}
