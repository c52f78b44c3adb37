/**
 * The machine-facing OAuth endpoints: token (authorization_code, refresh_token), dynamic client
 * registration (RFC 7591) and revocation (RFC 7009). Their replies are OAuth's JSON, never cached.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app.js';
import { OAuthError } from '../../accounts/oauth-errors.js';
import { REGISTRATION_MAX_BYTES, type OAuthClient, type TokenAuthMethod } from '../../accounts/oauth-clients.js';
import { readJsonBody } from '../body.js';
import { clientAddress, readForm, sendOAuthJson } from './http.js';
import { isOurResource, oauthUrls } from './urls.js';

/** RFC 6749 section 2.3.1: Basic credentials are form-encoded first; a malformed escape is the client's error, not ours. */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new OAuthError('invalid_client', 'Malformed client authentication: the Authorization header holds a malformed %-escape.');
  }
}

/** The client of a token or revocation request and how it authenticated (RFC 6749 section 2.3.1). */
async function authenticatedClient(app: App, req: IncomingMessage, form: Map<string, string>): Promise<OAuthClient> {
  const authorization = String(req.headers.authorization ?? '');
  let clientId = form.get('client_id');
  let secret = form.get('client_secret');
  let method: TokenAuthMethod = secret ? 'client_secret_post' : 'none';
  const basic = /^Basic\s+(\S+)$/i.exec(authorization);
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0 || secret) throw new OAuthError('invalid_client', 'Malformed client authentication.');
    const basicId = formDecoded(decoded.slice(0, colon));
    if (clientId && clientId !== basicId) throw new OAuthError('invalid_client', 'client_id differs from the one of the Authorization header.');
    clientId = basicId;
    secret = formDecoded(decoded.slice(colon + 1));
    method = 'client_secret_basic';
  }
  const client = await app.oauth.clients.find(clientId);
  app.oauth.clients.authenticate(client, { secret, method });
  return client;
}

export async function token(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const client = await authenticatedClient(app, req, form);
  const resource = form.get('resource');
  if (resource !== undefined && !isOurResource(oauthUrls(app.config, req), resource)) throw new OAuthError('invalid_target', 'This server issues tokens for its /mcp only.');
  const grantType = form.get('grant_type');
  let issued;
  if (grantType === 'authorization_code') {
    issued = await app.oauth.tokens.exchangeCode({ client, code: form.get('code'), redirectUri: form.get('redirect_uri'), codeVerifier: form.get('code_verifier') });
  } else if (grantType === 'refresh_token') {
    issued = await app.oauth.tokens.refresh({ client, refreshToken: form.get('refresh_token') });
  } else {
    throw new OAuthError('unsupported_grant_type', `grant_type must be authorization_code or refresh_token${grantType ? `, not "${grantType.slice(0, 50)}"` : ''}.`);
  }
  sendOAuthJson(res, 200, issued);
}

export async function register(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Counted before the body is read: registration needs no key, so its cost is bounded per address.
  await app.oauth.throttle.take('oauth-register', clientAddress(req));
  let body: unknown;
  try {
    body = await readJsonBody(req, { maxBytes: REGISTRATION_MAX_BYTES, deadlineMs: 30_000 });
  } catch (error) {
    throw new OAuthError('invalid_client_metadata', (error as Error).message);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object of client metadata.');
  sendOAuthJson(res, 201, await app.oauth.clients.register(body));
}

export async function revoke(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = await readForm(req);
  const client = await authenticatedClient(app, req, form);
  const value = form.get('token');
  if (!value) throw new OAuthError('invalid_request', 'token is missing.');
  await app.oauth.tokens.revokeToken(value, client);
  // RFC 7009 section 2.2: 200 whether or not the token was known.
  sendOAuthJson(res, 200, {});
}
