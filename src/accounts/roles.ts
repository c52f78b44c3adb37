/**
 * Which keys may manage the others (create, revoke, change plans) from the console: owner keys.
 * `gleaner serve` makes its first key an owner; `gleaner keys create --owner` makes more. Every other
 * key is a member: it sees only itself. The stdio local owner (cli/local-owner.ts) has no key that
 * anyone holds, so it never signs in anywhere, whatever its role.
 */
export type AccountRole = 'owner' | 'member';

/** The name `gleaner serve` gave its first key before keys had roles. */
const LEGACY_OWNER_NAME = 'owner';

/** The fields of an account record (accounts.ts) a role depends on. */
interface RoleFields {
  name: string;
  plan: string;
  role?: AccountRole;
  revokedAt?: string;
}

export function isOwner(account: RoleFields): boolean {
  if (account.revokedAt) return false;
  if (account.role !== undefined) return account.role === 'owner';
  // A store made before roles: the key serve created as the owner (Enterprise, named "owner").
  return account.name === LEGACY_OWNER_NAME && account.plan === 'Enterprise';
}
