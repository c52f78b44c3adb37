/** What the OAuth endpoints share: form bodies, cookies, and replies in OAuth's JSON shape. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuthError } from '../../accounts/oauth-errors.js';
import { GleanerError } from '../../errors.js';
import { readBodyText } from '../body.js';

const FORM_LIMITS = { maxBytes: 64 * 1024, deadlineMs: 30_000 };

/** An application/x-www-form-urlencoded body (the token, revocation and sign-in forms), each name once. */
export async function readForm(req: IncomingMessage): Promise<Map<string, string>> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded.');
  const params = new URLSearchParams(await readBodyText(req, FORM_LIMITS));
  const form = new Map<string, string>();
  for (const [name, value] of params) {
    // RFC 6749 section 3.1: parameters must not be repeated.
    if (form.has(name)) throw new OAuthError('invalid_request', `The parameter ${name} is repeated.`);
    form.set(name, value);
  }
  return form;
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A JSON reply that no cache keeps (RFC 6749 section 5.1: tokens must not be cached). */
export function sendOAuthJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** An OAuth refusal as the RFC's JSON; a body too large or too slow becomes invalid_request. */
export function sendOAuthError(res: ServerResponse, thrown: unknown): boolean {
  let error: OAuthError | undefined;
  if (thrown instanceof OAuthError) error = thrown;
  else if (thrown instanceof GleanerError && (thrown.code === 'PAYLOAD_TOO_LARGE' || thrown.code === 'INVALID_REQUEST')) error = new OAuthError('invalid_request', thrown.message, thrown.status);
  if (!error) return false;
  const headers: Record<string, string> = error.status === 401 ? { 'WWW-Authenticate': 'Basic realm="gleaner-oauth"' } : {};
  sendOAuthJson(res, error.status, { error: error.error, error_description: error.description }, headers);
  return true;
}

/** Metadata, registration, token and revocation may be called from a web page (an in-browser client). */
export function allowAnyOrigin(res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, MCP-Protocol-Version');
  res.setHeader('Access-Control-Max-Age', '600');
}

const LOOPBACK_PEER = /^(?:127\.|::1$|::ffff:127\.)/;

/**
 * The address a request came from, for per-address bounds: the peer's, or, when the peer is a proxy on this
 * machine (loopback) that says whom it forwards, the last address of X-Forwarded-For (the one that proxy
 * added; addresses before it are the client's own claims).
 */
export function clientAddress(req: IncomingMessage): string | undefined {
  const peer = req.socket.remoteAddress;
  const forwarded = req.headers['x-forwarded-for'];
  if (!peer || !LOOPBACK_PEER.test(peer) || typeof forwarded !== 'string') return peer;
  return forwarded.split(',').pop()?.trim().slice(0, 64) || peer;
}
