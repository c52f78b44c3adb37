/**
 * What a hop may carry: the caller's headers, the operator's cookies, or neither. Credentials never
 * follow a redirect to another origin, and nothing but generic headers goes to another site. The
 * answer only tightens along a walk: once a redirect has left the site, nothing comes back.
 */
import { platformOfHost, type Platform } from './egress.js';

/** 0: everything; 1: no credential headers (another origin of the site); 2: generic headers only, no cookies (another site). */
export type Carry = 0 | 1 | 2;

/**
 * Whether two URLs are on one site: the same host, or hosts of one platform (api.x.com and x.com,
 * www.youtube.com and m.youtube.com). Other hosts count as sites of their own: without a public
 * suffix list, a stricter answer is the safe one.
 */
function sameSite(a: URL, aPlatform: Platform | undefined, b: URL): boolean {
  const host = (url: URL) => url.hostname.toLowerCase().replace(/\.$/, '');
  if (host(a) === host(b)) return true;
  return aPlatform !== undefined && aPlatform === platformOfHost(b.hostname);
}

/** What a hop to `url` (of `platform`) may carry on a walk that began at `first`, after `previous` allowed. */
export function carryFor(url: URL, platform: Platform | undefined, first: URL, previous: Carry): Carry {
  const carry: Carry = !sameSite(url, platform, first) ? 2 : url.origin !== first.origin ? 1 : 0;
  return Math.max(carry, previous) as Carry;
}

/**
 * What a request may carry to another site after a redirect: the headers any browser would send
 * anywhere. Everything else (cookies, authorization, x-csrf-token, guest tokens, API keys, whatever
 * an adapter added for its platform) stays with the site it was meant for.
 */
const GENERIC_HEADERS = new Set(['accept', 'accept-language', 'accept-encoding', 'user-agent', 'sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'range', 'content-type', 'cache-control', 'pragma']);
const CREDENTIAL_HEADERS = /^(authorization|cookie|proxy-authorization)$/i;

/** The caller's headers a hop may carry. */
export function carriedHeaders(headers: Record<string, string>, carry: Carry): Record<string, string> {
  if (carry === 0) return { ...headers };
  const keep = carry === 2 ? (name: string) => GENERIC_HEADERS.has(name.toLowerCase()) : (name: string) => !CREDENTIAL_HEADERS.test(name);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => keep(name)));
}

export function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
