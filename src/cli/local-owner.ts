/**
 * The local owner: the account a stdio MCP server acts as when no GLEANER_API_KEY is configured
 * (a Claude Desktop bundle installed with its settings left empty). It is made once per store, on
 * the Enterprise plan, and reused by every later start. Its key is thrown away at creation: nobody
 * can present it, so the account is reachable only through a local stdio process, never through
 * REST or HTTP MCP, which keep asking for keys.
 */
import type { Accounts, AccountRecord } from '../accounts/accounts.js';
import { GleanerError } from '../errors.js';
import type { Store } from '../store/store.js';

/** Store key holding the local owner's account id. */
const LOCAL_OWNER_KEY = 'local-owner';
export const LOCAL_OWNER_NAME = 'local-owner';

/** The local owner's account, created on first use (two processes starting at once make one). */
export async function localOwner(store: Store, accounts: Accounts): Promise<AccountRecord> {
  return store.update<string, AccountRecord>(LOCAL_OWNER_KEY, async (id) => {
    const existing = id ? await accounts.get(id).catch(() => undefined) : undefined;
    if (existing && !existing.revokedAt) return { value: existing.id, result: existing };
    // A revoked local owner stays revoked: a new one replaces it.
    const { account } = await accounts.create({ plan: 'Enterprise', name: LOCAL_OWNER_NAME });
    return { value: account.id, result: account };
  });
}

/** The local owner's account id when the store has one (serve leaves it out when counting usable keys). */
export async function localOwnerId(store: Store): Promise<string | undefined> {
  return store.get<string>(LOCAL_OWNER_KEY);
}

/** The local owner's account for one call: UNAUTHORIZED once it was revoked or removed. */
export async function ownerAccount(accounts: Accounts, id: string): Promise<AccountRecord> {
  const account = await accounts.get(id).catch(() => undefined);
  if (!account || account.revokedAt) throw new GleanerError('UNAUTHORIZED', 'The local owner account of this store was revoked or removed: restart the MCP server, or set GLEANER_API_KEY.');
  return account;
}
