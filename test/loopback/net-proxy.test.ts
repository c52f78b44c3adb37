import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient, type Resolver } from '../../src/net/http.js';
import { blockedHostReason } from '../../src/net/ssrf.js';
import { Egress } from '../../src/net/egress.js';
import { startTestProxy, type TestProxy } from '../support/proxy.js';

/** The site every tunnel really reaches; it records the Host header each request carried. */
let origin: http.Server;
let originUrl: string;
let originPort: number;
const hostsSeen: string[] = [];
/** Three proxies that resolve names themselves: every tunnel, whatever it asks for, lands on the origin. */
let proxyA: TestProxy;
let proxyB: TestProxy;
let proxyC: TestProxy;

/** DNS as this server sees it: public names resolve to public addresses; canary.invalid does not resolve. */
const PUBLIC_IP = '93.184.216.34';
const resolver: Resolver = async (host) => {
  if (host === 'canary.invalid') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  if (host === 'rebound.test') return [{ address: '127.0.0.1', family: 4 }];
  return [{ address: PUBLIC_IP, family: 4 }];
};

beforeAll(async () => {
  origin = http.createServer((req, res) => {
    hostsSeen.push(req.headers.host ?? '');
    res.end(`hello from ${req.url}${req.headers.cookie ? ` cookie=${req.headers.cookie}` : ''}`);
  });
  origin.listen(0, '127.0.0.1');
  await once(origin, 'listening');
  originPort = (origin.address() as AddressInfo).port;
  originUrl = `http://127.0.0.1:${originPort}`;
  const toOrigin = () => ({ host: '127.0.0.1', port: originPort });
  [proxyA, proxyB, proxyC] = await Promise.all([startTestProxy(toOrigin), startTestProxy(toOrigin), startTestProxy(toOrigin)]);
});
afterAll(async () => {
  await Promise.all([proxyA.close(), proxyB.close(), proxyC.close()]);
  origin.close();
});
beforeEach(() => {
  for (const proxy of [proxyA, proxyB, proxyC]) proxy.connects.length = 0;
  hostsSeen.length = 0;
});

