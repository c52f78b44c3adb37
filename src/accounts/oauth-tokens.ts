/**
 * Gleaner's OAuth grants and tokens, in the one store (so every process, on SQLite or Redis, accepts
 * the tokens of every other). A person's approval of a client is a grant; it yields one authorization
 * code, then short-lived access tokens and a refresh token that rotates on every use. Tokens act as the
 * key that signed in: each use re-reads the account, so `gleaner keys revoke` ends them at once.
 *
 * Codes and tokens are random and stored only as their SHA-256 hash, like keys. A refresh token
 * carries the generation it was issued in; presenting an older generation than the grant's current one
 * means it was copied, so the whole grant (the "family") is revoked (OAuth 2.1 section 4.3.1). A code
 * presented twice revokes its grant too (OAuth 2.1 section 4.1.3).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/store.js';
import { GleanerError } from '../errors.js';
import { hashApiKey, type Accounts, type AccountRecord } from './accounts.js';
import type { Clock } from './clock.js';
import { OAuthError } from './oauth-errors.js';
import type { OAuthClient } from './oauth-clients.js';
import { redirectUriMatches } from './oauth-redirects.js';

export interface OAuthGrant {
  id: string;
  accountId: string;
  clientId: string;
  clientName: string;
  scope: string;
  /** The resource (RFC 8707) the tokens are for: this server's /mcp. */
  resource: string;
  createdAt: string;
  lastUsedAt?: string;
  /** The generation of the one refresh token that is valid now. */
  refreshGeneration: number;
  revokedAt?: string;
}

interface CodeRecord {
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  expiresAt: string;
  used?: boolean;
}

interface AccessRecord {
  grantId: string;
  accountId: string;
  clientId: string;
  expiresAt: string;
}

interface RefreshRecord {
  grantId: string;
  clientId: string;
  generation: number;
  expiresAt: string;
}

