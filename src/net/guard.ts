/**
 * The guard stage: the SSRF guard's verdict on one hop's URL, before anything is sent. The rules are
 * ssrf.ts's; the connect-time half (the address a socket actually uses) is guard-agent.ts's.
 */
import { GleanerError } from '../errors.js';
import { blockedHostReason } from './ssrf.js';
import { BlockedAddressError, resolveAllowed, type Resolver } from './guard-agent.js';
import { notAllowed } from './failures.js';

/** A URL the client may be asked for at all: http or https. */
export function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GleanerError('INVALID_REQUEST', `"${url}" is not a valid URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GleanerError('URL_NOT_ALLOWED', `Only http and https URLs can be fetched, not ${parsed.protocol.replace(/:$/, '')}: (${url}).`);
  }
  return parsed;
}

/**
 * Whether the guard applies to a hop: not to a request made with `guard: false` (Gleaner's own
 * calls to the operator's endpoints), not with GLEANER_ALLOW_PRIVATE_URLS, not to an overridden host.
 */
export function isGuarded(request: { guard?: boolean }, policy: { allowPrivate?: boolean }, overridden: boolean): boolean {
  return request.guard !== false && !policy.allowPrivate && !overridden;
}

/** Refuses a host that is, by its name or literal address, one the guard never reaches. */
export function assertHostAllowed(url: URL): void {
  const reason = blockedHostReason(url.hostname);
  if (reason) throw notAllowed(url, reason);
}

const isLiteral = (host: string) => /^[\d.]+$/.test(host) || host.startsWith('[');

/**
 * The address a proxied, guarded request is sent to: the name resolved here and checked, so the
 * proxy cannot resolve it to somewhere the guard would refuse. A name that does not resolve here
 * is refused rather than left to the proxy's resolver.
 */
export async function pinnedAddress(resolver: Resolver, url: URL): Promise<string> {
  const host = url.hostname;
  if (isLiteral(host)) return host;
  try {
    const [first] = await resolveAllowed(resolver, host);
    if (!first) throw new Error('no address');
    return first.family === 6 ? `[${first.address}]` : first.address;
  } catch (error) {
    if (error instanceof BlockedAddressError) throw notAllowed(url, `${error.address}, ${error.reason}`);
    throw new GleanerError('URL_NOT_ALLOWED', `${url.host} does not resolve from this server; through a proxy only names that resolve here are fetched.`);
  }
}

/** The guard's checks on a name without fetching it: a blocked address refuses, a name that does not resolve now does not. */
export async function assertResolvesAllowed(resolver: Resolver, url: URL): Promise<void> {
  assertHostAllowed(url);
  if (isLiteral(url.hostname)) return;
  try {
    await resolveAllowed(resolver, url.hostname);
  } catch (error) {
    if (error instanceof BlockedAddressError) throw notAllowed(url, `${error.address}, ${error.reason}`);
    // A name that does not resolve now is the fetch's problem later, not a policy refusal.
  }
}
