/**
 * An operator's own identity provider instead of Gleaner's sign-in (GLEANER_OAUTH_ISSUER): /mcp
 * accepts the provider's JWT access tokens, verified with jose against the provider's published keys
 * (JWKS) for its issuer, the configured audience, expiry and an asymmetric signature, and maps one
 * claim of the token to a Gleaner account. The account's key state still rules: a revoked key's
 * users are refused.
 *
 * The JWKS (and the provider's metadata that names it) are fetched through net/ as operator
 * configuration (the SSRF guard does not apply: an intranet provider is normal).
 */
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import type { Accounts, AccountRecord } from './accounts.js';
import type { Clock } from './clock.js';

export interface ExternalIssuerSettings {
  issuer: string;
  audience: string;
  /** The JWKS URL; absent, read from the issuer's metadata (`jwks_uri`). */
  jwksUrl?: string;
  /** The claim that names the user (default `sub`). */
  accountClaim: string;
  /** Claim value → account id; absent, the claim value is the account id itself. */
  accounts?: Map<string, string>;
}

/** Asymmetric algorithms only: a shared-secret (HS*) token could be minted by anyone who holds the secret. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** True when a bearer credential has the shape of a JWT (three base64url parts). */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(credential);
}

export class ExternalIssuer {
  private keys?: Promise<JWTVerifyGetKey>;

  constructor(
    private readonly settings: ExternalIssuerSettings,
    private readonly http: HttpClient,
    private readonly accounts: Accounts,
    private readonly clock: Clock,
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  /** The account a provider's access token acts as; UNAUTHORIZED when it is not valid here. */
  async authenticate(token: string): Promise<AccountRecord> {
    const refuse = (why: string) => new GleanerError('UNAUTHORIZED', `The access token is not accepted: ${why}.`);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, await this.jwks(), {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ALGORITHMS,
        currentDate: this.clock(),
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw refuse('it has expired');
      if (error instanceof joseErrors.JWTClaimValidationFailed) throw refuse(`its "${error.claim}" claim does not match this server`);
      if (error instanceof joseErrors.JOSEError) throw refuse('its signature or format is not valid for the configured issuer');
      if (error instanceof GleanerError) throw error;
      throw new GleanerError('UPSTREAM_UNAVAILABLE', `The keys of the identity provider ${this.settings.issuer} could not be read.`, { cause: error });
    }
    const value = payload[this.settings.accountClaim];
    if (typeof value !== 'string' || value === '') throw refuse(`it has no "${this.settings.accountClaim}" claim`);
    const accountId = this.settings.accounts ? this.settings.accounts.get(value) : value;
    if (!accountId) throw refuse('its user is not mapped to a Gleaner account (GLEANER_OAUTH_ACCOUNTS)');
    let account: AccountRecord;
    try {
      account = await this.accounts.get(accountId);
    } catch (error) {
      if (error instanceof GleanerError && error.code === 'NOT_FOUND') throw refuse('its user maps to no Gleaner account');
      throw error;
    }
    if (account.revokedAt) throw refuse('the Gleaner key of its user is revoked');
    return account;
  }

  private jwks(): Promise<JWTVerifyGetKey> {
    this.keys ??= this.jwksUrl().then((url) => createRemoteJWKSet(new URL(url), { [customFetch]: (resource) => this.fetchJson(resource) }));
    // A failed discovery is tried again on the next request.
    this.keys.catch(() => (this.keys = undefined));
    return this.keys;
  }

  private async jwksUrl(): Promise<string> {
    if (this.settings.jwksUrl) return this.settings.jwksUrl;
    const base = this.settings.issuer.replace(/\/+$/, '');
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const response = await this.http.fetch(`${base}${path}`, { guard: false, maxBytes: 256 * 1024, timeoutMs: 10_000 }).catch(() => undefined);
      if (response?.status !== 200) continue;
      const uri = (response.json() as { jwks_uri?: unknown }).jwks_uri;
      if (typeof uri === 'string' && URL.canParse(uri)) return uri;
    }
    throw new Error(`no jwks_uri in the metadata of ${base}`);
  }

  /** jose's fetch, through net/: a Response of the JWKS document. */
  private async fetchJson(url: string): Promise<Response> {
    const reply = await this.http.fetch(url, { guard: false, maxBytes: 256 * 1024, timeoutMs: 10_000, redirect: 'manual' });
    return new Response(new Uint8Array(reply.body), { status: reply.status, headers: { 'content-type': reply.headers['content-type'] ?? 'application/json' } });
  }
}
