/**
 * The authorization endpoint. GET checks the request (client, exact redirect URI, PKCE S256, resource)
 * and shows the sign-in page; POST is that page's form: with a valid key and a matching CSRF token it
 * records the grant and sends the person back to the application with a one-use code.
 *
 * Every refusal before the person approved is shown to the person (a page), never redirected: first
 * because the redirect URI is not known good (OAuth 2.1 section 4.1.2.1), then because a registered one
 * is anyone's to register (RFC 9700 section 4.11.2). Only the person's own answer goes back. The authorization request waits in the store under a random id (so the
 * form carries no parameter a page could change), with the hash of a CSRF secret that is also a
 * SameSite=Strict, HttpOnly cookie: a form posted from another site has neither.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app.js';
import { OAuthError } from '../../accounts/oauth-errors.js';
import { CODE_CHALLENGE, OAuthTokens } from '../../accounts/oauth-tokens.js';
import type { OAuthClient } from '../../accounts/oauth-clients.js';
import { GleanerError } from '../../errors.js';
import { clientAddress, readCookie, readForm } from './http.js';
import { sendProblemPage, sendSignInPage } from './sign-in-page.js';
import { isOurResource, MCP_SCOPE, oauthUrls, type OAuthUrls } from './urls.js';

interface PendingRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  resource: string;
  csrfHash: string;
}

const PENDING_TTL_MS = 15 * 60_000;
const CSRF_COOKIE = 'gleaner_oauth_csrf';
const pendingKey = (id: string) => `oauth:pending:${id}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Where the approval (or refusal) goes: the redirect URI with code or error, state and iss (RFC 9207). */
function redirectBack(res: ServerResponse, redirectUri: string, params: Record<string, string | undefined>): void {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) target.searchParams.set(name, value);
  res.statusCode = 303;
  res.setHeader('Location', target.toString());
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}

/** The CSP source that lets the form's 303 reach the redirect URI. */
function redirectSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : url.protocol;
}

function csrfCookie(urls: OAuthUrls, value: string): string {
  const secure = urls.issuer.startsWith('https:') ? '; Secure' : '';
  return `${CSRF_COOKIE}=${value}; Path=/oauth; HttpOnly; SameSite=Strict; Max-Age=${PENDING_TTL_MS / 1000}${secure}`;
}

function tooMany(res: ServerResponse, refusal: GleanerError, title: string): void {
  res.setHeader('Retry-After', refusal.headers['Retry-After'] ?? '60');
  sendProblemPage(res, 429, title, refusal.message);
}

async function findClient(app: App, clientId: string | undefined): Promise<OAuthClient | OAuthError> {
  try {
    return await app.oauth.clients.find(clientId);
  } catch (error) {
    if (error instanceof OAuthError) return error;
    throw error;
  }
}

export async function showSignIn(app: App, req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
  const one = (name: string) => query.getAll(name).length > 1 ? undefined : (query.get(name) ?? undefined);
  const client = await findClient(app, one('client_id'));
  if (client instanceof OAuthError) return sendProblemPage(res, 400, 'Unknown application', client.description);
  const requested = one('redirect_uri') ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!requested) return sendProblemPage(res, 400, 'Wrong redirect URI', 'The request names no redirect_uri, and the application registered more than one.');
  if (!OAuthTokens.redirectAllowed(client, requested)) {
    return sendProblemPage(res, 400, 'Wrong redirect URI', `The redirect URI ${requested} is not one that ${client.clientName} registered.`);
  }
  const urls = oauthUrls(app.config, req);
  const state = one('state');
  // Before a person approved, anyone may have registered the redirect URI (registration is open): a refusal
  // sent there would make this server an open redirector (RFC 9700 section 4.11.2), so it is shown here.
  const refuse = (error: string, description: string) => sendProblemPage(res, 400, 'Bad authorization request', `${description} (${error})`);
  if (one('response_type') !== 'code') return refuse('unsupported_response_type', 'response_type must be "code".');
  const challenge = one('code_challenge');
  if (!challenge) return refuse('invalid_request', 'code_challenge is missing: this server requires PKCE with S256.');
  if (one('code_challenge_method') !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256.');
  if (!CODE_CHALLENGE.test(challenge)) return refuse('invalid_request', 'code_challenge is not a base64url SHA-256 value.');
  const resource = one('resource');
  if (resource !== undefined && !isOurResource(urls, resource)) return refuse('invalid_target', `This server issues tokens for ${urls.resource} only.`);
  if (state !== undefined && state.length > 2_000) return refuse('invalid_request', 'state is longer than 2000 characters.');

  // Each page opened writes a pending request: bounded per address (expired ones are swept by the store).
  const throttled = await app.oauth.throttle.refusal('oauth-sign-in-page', clientAddress(req), true);
  if (throttled) return tooMany(res, throttled, 'Too many sign-in pages');

  // One CSRF secret per browser, reused across its open sign-in pages.
  const existing = readCookie(req, CSRF_COOKIE);
  const csrf = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomBytes(32).toString('base64url');
  const requestId = randomBytes(24).toString('base64url');
  const pending: PendingRequest = { clientId: client.clientId, redirectUri: requested, codeChallenge: challenge, state, resource: urls.resource, csrfHash: sha256(csrf).toString('hex') };
  await app.services.store.set(pendingKey(requestId), pending, PENDING_TTL_MS);
  res.setHeader('Set-Cookie', csrfCookie(urls, csrf));
  sendSignInPage(res, { requestId, csrf, clientName: client.clientName, clientId: client.clientId, redirectUri: requested, redirectSource: redirectSource(requested) });
}