export interface TokenSettings {
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

/** The token endpoint's success reply (RFC 6749 section 5.1). */
export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export const ACCESS_TOKEN_PREFIX = 'glat_';
const REFRESH_TOKEN_PREFIX = 'glrt_';
const CODE_TTL_MS = 60_000;

const grantKey = (id: string) => `oauth:grant:${id}`;
const grantsIndexKey = (accountId: string) => `oauth:grants:${accountId}`;
const codeKey = (code: string) => `oauth:code:${hashApiKey(code)}`;
const accessKey = (token: string) => `oauth:access:${hashApiKey(token)}`;
const refreshKey = (token: string) => `oauth:refresh:${hashApiKey(token)}`;

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CODE_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** True when a bearer credential is one of these access tokens (not an API key). */
export function isAccessToken(credential: string): boolean {
  return credential.startsWith(ACCESS_TOKEN_PREFIX);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function invalidToken(): GleanerError {
  return new GleanerError('UNAUTHORIZED', 'The access token is invalid, expired or revoked: sign in again.');
}

export class OAuthTokens {
  constructor(
    private readonly store: Store,
    private readonly accounts: Accounts,
    private readonly clock: Clock,
    private readonly settings: TokenSettings,
  ) {}

  /** A person approved `client` with a key: records the grant and returns its one authorization code. */
  async approve(request: { client: OAuthClient; account: AccountRecord; redirectUri: string; codeChallenge: string; resource: string; scope: string }): Promise<string> {
    const now = this.clock();
    const grant: OAuthGrant = {
      id: `grant_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      accountId: request.account.id,
      clientId: request.client.clientId,
      clientName: request.client.clientName,
      scope: request.scope,
      resource: request.resource,
      createdAt: now.toISOString(),
      refreshGeneration: 0,
    };
    // No expiry while live (each refresh extends its life); a revoked or abandoned one is dropped (see grantsOf).
    await this.store.set(grantKey(grant.id), grant);
    await this.store.update<string[], void>(grantsIndexKey(grant.accountId), (ids = []) => ({ value: [...ids, grant.id], result: undefined }));
    const code = randomBytes(32).toString('base64url');
    const record: CodeRecord = {
      grantId: grant.id,
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
    };
    // Kept past its expiry, so a late second use is still seen as reuse.
    await this.store.set(codeKey(code), record, 10 * CODE_TTL_MS);
    return code;
  }

  /** The authorization_code grant: one use, same client and redirect URI, and the PKCE verifier. */
  async exchangeCode(request: { client: OAuthClient; code?: string; redirectUri?: string; codeVerifier?: string }): Promise<IssuedTokens> {
    if (!request.code) throw new OAuthError('invalid_request', 'code is missing.');
    if (!request.codeVerifier) throw new OAuthError('invalid_request', 'code_verifier is missing: this server requires PKCE (S256).');
    const code = request.code;
    // Marked used in the same step as it is read: of two concurrent exchanges, one wins.
    const seen = await this.store.update<CodeRecord, { record?: CodeRecord; reused: boolean }>(codeKey(code), (record) => {
      if (!record) return { value: undefined, result: { reused: false } };
      if (record.used) return { value: record, result: { record, reused: true } };
      return { value: { ...record, used: true }, result: { record, reused: false } };
    });
    const record = seen.record;
    if (!record) throw new OAuthError('invalid_grant', 'The authorization code is unknown or expired.');
    if (seen.reused) {
      await this.revokeGrant(record.grantId);
      throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens issued with it are revoked.');
    }
    if (new Date(record.expiresAt) <= this.clock()) throw new OAuthError('invalid_grant', 'The authorization code has expired: sign in again.');
    if (record.clientId !== request.client.clientId) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
    if (request.redirectUri === undefined || request.redirectUri !== record.redirectUri) {
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request.');
    }
    if (!VERIFIER.test(request.codeVerifier) || !sameText(createHash('sha256').update(request.codeVerifier).digest('base64url'), record.codeChallenge)) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge of the authorization request.');
    }
    const grant = await this.liveGrant(record.grantId);
    return this.issue(grant, 0);
  }

  /** The refresh_token grant: rotates the refresh token; an old one presented again revokes the family. */
  async refresh(request: { client: OAuthClient; refreshToken?: string }): Promise<IssuedTokens> {
    if (!request.refreshToken) throw new OAuthError('invalid_request', 'refresh_token is missing.');
    const record = await this.store.get<RefreshRecord>(refreshKey(request.refreshToken));
    if (!record || new Date(record.expiresAt) <= this.clock()) throw new OAuthError('invalid_grant', 'The refresh token is unknown, expired or revoked: sign in again.');
    if (record.clientId !== request.client.clientId) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
    const now = this.clock().toISOString();
    const outcome = await this.store.update<OAuthGrant, 'gone' | 'reused' | OAuthGrant>(grantKey(record.grantId), (grant) => {
      if (!grant || grant.revokedAt) return { value: grant, result: 'gone' };
      if (grant.refreshGeneration !== record.generation) return { value: grant, result: 'reused' };
      const next = { ...grant, refreshGeneration: grant.refreshGeneration + 1, lastUsedAt: now };
      return { value: next, result: next };
    });
    if (outcome === 'gone') throw new OAuthError('invalid_grant', 'The refresh token was revoked: sign in again.');
    if (outcome === 'reused') {
      await this.revokeGrant(record.grantId);
      throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of this sign-in is revoked. Sign in again.');
    }
    await this.liveAccount(outcome.accountId, () => new OAuthError('invalid_grant', 'The key that signed in was revoked: sign in again with a valid key.'));
    return this.issue(outcome, outcome.refreshGeneration);
  }

  /**
   * The account an access token acts as at `resource` (the URL of the /mcp it is presented to); UNAUTHORIZED
   * when the token, its grant or its key is no longer valid, or the token was issued for another resource
   * (RFC 8707 section 2: a token for one host name of this server is not taken at another).
   */
  async authenticate(token: string, resource: string): Promise<AccountRecord> {
    const record = await this.store.get<AccessRecord>(accessKey(token));
    if (!record || new Date(record.expiresAt) <= this.clock()) throw invalidToken();
    const grant = await this.store.get<OAuthGrant>(grantKey(record.grantId));
    if (!grant || grant.revokedAt || grant.resource !== resource) throw invalidToken();
    return this.liveAccount(record.accountId, invalidToken);
  }

  /**
   * Revocation (RFC 7009) by the client the token was issued to: an access token ends alone, a
   * refresh token ends its whole grant. Unknown tokens (and other clients' tokens) change nothing.
   */
  async revokeToken(token: string, client: OAuthClient): Promise<void> {
    const access = await this.store.get<AccessRecord>(accessKey(token));
    if (access) {
      if (access.clientId === client.clientId) await this.store.delete(accessKey(token));
      return;
    }
    const refresh = await this.store.get<RefreshRecord>(refreshKey(token));
    if (refresh && refresh.clientId === client.clientId) await this.revokeGrant(refresh.grantId);
  }

  /**
   * The live grants of an account, newest first. A grant unused for longer than a refresh token
   * lives has no token left that works: it is dropped here.
   */
  async grantsOf(accountId: string): Promise<OAuthGrant[]> {
    const ids = (await this.store.get<string[]>(grantsIndexKey(accountId))) ?? [];
    const grants = await Promise.all(ids.map((id) => this.store.get<OAuthGrant>(grantKey(id))));
    const oldest = this.clock().getTime() - this.refreshTtlMs();
    const live: OAuthGrant[] = [];
    for (const [index, grant] of grants.entries()) {
      if (grant && !grant.revokedAt && grant.accountId === accountId && new Date(grant.lastUsedAt ?? grant.createdAt).getTime() > oldest) live.push(grant);
      else {
        if (grant && !grant.revokedAt) await this.store.delete(grantKey(ids[index]));
        await this.removeFromIndex(ids[index], accountId);
      }
    }
    return live.reverse();
  }

  /** Ends a grant: its access and refresh tokens stop working at once. False when it was not live. */
  async revokeGrant(grantId: string): Promise<boolean> {
    const now = this.clock().toISOString();
    const revoked = await this.store.update<OAuthGrant, OAuthGrant | undefined>(grantKey(grantId), (grant) => {
      if (!grant || grant.revokedAt) return { value: grant, result: undefined };
      const next = { ...grant, revokedAt: now };
      return { value: next, result: next };
    });
    if (!revoked) return false;
    // Kept, revoked, while tokens issued under it could still be presented; then it goes.
    await this.store.set(grantKey(grantId), revoked, this.refreshTtlMs());
    await this.removeFromIndex(grantId, revoked.accountId);
    return true;
  }

  async grant(grantId: string): Promise<OAuthGrant | undefined> {
    return this.store.get<OAuthGrant>(grantKey(grantId));
  }

  /** True when a requested redirect URI is one the client registered (see oauth-redirects.ts). */
  static redirectAllowed(client: OAuthClient, redirectUri: string): boolean {
    return redirectUriMatches(client.redirectUris, redirectUri);
  }

  private async issue(grant: OAuthGrant, generation: number): Promise<IssuedTokens> {
    const now = this.clock().getTime();
    const accessToken = `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const accessMs = this.settings.accessTtlSeconds * 1000;
    const access: AccessRecord = { grantId: grant.id, accountId: grant.accountId, clientId: grant.clientId, expiresAt: new Date(now + accessMs).toISOString() };
    const refresh: RefreshRecord = { grantId: grant.id, clientId: grant.clientId, generation, expiresAt: new Date(now + this.refreshTtlMs()).toISOString() };
    await this.store.set(accessKey(accessToken), access, accessMs);
    await this.store.set(refreshKey(refreshToken), refresh, this.refreshTtlMs());
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.settings.accessTtlSeconds, refresh_token: refreshToken, scope: grant.scope };
  }

  private async liveGrant(grantId: string): Promise<OAuthGrant> {
    const grant = await this.grant(grantId);
    if (!grant || grant.revokedAt) throw new OAuthError('invalid_grant', 'This sign-in was revoked: sign in again.');
    await this.liveAccount(grant.accountId, () => new OAuthError('invalid_grant', 'The key that signed in was revoked: sign in again with a valid key.'));
    return grant;
  }

  private async liveAccount(accountId: string, refusal: () => Error): Promise<AccountRecord> {
    let account: AccountRecord;
    try {
      account = await this.accounts.get(accountId);
    } catch (error) {
      if (error instanceof GleanerError && error.code === 'NOT_FOUND') throw refusal();
      throw error;
    }
    if (account.revokedAt) throw refusal();
    return account;
  }

  private async removeFromIndex(grantId: string, accountId?: string): Promise<void> {
    const owner = accountId ?? (await this.grant(grantId))?.accountId;
    if (!owner) return;
    await this.store.update<string[], void>(grantsIndexKey(owner), (ids = []) => ({ value: ids.filter((id) => id !== grantId), result: undefined }));
  }

  private refreshTtlMs(): number {
    return this.settings.refreshTtlSeconds * 1000;
  }
}
