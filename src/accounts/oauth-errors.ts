/**
 * An OAuth protocol refusal (RFC 6749 section 5.2, RFC 7591 section 3.2.2): the `error` code a client
 * acts on and a description a person reads. The OAuth endpoints render it as the RFC's JSON, not as
 * Gleaner's error envelope, because OAuth clients read only that shape.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** 401 for invalid_client (RFC 6749 5.2), 400 otherwise. */
    readonly status: number = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
  }
}
