/**
 * Who holds credit reservations: each process has an owner id and keeps a heartbeat record in the
 * store. A reservation whose owner's heartbeat expired, or whose owner was a process on this machine
 * that no longer exists, belongs to a call that will never answer: its credits go back.
 */
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store.js';

/** A live process refreshes its heartbeat this often; it is considered gone after HEARTBEAT_TTL_MS. */
export const HEARTBEAT_EVERY_MS = 10_000;
export const HEARTBEAT_TTL_MS = 30_000;

const heartbeatKey = (owner: string) => `owner:${owner}`;

/** host/pid/random: the random part tells apart two lives of one pid. */
export function newOwnerId(): string {
  return `${os.hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
}

function sameHostPid(owner: string): number | undefined {
  const [host, pid] = owner.split('/');
  return host === os.hostname() && pid && /^\d+$/.test(pid) ? Number(pid) : undefined;
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function beat(store: Store, owner: string): Promise<void> {
  await store.set(heartbeatKey(owner), { at: new Date().toISOString() }, HEARTBEAT_TTL_MS);
}

/** True when the owner can no longer settle what it reserved. */
export async function ownerGone(store: Store, owner: string): Promise<boolean> {
  const pid = sameHostPid(owner);
  if (pid !== undefined && pid !== process.pid && !processExists(pid)) return true;
  return (await store.get(heartbeatKey(owner))) === undefined;
}
