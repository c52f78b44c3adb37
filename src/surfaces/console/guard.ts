/**
 * What every console response and form goes through: the security headers (a strict
 * Content-Security-Policy with no inline script or style, no framing), the session cookie's
 * attributes, and the checks of a POST (same Origin, then the form's token bound to the session).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GleanerError } from '../../errors.js';
import { readBodyText } from '../body.js';

export const SESSION_COOKIE = 'gleaner_console';
export const SIGN_IN_COOKIE = 'gleaner_console_signin';
const COOKIE_PATH = '/console';
const MAX_FORM_BYTES = 16 * 1024;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

/**
 * The scheme the browser used: https when the request came over TLS or a proxy in front says so
 * (X-Forwarded-Proto). A forged header only makes the sender's own cookie Secure, never weaker.
 */
export function requestScheme(req: IncomingMessage): 'http' | 'https' {
  if ((req.socket as { encrypted?: boolean }).encrypted) return 'https';
  const forwarded = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https' ? 'https' : 'http';
}

/** This console's own origin, as the browser sees it: the scheme and the Host it was reached at. */
export function ownOrigin(req: IncomingMessage): string | undefined {
  const host = req.headers.host;
  if (!host) return undefined;
  try {
    return new URL(`${requestScheme(req)}://${host}`).origin;
  } catch {
    return undefined;
  }
}

export function cookieHeader(req: IncomingMessage, name: string, value: string, maxAgeSeconds: number): string {
  // Strict: a link from another site arrives without the cookie, so nothing is done in its name.
  const parts = [`${name}=${value}`, `Path=${COOKIE_PATH}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`];
  if (requestScheme(req) === 'https') parts.push('Secure');
  return parts.join('; ');
}

export function clearCookie(req: IncomingMessage, name: string): string {
  return cookieHeader(req, name, '', 0);
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    if (pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * A state-changing request must come from a page of this console: its Origin (or, from a browser that
 * sends none, its Referer) must be this origin exactly (scheme, host and port). FORBIDDEN otherwise.
 */
export function checkSameOrigin(req: IncomingMessage): void {
  const own = ownOrigin(req);
  const origin = req.headers.origin;
  let claimed: string | undefined;
  if (typeof origin === 'string' && origin !== 'null') claimed = origin;
  else if (typeof req.headers.referer === 'string' && URL.canParse(req.headers.referer)) claimed = new URL(req.headers.referer).origin;
  if (!own || !claimed || claimed !== own) {
    throw new GleanerError('FORBIDDEN', 'This form was not sent from a page of this console (cross-site request refused). Open the console and try again.');
  }
}

/** An url-encoded form body (what an HTML form posts), bounded in size. */
export async function readForm(req: IncomingMessage, deadlineMs: number): Promise<URLSearchParams> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new GleanerError('INVALID_REQUEST', 'The console takes forms sent as application/x-www-form-urlencoded.');
  }
  return new URLSearchParams(await readBodyText(req, { maxBytes: MAX_FORM_BYTES, deadlineMs }));
}
