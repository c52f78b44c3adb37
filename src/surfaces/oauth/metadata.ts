/**
 * The two discovery documents an MCP client reads before it signs in: the protected resource
 * metadata of /mcp (RFC 9728), which names Gleaner as its authorization server, and the
 * authorization server metadata (RFC 8414), which lists the endpoints and what they support.
 */
import { TOKEN_AUTH_METHODS } from '../../accounts/oauth-clients.js';
import { MCP_SCOPE, type OAuthUrls } from './urls.js';

/** `authorizationServer`: the operator's identity provider when one is configured, else Gleaner itself. */
export function protectedResourceMetadata(urls: OAuthUrls, authorizationServer = urls.issuer): Record<string, unknown> {
  return {
    resource: urls.resource,
    authorization_servers: [authorizationServer],
    bearer_methods_supported: ['header'],
    scopes_supported: [MCP_SCOPE],
    resource_name: 'Gleaner',
  };
}

export function authorizationServerMetadata(urls: OAuthUrls): Record<string, unknown> {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    scopes_supported: [MCP_SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}
