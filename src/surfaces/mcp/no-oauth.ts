/**
 * Gleaner's keys are API keys, not OAuth. An MCP client that meets a 401 without a key (mcp-remote,
 * or any client with an OAuth provider) looks for OAuth metadata under /.well-known, then falls back
 * to /register, /token and /authorize at the server's root. Each of those answers 404 with an
 * OAuth-shaped error whose description says how to send the key: clients print an OAuth error's
 * description, so the user reads that instead of "HTTP 404" from a registration endpoint.
 */
import type { ServerResponse } from 'node:http';

export const NO_OAUTH_MESSAGE =
  'This Gleaner server does not use OAuth. Send your API key in the x-api-key header or as Authorization: Bearer <key> (mcp-remote: --header "x-api-key:<key>"; create a key with "gleaner keys create").';

const FALLBACK_ENDPOINTS = new Set(['/register', '/token', '/authorize']);

export function isOAuthPath(pathname: string): boolean {
  return pathname.startsWith('/.well-known/oauth-') || pathname.startsWith('/.well-known/openid-configuration') || FALLBACK_ENDPOINTS.has(pathname);
}

export function refuseOAuth(res: ServerResponse): void {
  const body = JSON.stringify({ error: 'invalid_request', error_description: NO_OAUTH_MESSAGE });
  res.statusCode = 404;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}
