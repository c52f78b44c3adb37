/**
 * Where this server is, as OAuth clients must see it: the issuer (Gleaner itself), the protected
 * resource (its /mcp) and the metadata documents that describe them. GLEANER_PUBLIC_URL says it when
 * set (behind a proxy, https); otherwise the request's Host header does, which on a loopback bind the
 * server has already checked against the hosts it accepts.
 */
import type { IncomingMessage } from 'node:http';
import { publicUrl, type Config } from '../../config.js';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';
export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';
export const REVOKE_PATH = '/oauth/revoke';
/** The one scope: the tools of /mcp, acting as the key that signed in. */
export const MCP_SCOPE = 'mcp';

export interface OAuthUrls {
  /** The issuer: this server's base URL, no trailing slash. */
  issuer: string;
  /** The protected resource the tokens are for (RFC 8707): <base>/mcp. */
  resource: string;
  protectedResourceMetadata: string;
  authorizationServerMetadata: string;
  authorize: string;
  token: string;
  register: string;
  revoke: string;
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export function baseUrl(config: Pick<Config, 'GLEANER_PUBLIC_URL'>, req: IncomingMessage): string {
  const configured = publicUrl(config);
  if (configured) return configured;
  const host = req.headers.host;
  return `http://${host && HOST.test(host) ? host.toLowerCase() : 'localhost'}`;
}

export function oauthUrls(config: Pick<Config, 'GLEANER_PUBLIC_URL'>, req: IncomingMessage): OAuthUrls {
  const base = baseUrl(config, req);
  return {
    issuer: base,
    resource: `${base}/mcp`,
    protectedResourceMetadata: `${base}${PROTECTED_RESOURCE_PATH}/mcp`,
    authorizationServerMetadata: `${base}${AUTHORIZATION_SERVER_PATH}`,
    authorize: `${base}${AUTHORIZE_PATH}`,
    token: `${base}${TOKEN_PATH}`,
    register: `${base}${REGISTER_PATH}`,
    revoke: `${base}${REVOKE_PATH}`,
  };
}

/** A resource indicator names /mcp when it is the resource, with or without a trailing slash. */
export function isOurResource(urls: OAuthUrls, resource: string): boolean {
  return resource === urls.resource || resource === `${urls.resource}/`;
}
