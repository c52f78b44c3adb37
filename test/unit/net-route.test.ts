/**
 * The route stage on its own (src/net/route.ts): a hop's override, guard verdict, exit, pinned
 * address and what it may carry, worked out once into one frozen object. No network: the
 * dispatchers are stand-ins and the resolver is this test's.
 */
import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { planRoute, reexit, type RouteContext } from '../../src/net/route.js';
import { Egress } from '../../src/net/egress.js';
import { CookieJar } from '../../src/net/cookies.js';

const guardedAgent = { name: 'guarded' } as unknown as Dispatcher;
const openAgent = { name: 'open' } as unknown as Dispatcher;

function context(overrides: Partial<RouteContext> = {}): RouteContext {
  return {
    overrides: [{ host: 'youtube.com', origin: 'http://127.0.0.1:9' }],
    trusted: new Set(['https://stt.example']),
    egress: new Egress(),
    resolver: async () => [{ address: '93.184.216.34', family: 4 }],
    cookies: new CookieJar([{ domain: 'youtube.com', includeSubdomains: true, path: '/', secure: false, expires: 0, name: 'SID', value: 'secret' }]),
    identity: { 'user-agent': 'test-agent' },
    guardedAgent,
    openAgent,
    ...overrides,
  };
}

const request = (url: string, more: { guard?: boolean; credentials?: boolean; headers?: Record<string, string> } = {}) => ({
  guard: more.guard,
  credentials: more.credentials ?? false,
  headers: more.headers ?? {},
  first: new URL(url),
});

describe('planRoute', () => {
  it('sends an overridden host to its override, unguarded, with X-Forwarded-Host; the route is frozen', async () => {
    const url = new URL('https://www.youtube.com/watch?v=x');
    const route = await planRoute(context(), url, request(url.toString(), { credentials: true }));
    expect(route.target).toBe('http://127.0.0.1:9/watch?v=x');
    expect(route.guarded).toBe(false);
    expect(route.platform).toBe('youtube');
    expect(route.dispatcher).toBe(openAgent);
    expect(route.headers).toMatchObject({ 'user-agent': 'test-agent', 'x-forwarded-host': 'www.youtube.com', cookie: 'SID=secret' });
    expect(Object.isFrozen(route)).toBe(true);
    expect(Object.isFrozen(route.headers)).toBe(true);
  });

  it('guards a caller URL: a blocked host is refused before anything is sent', async () => {
    const url = new URL('http://169.254.169.254/latest/meta-data');
    await expect(planRoute(context(), url, request(url.toString()))).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    const open = await planRoute(context({ allowPrivate: true }), url, request(url.toString()));
    expect(open.guarded).toBe(false);
  });

  it('pins a guarded, proxied hop to the address it checked, keeping Host', async () => {
    const net = context({ egress: new Egress({ proxies: ['http://proxy-a.example:3128', 'http://proxy-b.example:3128'] }) });
    const url = new URL('http://example.com:8080/page');
    const route = await planRoute(net, url, request(url.toString()));
    expect(route.guarded).toBe(true);
    expect(route.exit?.label).toBe('proxy 1 of 2');
    expect(route.dispatcher).toBe(route.exit?.agent);
    expect(route.target).toBe('http://93.184.216.34:8080/page');
    expect(route.headers.host).toBe('example.com:8080');
    // A retry keeps the route and leaves by the pool's current exit once the old one is found dead.
    expect(reexit(net, route)).toBe(route);
    net.egress.markDown(route.exit!);
    const next = reexit(net, route);
    expect(next.exit?.label).toBe('proxy 2 of 2');
    expect(next.dispatcher).toBe(next.exit?.agent);
    expect(next.target).toBe(route.target);
    await net.egress.close();
  });

  it("sends Gleaner's own calls to the operator's endpoints direct, a caller's URL naming them through the proxy", async () => {
    const net = context({ egress: new Egress({ proxies: ['http://proxy-a.example:3128'] }) });
    const url = new URL('https://stt.example/v1/audio');
    const own = await planRoute(net, url, request(url.toString(), { guard: false }));
    expect(own.exit).toBeUndefined();
    expect(own.dispatcher).toBe(openAgent);
    const callers = await planRoute(net, url, request(url.toString()));
    expect(callers.exit).toBeDefined();
    await net.egress.close();
  });

  it('tightens what a hop carries along a walk: another origin loses credentials, another site all but generic headers', async () => {
    const net = context({ overrides: [] });
    const first = new URL('https://api.x.com/1');
    const headers = { authorization: 'Bearer t', 'x-csrf-token': 'c', accept: 'application/json' };
    const start = await planRoute(net, first, { ...request(first.toString(), { credentials: true, headers }) });
    expect(start.carry).toBe(0);
    expect(start.headers).toMatchObject(headers);
    const sameSite = await planRoute(net, new URL('https://x.com/2'), { ...request(first.toString(), { credentials: true, headers }), previous: start });
    expect(sameSite.carry).toBe(1);
    expect(sameSite.headers.authorization).toBeUndefined();
    expect(sameSite.headers['x-csrf-token']).toBe('c');
    const elsewhere = await planRoute(net, new URL('https://example.com/3'), { ...request(first.toString(), { credentials: true, headers }), previous: sameSite });
    expect(elsewhere.carry).toBe(2);
    expect(Object.keys(elsewhere.headers).sort()).toEqual(['accept', 'accept-encoding', 'user-agent']);
    // Back on the first origin, nothing comes back.
    const back = await planRoute(net, first, { ...request(first.toString(), { credentials: true, headers }), previous: elsewhere });
    expect(back.carry).toBe(2);
  });

  it('never adds cookies to a request that did not ask for them', async () => {
    const url = new URL('https://www.youtube.com/');
    const route = await planRoute(context({ overrides: [] }), url, request(url.toString()));
    expect(route.headers.cookie).toBeUndefined();
  });
});