/** True when the post comes from this server's own page: the Origin (when sent) is ours and the browser does not call it cross-site. */
function sameOrigin(req: IncomingMessage, urls: OAuthUrls): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = req.headers.origin;
  return origin === undefined || origin === new URL(urls.issuer).origin;
}

export async function submitSignIn(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const urls = oauthUrls(app.config, req);
  if (!sameOrigin(req, urls)) return sendProblemPage(res, 403, 'Refused', 'This form was posted from another site. Sign in from the page this server shows.');
  let form: Map<string, string>;
  try {
    form = await readForm(req);
  } catch (error) {
    if (error instanceof OAuthError || error instanceof GleanerError) return sendProblemPage(res, 400, 'Bad request', error.message);
    throw error;
  }
  const requestId = form.get('request_id') ?? '';
  const pending = /^[A-Za-z0-9_-]{32}$/.test(requestId) ? await app.services.store.get<PendingRequest>(pendingKey(requestId)) : undefined;
  if (!pending) return sendProblemPage(res, 400, 'Sign-in expired', 'This sign-in request is unknown or expired (they last 15 minutes).');
  const csrf = form.get('csrf') ?? '';
  const cookie = readCookie(req, CSRF_COOKIE) ?? '';
  const expected = Buffer.from(pending.csrfHash, 'hex');
  if (!csrf || csrf !== cookie || !timingSafeEqual(sha256(csrf), expected)) {
    return sendProblemPage(res, 403, 'Refused', 'The form’s security token does not match this browser’s. Start the sign-in again from the application.');
  }
  const client = await findClient(app, pending.clientId);
  if (client instanceof OAuthError) return sendProblemPage(res, 400, 'Unknown application', client.description);
  const view = { requestId, csrf, clientName: client.clientName, clientId: client.clientId, redirectUri: pending.redirectUri, redirectSource: redirectSource(pending.redirectUri) };

  if (form.get('decision') === 'deny') {
    await app.services.store.delete(pendingKey(requestId));
    return redirectBack(res, pending.redirectUri, { error: 'access_denied', error_description: 'The person declined.', state: pending.state, iss: urls.issuer });
  }
  const key = form.get('api_key')?.trim();
  if (!key) return sendSignInPage(res, { ...view, error: 'Paste your Gleaner API key (it starts with gl_).' }, 400);
  // Key guessing: an address that presented too many wrong keys is refused before the key is looked at.
  const address = clientAddress(req);
  const throttled = await app.oauth.throttle.refusal('key-failure', address, false);
  if (throttled) {
    res.setHeader('Retry-After', throttled.headers['Retry-After'] ?? '60');
    return sendSignInPage(res, { ...view, error: throttled.message }, 429);
  }
  let account;
  try {
    account = await app.services.accounts.authenticate(key);
  } catch (error) {
    if (error instanceof GleanerError && error.code === 'UNAUTHORIZED') {
      await app.oauth.throttle.refusal('key-failure', address, true);
      return sendSignInPage(res, { ...view, error: 'This key is unknown or revoked.' }, 401);
    }
    throw error;
  }
  // The request is used once: a second post of the same form finds nothing.
  const taken = await app.services.store.update<PendingRequest, boolean>(pendingKey(requestId), (current) => ({ value: undefined, result: current !== undefined }));
  if (!taken) return sendProblemPage(res, 400, 'Sign-in expired', 'This sign-in request was already used.');
  const code = await app.oauth.tokens.approve({ client, account, redirectUri: pending.redirectUri, codeChallenge: pending.codeChallenge, resource: pending.resource, scope: MCP_SCOPE });
  await app.oauth.clients.keep(client);
  app.log.info({ accountId: account.id, clientId: client.clientId.slice(0, 200) }, 'OAuth client approved');
  redirectBack(res, pending.redirectUri, { code, state: pending.state, iss: urls.issuer });
}
