/**
 * A hop's route, worked out once before it is sent and carried unchanged through the fetch stage:
 *   resolve  the override target (GLEANER_UPSTREAM_OVERRIDES), also for URLs found in responses;
 *   guard    the SSRF guard's verdict on the URL (guard.ts);
 *   route    the exit (a proxy of the host's platform pool, or direct for Gleaner's own calls to
 *            the operator's endpoints), the checked address a guarded, proxied request is pinned to;
 *   carry    which headers and whether the operator's cookies go along (credentials.ts).
 * The one thing a hop may change afterwards is its exit: a retry leaves by the pool's current exit
 * (an exit found dead, or rotated away from by an adapter, is not used again) — see `reexit`.
 */
import type { Dispatcher } from 'undici';
import type { UpstreamOverride } from '../config.js';
import { applyOverride } from './overrides.js';
import { assertHostAllowed, isGuarded, pinnedAddress } from './guard.js';
import { carriedHeaders, carryFor, hasHeader, type Carry } from './credentials.js';
import { platformOfHost, type Egress, type Exit, type Platform } from './egress.js';
import type { Resolver } from './guard-agent.js';
import type { CookieJar } from './cookies.js';

/** What routing needs from the client: its configuration and its dispatchers. */
export interface RouteContext {
  overrides: UpstreamOverride[];
  allowPrivate?: boolean;
  /** Origins of the operator's endpoints, reached directly by Gleaner's own calls. */
  trusted: Set<string>;
  egress: Egress;
  resolver: Resolver;
  cookies?: CookieJar;
  /** Who a request that names no user agent says it is: a user agent and its client hints (see identity.ts). */
  identity: Readonly<Record<string, string>>;
  /** Direct dispatchers: with the connect-time guard, and without. */
  guardedAgent: Dispatcher;
  openAgent: Dispatcher;
}

export interface Route {
  /** The hop as the caller sees it (before the override). */
  readonly url: URL;
  readonly platform: Platform | undefined;
  /** Where the request is sent: the URL, its override's origin, or its pinned address. */
  readonly target: string;
  readonly guarded: boolean;
  /** The proxy this hop leaves by (undefined: direct). */
  readonly exit: Exit | undefined;
  readonly dispatcher: Dispatcher;
  /** What the hop may carry (credentials.ts); the next hop's can only be stricter. */
  readonly carry: Carry;
  /** Every header sent: defaults, the caller's (as far as `carry` allows), Host, Cookie, X-Forwarded-Host. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface RouteRequest {
  guard?: boolean;
  /** The caller asked for the operator's cookies (`credentials: true`). */
  credentials: boolean;
  /** The caller's headers. */
  headers: Record<string, string>;
  /** Where the walk began (what "same site" is measured against). */
  first: URL;
  /** The route of the hop before (a redirect's), if any. */
  previous?: Route;
}

export async function planRoute(net: RouteContext, url: URL, request: RouteRequest): Promise<Route> {
  // resolve
  const override = applyOverride(url, net.overrides);
  // guard
  const guarded = isGuarded(request, net, override.overridden);
  if (guarded) assertHostAllowed(url);
  // route
  const platform = platformOfHost(url.hostname);
  const direct = request.guard === false && net.trusted.has(url.origin);
  const proxied = !direct && net.egress.proxied(platform);
  const pinned = guarded && proxied ? await pinnedAddress(net.resolver, url) : undefined;
  // Picked after the name is resolved: an exit rotated away from meanwhile is not the one taken.
  const exit = proxied ? net.egress.exitOf(platform) : undefined;
  let target = override.url;
  const routed: Record<string, string> = {};
  if (pinned && !override.overridden) {
    // The proxy is asked to CONNECT to the address; Host (and so the TLS server name) stays the name.
    const pinnedUrl = new URL(url);
    pinnedUrl.hostname = pinned;
    target = pinnedUrl.toString();
    routed.host = url.host;
  }
  // carry
  const carry = carryFor(url, platform, request.first, request.previous?.carry ?? 0);
  const headers = carriedHeaders(request.headers, carry);
  const cookie = request.credentials && carry < 2 && net.cookies && !hasHeader(headers, 'cookie') ? net.cookies.headerFor(url) : undefined;
  return Object.freeze({
    url,
    platform,
    target,
    guarded,
    exit,
    dispatcher: exit ? exit.agent : guarded ? net.guardedAgent : net.openAgent,
    carry,
    headers: Object.freeze({
      // A request with its own user agent (an InnerTube client, a platform page) gets no hints it did not set.
      ...(hasHeader(headers, 'user-agent') ? {} : net.identity),
      'accept-encoding': 'gzip, deflate, br',
      ...headers,
      ...routed,
      ...(cookie ? { cookie } : {}),
      ...(override.forwardedHost ? { 'x-forwarded-host': override.forwardedHost } : {}),
    }),
  });
}

/** The same route through its pool's current exit (for a retry: the exit it had may be dead or rotated away from). */
export function reexit(net: RouteContext, route: Route): Route {
  if (!route.exit) return route;
  const exit = net.egress.exitOf(route.platform);
  if (!exit || exit.agent === route.exit.agent) return route;
  return Object.freeze({ ...route, exit, dispatcher: exit.agent });
}
