/**
 * What the console shows of OAuth for one account: the clients a person approved with its key, and
 * revoking one. Scoped by account: a grant of another account is neither listed nor revocable.
 */
import type { OAuthTokens } from './oauth-tokens.js';

export interface ApprovedClient {
  /** The id to revoke it by. */
  grantId: string;
  clientId: string;
  /** The name the client gave itself when it registered (or its metadata document's host). */
  clientName: string;
  approvedAt: string;
  /** Last time it refreshed its tokens; absent when it never did. */
  lastUsedAt?: string;
}

export class OAuthGrants {
  constructor(private readonly tokens: OAuthTokens) {}

  /** The clients approved for `accountId` whose sign-in is still live, newest first. */
  async list(accountId: string): Promise<ApprovedClient[]> {
    return (await this.tokens.grantsOf(accountId)).map((grant) => ({
      grantId: grant.id,
      clientId: grant.clientId,
      clientName: grant.clientName,
      approvedAt: grant.createdAt,
      ...(grant.lastUsedAt ? { lastUsedAt: grant.lastUsedAt } : {}),
    }));
  }

  /** Revokes one approval of `accountId`: its tokens get 401 from then on. False when there is no such live approval of this account. */
  async revoke(accountId: string, grantId: string): Promise<boolean> {
    const grant = await this.tokens.grant(grantId);
    if (!grant || grant.accountId !== accountId || grant.revokedAt) return false;
    return this.tokens.revokeGrant(grantId);
  }
}
