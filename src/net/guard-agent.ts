/**
 * The connect-time half of the SSRF guard: an undici Agent whose DNS lookup refuses any name that
 * resolves to a blocked address. The check runs on the addresses the socket is about to use, so a
 * name that resolves to a public address when validated and to 127.0.0.1 a moment later (DNS
 * rebinding) still fails here.
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { Agent, buildConnector } from 'undici';
import { guardedConnector } from './h1-guard.js';
import { blockedAddressReason } from './ssrf.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; injectable so tests can make a name point anywhere. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const addresses = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Thrown from the lookup when a name resolves to a blocked address; http.ts turns it into URL_NOT_ALLOWED. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_GLEANER_URL_NOT_ALLOWED';
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${hostname} resolves to ${address} (${reason})`);
    this.name = 'BlockedAddressError';
  }
}

/** Resolves and checks every address (one bad address refuses the name: the OS could pick it). */
export async function resolveAllowed(resolver: Resolver, hostname: string): Promise<ResolvedAddress[]> {
  const addresses = await resolver(hostname);
  for (const entry of addresses) {
    const reason = blockedAddressReason(entry.address);
    if (reason) throw new BlockedAddressError(hostname, entry.address, reason);
  }
  return addresses;
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(resolver: Resolver) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback): void => {
    resolveAllowed(resolver, hostname).then(
      (addresses) => {
        const family = options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : Number(options.family) || 0;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (usable.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }), options.all ? [] : '', 0);
        } else if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (error: Error) => callback(error, options.all ? [] : '', 0),
    );
  };
}

export function createAgent(options: { guarded: boolean; resolver: Resolver; connectTimeoutMs: number }): Agent {
  return new Agent({
    connect: guardedConnector(
      buildConnector({
        timeout: options.connectTimeoutMs,
        ...(options.guarded ? { lookup: guardedLookup(options.resolver) } : {}),
      }),
    ),
    // The client enforces one total deadline per request; these only stop a silent socket.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}
