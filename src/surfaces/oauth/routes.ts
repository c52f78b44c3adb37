/**
 * The routes of Gleaner's OAuth authorization server on `gleaner serve`: discovery documents under
 * /.well-known and the endpoints under /oauth. See docs/oauth.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app.js';
import { GleanerError } from '../../errors.js';
import { allowAnyOrigin, sendOAuthError, sendOAuthJson } from './http.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import { showSignIn, submitSignIn } from './authorize.js';
import { register, revoke, token } from './endpoints.js';
import {
  AUTHORIZATION_SERVER_PATH,
  AUTHORIZE_PATH,
  PROTECTED_RESOURCE_PATH,
  REGISTER_PATH,
  REVOKE_PATH,
  TOKEN_PATH,
  oauthUrls,
} from './urls.js';

// No /.well-known/openid-configuration: Gleaner issues no ID tokens, and a client that reads that document expects OpenID's fields.
const DOCUMENTS = new Set([PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}/mcp`, AUTHORIZATION_SERVER_PATH, `${AUTHORIZATION_SERVER_PATH}/mcp`]);
const ENDPOINTS = new Set([TOKEN_PATH, REGISTER_PATH, REVOKE_PATH]);

export function isOAuthRoute(pathname: string): boolean {
  return DOCUMENTS.has(pathname) || ENDPOINTS.has(pathname) || pathname === AUTHORIZE_PATH;
}

function allow(req: IncomingMessage, methods: string[], pathname: string): void {
  if (!methods.includes(req.method ?? '')) {
    throw new GleanerError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname}; use ${methods.join(' or ')}.`, { headers: { Allow: methods.join(', ') } });
  }
}

export async function handleOAuth(app: App, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const external = app.oauth.external;
  if (external && !pathname.startsWith(PROTECTED_RESOURCE_PATH)) {
    throw new GleanerError('NOT_FOUND', `This server's sign-in is the identity provider ${external.issuer} (GLEANER_OAUTH_ISSUER); it has no authorization endpoints of its own.`);
  }
  if (pathname === AUTHORIZE_PATH) {
    allow(req, ['GET', 'POST'], pathname);
    if (req.method === 'GET') await showSignIn(app, req, res, new URL(req.url ?? '/', 'http://gleaner.local').searchParams);
    else await submitSignIn(app, req, res);
    return;
  }
  allowAnyOrigin(res);
  if (req.method === 'OPTIONS') {
    res.statusCode = 204;
    res.end();
    return;
  }
  if (DOCUMENTS.has(pathname)) {
    allow(req, ['GET', 'HEAD'], pathname);
    const urls = oauthUrls(app.config, req);
    const document = pathname.startsWith(PROTECTED_RESOURCE_PATH) ? protectedResourceMetadata(urls, external?.issuer) : authorizationServerMetadata(urls);
    sendOAuthJson(res, 200, document, { 'Cache-Control': 'public, max-age=300' });
    return;
  }
  allow(req, ['POST'], pathname);
  try {
    if (pathname === TOKEN_PATH) await token(app, req, res);
    else if (pathname === REGISTER_PATH) await register(app, req, res);
    else await revoke(app, req, res);
  } catch (error) {
    if (!sendOAuthError(res, error)) throw error;
  }
}
