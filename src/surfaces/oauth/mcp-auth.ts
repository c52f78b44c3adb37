/**
 * Who a request to /mcp acts as: an API key (x-api-key or Bearer gl_…), an OAuth access token
 * Gleaner issued (Bearer glat_…), or a JWT of the operator's identity provider (GLEANER_OAUTH_ISSUER),
 * each turned into the account of a key. A refusal carries the
 * challenge of the MCP authorization spec: `WWW-Authenticate: Bearer resource_metadata=…`, which is
 * how a client without a key (Claude's and ChatGPT's connectors, mcp-remote) finds the sign-in.
 */
import type { IncomingMessage } from 'node:http';
import type { App } from '../../app.js';
import type { AccountRecord } from '../../accounts/accounts.js';
import { isAccessToken } from '../../accounts/oauth-tokens.js';
import { looksLikeJwt } from '../../accounts/external-issuer.js';
import { GleanerError } from '../../errors.js';
import { MCP_SCOPE, oauthUrls } from './urls.js';

/** The Bearer challenge of a 401 on /mcp (RFC 6750 section 3, RFC 9728 section 5.1). */
export function mcpChallenge(app: App, req: IncomingMessage, presented: boolean): string {
  const urls = oauthUrls(app.config, req);
  const error = presented ? ', error="invalid_token"' : '';
  return `Bearer realm="gleaner", resource_metadata="${urls.protectedResourceMetadata}", scope="${MCP_SCOPE}"${error}`;
}

export async function authenticateMcp(app: App, req: IncomingMessage, credential: string | undefined): Promise<AccountRecord> {
  try {
    if (credential && isAccessToken(credential)) return await app.oauth.tokens.authenticate(credential, oauthUrls(app.config, req).resource);
    if (credential && app.oauth.external && looksLikeJwt(credential)) return await app.oauth.external.authenticate(credential);
    return await app.services.accounts.authenticate(credential);
  } catch (error) {
    if (!(error instanceof GleanerError) || error.code !== 'UNAUTHORIZED') throw error;
    const message = credential ? error.message : `${error.message} Or sign in with OAuth: this server's authorization metadata is at ${oauthUrls(app.config, req).protectedResourceMetadata}.`;
    throw new GleanerError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': mcpChallenge(app, req, credential !== undefined) } });
  }
}