describe('GLEANER_PROXY_URL', () => {
  it('carries outbound requests through the proxy', async () => {
    const client = new HttpClient({ overrides: [], allowPrivate: true, proxyUrl: proxyA.url, trustedOrigins: [proxyA.url] });
    const response = await client.fetch(`${originUrl}/page`);
    expect(response.text()).toBe('hello from /page');
    expect(proxyA.connects).toEqual([new URL(originUrl).host]);
    await client.close();
  });

  it('does not carry operator endpoints; an overridden host keeps its exit; the guard stays', async () => {
    const client = new HttpClient({ overrides: [{ host: 'youtube.com', origin: originUrl }], proxyUrl: proxyA.url, trustedOrigins: [proxyA.url, originUrl], resolver });
    // Gleaner's own call to an operator endpoint (guard: false) goes direct.
    expect((await client.fetch(`${originUrl}/stt`, { guard: false })).text()).toBe('hello from /stt');
    expect(proxyA.connects).toEqual([]);
    // The override only changes where the request lands: the request still leaves by the proxy.
    expect((await client.fetch('https://www.youtube.com/watch?v=x')).text()).toBe('hello from /watch?v=x');
    expect(proxyA.connects).toEqual([`127.0.0.1:${originPort}`]);
    await expect(client.fetch('http://169.254.169.254/latest/meta-data/')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(client.fetch(`http://rebound.test:${originPort}/`)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(proxyA.connects).toHaveLength(1);
    await client.close();
  });

  it('refuses a name that does not resolve here instead of letting the proxy resolve it (issue 11 item 5)', async () => {
    const client = new HttpClient({ overrides: [], proxyUrl: proxyA.url, trustedOrigins: [proxyA.url], resolver });
    const refused = client.fetch(`http://canary.invalid:${originPort}/secret`);
    await expect(refused).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(refused).rejects.toThrow(/does not resolve/);
    expect(proxyA.connects).toEqual([]);
    expect(hostsSeen).toEqual([]);
    await client.close();
  });

  it('tells the proxy the address it checked, keeping the Host header', async () => {
    const client = new HttpClient({ overrides: [], proxyUrl: proxyA.url, trustedOrigins: [proxyA.url], resolver });
    const response = await client.fetch(`http://public.example:${originPort}/page`);
    expect(response.text()).toBe('hello from /page');
    expect(proxyA.connects).toEqual([`${PUBLIC_IP}:${originPort}`]);
    expect(hostsSeen).toEqual([`public.example:${originPort}`]);
    expect(response.url).toBe(`http://public.example:${originPort}/page`);
    await client.close();
  });

  it('blocks IPv4-translated addresses (::ffff:0:a.b.c.d) like the IPv4 address they carry', async () => {
    expect(blockedHostReason('[::ffff:0:7f00:1]')).toBe('loopback');
    expect(blockedHostReason('::ffff:0:a9fe:a9fe')).toMatch(/metadata/);
    expect(blockedHostReason('[::ffff:0:808:808]')).not.toBeNull();
    const client = new HttpClient({ overrides: [], resolver });
    await expect(client.fetch(`http://[::ffff:0:7f00:1]:${originPort}/`)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(hostsSeen).toEqual([]);
    await client.close();
  });
});

describe('egress per platform', () => {
  it("a platform's pool overrides GLEANER_PROXY_URL for its hosts only; rotate moves to the next proxy on a fresh connection", async () => {
    const client = new HttpClient({
      overrides: [],
      proxyUrl: proxyC.url,
      platformProxies: { youtube: [proxyA.url, proxyB.url] },
      trustedOrigins: [proxyA.url, proxyB.url, proxyC.url],
      resolver,
    });
    await client.fetch(`http://www.youtube.com:${originPort}/one`);
    await client.fetch(`http://www.youtube.com:${originPort}/two`);
    await client.fetch(`http://www.tiktok.com:${originPort}/other`);
    // Two YouTube requests share one tunnel through the pool's first proxy; TikTok uses the common proxy.
    expect(proxyA.connects).toHaveLength(1);
    expect(proxyB.connects).toHaveLength(0);
    expect(proxyC.connects).toHaveLength(1);
    expect(client.egress.poolSize('youtube')).toBe(2);
    expect(client.egress.poolSize('tiktok')).toBe(1);

    expect(client.egress.rotate('youtube')).toBe(true);
    await client.fetch(`http://www.youtube.com:${originPort}/three`);
    expect(proxyB.connects).toHaveLength(1);
    expect(proxyA.connects).toHaveLength(1);
    // Round the pool: back to the first proxy, on a new tunnel (the old connection was closed).
    client.egress.rotate('youtube');
    await client.fetch(`http://www.youtube.com:${originPort}/four`);
    expect(proxyA.connects).toHaveLength(2);
    // A pool of one: rotating gives a fresh connection through the same proxy.
    client.egress.rotate('tiktok');
    await client.fetch(`http://www.tiktok.com:${originPort}/again`);
    expect(proxyC.connects).toHaveLength(2);
    await client.close();
  });

  it('an exit that cannot be reached is skipped and marked down, and no message names a proxy (issue 20 finding 7)', async () => {
    // Port 1: nothing listens there, so connecting is refused, as with a proxy that is down.
    const client = new HttpClient({ overrides: [], platformProxies: { youtube: ['http://127.0.0.1:1', proxyA.url] }, resolver });
    for (let i = 0; i < 5; i++) expect((await client.fetch(`http://www.youtube.com:${originPort}/call-${i}`)).text()).toBe(`hello from /call-${i}`);
    // Every call went through the live proxy (one kept-alive tunnel), and the pool stays there.
    expect(proxyA.connects).toHaveLength(1);
    expect(client.egress.currentProxy('youtube')).toBe(proxyA.url);
    // Rotating away from the live exit does not land on the dead one while it is marked down.
    client.egress.rotate('youtube');
    expect(client.egress.currentProxy('youtube')).toBe(proxyA.url);
    await client.close();

    const dead = new HttpClient({ overrides: [], platformProxies: { youtube: ['http://127.0.0.1:1', 'http://user:proxy-pw@127.0.0.1:2'] }, proxyUrl: 'http://127.0.0.1:3', resolver });
    for (const url of [`http://www.youtube.com:${originPort}/x`, `http://public.example:${originPort}/y`]) {
      const failure = await dead.fetch(url).then(
        () => undefined,
        (error: Error & { code?: string }) => error,
      );
      expect(failure?.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(failure?.message).toMatch(/proxy \(proxy \d of \d\) could not be reached \(connection refused\)/);
      expect(failure?.message).not.toMatch(/127\.0\.0\.1|proxy-pw|user/);
      expect(failure?.cause).toBeUndefined();
    }
    await dead.close();
  });

  it('a proxy marked down is tried again once its time is over', async () => {
    let now = 0;
    const egress = new Egress({ platformProxies: { youtube: ['http://a.test:1', 'http://b.test:2'] }, downForMs: 60_000, now: () => now });
    const url = new URL('https://www.youtube.com/');
    const first = egress.exitFor(url)!;
    expect(first.label).toBe('proxy 1 of 2');
    expect(egress.markDown(first)).toBe(true);
    expect(egress.exitFor(url)!.label).toBe('proxy 2 of 2');
    now += 59_000;
    egress.rotate('youtube');
    expect(egress.exitFor(url)!.label).toBe('proxy 2 of 2');
    now += 2_000;
    egress.rotate('youtube');
    expect(egress.exitFor(url)!.label).toBe('proxy 1 of 2');
    // Both down: there is no other exit to try at once.
    expect(egress.markDown(egress.exitFor(url)!)).toBe(true);
    expect(egress.markDown(egress.exitFor(url)!)).toBe(false);
    await egress.close();
  });

  it('without any proxy, egress is direct and rotate says there is nowhere to go', async () => {
    const client = new HttpClient({ overrides: [] });
    expect(client.egress.poolSize('youtube')).toBe(0);
    expect(client.egress.rotate('youtube')).toBe(false);
    await client.close();
  });
});
