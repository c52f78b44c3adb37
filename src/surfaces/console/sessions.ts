/**
 * Console sessions: a random token in an HttpOnly cookie, stored only as its SHA-256 hash in the one
 * store (SQLite or Redis), so any process sharing the store accepts it and a copy of the store holds
 * no usable session. A session expires SESSION_HOURS after sign-in (the store's TTL removes it), ends
 * at sign-out, and is refused as soon as its key is revoked.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../../store/store.js';
import type { Accounts, AccountRecord } from '../../accounts/accounts.js';

export const SESSION_HOURS = 12;
const SESSION_MS = SESSION_HOURS * 3_600_000;
/** The sign-in form's own token lives this long (a form left open for an hour still works). */
export const SIGN_IN_FORM_MS = 3_600_000;

interface SessionRecord {
  accountId: string;
  createdAt: string;
  expiresAt: string;
}

export interface Session {
  account: AccountRecord;
  /** The token every form of this session carries (CSRF), derived from the session's own secret. */
  csrf: string;
  expiresAt: string;
}

const sessionKey = (token: string) => `console-session:${createHash('sha256').update(token).digest('hex')}`;

/** A token derived from a secret for one purpose: the form token of a session or of the sign-in form. */
export function derivedToken(secret: string, purpose: 'csrf' | 'sign-in'): string {
  return createHmac('sha256', secret).update(`gleaner-console:${purpose}`).digest('base64url');
}

/** Constant-time comparison of two tokens (different lengths are simply unequal). */
export function sameToken(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export class ConsoleSessions {
  constructor(
    private readonly store: Store,
    private readonly accounts: Accounts,
  ) {}

  /** Starts a session for a key's account; returns the token for the cookie (the only copy). */
  async start(account: AccountRecord): Promise<{ token: string; maxAgeSeconds: number }> {
    const token = newSecret();
    const now = Date.now();
    const record: SessionRecord = { accountId: account.id, createdAt: new Date(now).toISOString(), expiresAt: new Date(now + SESSION_MS).toISOString() };
    await this.store.set(sessionKey(token), record, SESSION_MS);
    return { token, maxAgeSeconds: SESSION_MS / 1000 };
  }

  /** The session of a cookie's token: undefined when unknown, expired, or its key was revoked or removed. */
  async find(token: string | undefined): Promise<Session | undefined> {
    if (!token || token.length > 100) return undefined;
    const record = await this.store.get<SessionRecord>(sessionKey(token));
    if (!record || Date.parse(record.expiresAt) <= Date.now()) return undefined;
    const account = await this.accounts.get(record.accountId).catch(() => undefined);
    if (!account || account.revokedAt) {
      await this.end(token);
      return undefined;
    }
    return { account, csrf: derivedToken(token, 'csrf'), expiresAt: record.expiresAt };
  }

  async end(token: string | undefined): Promise<void> {
    if (token && token.length <= 100) await this.store.delete(sessionKey(token));
  }
}
