import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostLimits } from '../../src/net/host-limits.js';
import { HttpClient, type Resolver } from '../../src/net/http.js';
import { BROWSER_USER_AGENT, defaultIdentity } from '../../src/net/identity.js';
import { BUILTIN_PROFILE } from '../../src/profile/load.js';
import { blockedAddressReason, blockedHostReason, canonicalIpv4 } from '../../src/net/ssrf.js';
import { GleanerError } from '../../src/errors.js';

describe('SSRF address rules', () => {
  it('blocks every spelling of loopback, private, link-local, CGNAT, multicast, unspecified and metadata', () => {
    for (const host of [
      '127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST.', 'api.localhost', '[::1]', '::1', '0.0.0.0', '[::]', '10.1.2.3', '172.16.0.1',
      '172.31.255.255', '192.168.1.1', '100.64.0.1', '169.254.169.254', '169.254.169.254.', 'metadata.google.internal', '224.0.0.1',
      '255.255.255.255', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '::ffff:169.254.169.254', '[fe80::1]', '[fc00::1]', '[fd00:ec2::254]',
      '[ff02::1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '0x7f000001', '2130706433', '0177.0.0.1', '127.1', '0x7f.1', '017700000001',
    ]) {
      expect(blockedHostReason(host), host).not.toBeNull();
    }
  });

  it('lets public addresses and names through', () => {
    for (const host of ['example.com', '93.184.216.34', '8.8.8.8', '[2606:4700:4700::1111]', '172.32.0.1', '100.128.0.1', '[::ffff:8.8.8.8]', '1.1.1.1']) {
      expect(blockedHostReason(host), host).toBeNull();
    }
  });

  it('reads IPv4 in the short, hex, octal and integer forms', () => {
    expect(canonicalIpv4('127.1')).toBe('127.0.0.1');
    expect(canonicalIpv4('0x7f000001')).toBe('127.0.0.1');
    expect(canonicalIpv4('2130706433')).toBe('127.0.0.1');
    expect(canonicalIpv4('0251.0376.0251.0376')).toBe('169.254.169.254');
    expect(canonicalIpv4('example')).toBeNull();
    expect(blockedAddressReason('::ffff:10.0.0.1')).toBe('private');
  });
});

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
}

let server: http.Server;
let origin: string;
let port: number;
const seen: Seen[] = [];
let flaky = 0;
let inFlight = 0;
let maxInFlight = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push({ path: url.pathname, headers: req.headers });
    switch (url.pathname) {
      case '/hello':
        res.setHeader('content-type', 'text/plain; charset=utf-8');
        res.end('hello é');
        return;
      case '/gzip':
        res.setHeader('content-encoding', 'gzip');
        res.end(zlib.gzipSync('gzipped body'));
        return;
      case '/br':
        res.setHeader('content-encoding', 'br');
        res.end(zlib.brotliCompressSync('brotli body'));
        return;
      case '/deflate':
        res.setHeader('content-encoding', 'deflate');
        res.end(zlib.deflateSync('deflate body'));
        return;
      case '/bomb':
        res.setHeader('content-encoding', 'gzip');
        res.end(zlib.gzipSync(Buffer.alloc(5_000_000)));
        return;
      case '/cp1252-header':
        res.setHeader('content-type', 'text/html; charset=windows-1252');
        res.end(Buffer.from([0x3c, 0x70, 0x3e, 0x80, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]));
        return;
      case '/cp1252-meta':
        res.setHeader('content-type', 'text/html');
        res.end(Buffer.concat([Buffer.from('<html><head><meta charset="iso-8859-1"></head><body>'), Buffer.from([0x93, 0x63, 0x61, 0x66, 0xe9, 0x94]), Buffer.from('</body></html>')]));
        return;
      case '/big':
        res.end(Buffer.alloc(300_000, 97));
        return;
      case '/flaky':
        if (flaky++ < 2) {
          res.statusCode = 503;
          res.setHeader('retry-after', '0');
          res.end('busy');
          return;
        }
        res.end('recovered');
        return;
      case '/always-503':
        res.statusCode = 503;
        res.end('down');
        return;
      case '/reset':
        if (flaky++ % 2 === 0) {
          req.socket.destroy();
          return;
        }
        res.end('after reset');
        return;
      case '/slow':
        setTimeout(() => res.end('late'), 2_000).unref();
        return;
      case '/concurrent':
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        setTimeout(() => {
          inFlight--;
          res.end('ok');
        }, 30);
        return;
      case '/loop':
        res.statusCode = 302;
        res.setHeader('location', '/loop');
        res.end();
        return;
      case '/to-hello':
        res.statusCode = 301;
        res.setHeader('location', '/hello');
        res.end();
        return;
      case '/to-loopback':
        res.statusCode = 302;
        res.setHeader('location', `http://127.0.0.1:${port}/secret`);
        res.end();
        return;
      case '/to-metadata':
        res.statusCode = 302;
        res.setHeader('location', 'http://169.254.169.254/latest/meta-data/');
        res.end();
        return;
      case '/to-hex':
        res.statusCode = 307;
        res.setHeader('location', `http://0x7f000001:${port}/secret`);
        res.end();
        return;
      case '/to-rebound':
        res.statusCode = 302;
        res.setHeader('location', `http://rebound.test:${port}/secret`);
        res.end();
        return;
      default:
        res.statusCode = 404;
        res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const open = () => new HttpClient({ overrides: [], allowPrivate: true, retryBaseMs: 5 });

describe('HttpClient (guard open for loopback)', () => {
  it('sends a browser user agent by default (GLEANER_USER_AGENT replaces it) and decodes UTF-8', async () => {
    const res = await open().fetch(`${origin}/hello`);
    expect(res.status).toBe(200);
    expect(res.text()).toBe('hello é');
    expect(seen.at(-1)?.headers['user-agent']).toBe(BROWSER_USER_AGENT);
    await new HttpClient({ overrides: [], allowPrivate: true, userAgent: 'Operator/1.0' }).fetch(`${origin}/hello`);
    expect(seen.at(-1)?.headers['user-agent']).toBe('Operator/1.0');
    // An operator's user agent is no Chrome: no Chrome client hints go with it.
    expect(seen.at(-1)?.headers).not.toHaveProperty('sec-ch-ua');
  });

  it('the default identity is the platform profile\'s desktop browser with its client hints; a request naming its own user agent gets none', async () => {
    const desktop = BUILTIN_PROFILE.browsers.desktop;
    expect(BROWSER_USER_AGENT).toBe(desktop.userAgent);
    await open().fetch(`${origin}/hello`);
    expect(seen.at(-1)?.headers).toMatchObject({ 'user-agent': desktop.userAgent, 'sec-ch-ua': desktop.headers['sec-ch-ua'], 'sec-ch-ua-mobile': '?0', 'sec-ch-ua-platform': '"Windows"' });
    // A configured profile's browser (the app passes its desktop identity).
    const mobile = BUILTIN_PROFILE.browsers.mobile;
    await new HttpClient({ overrides: [], allowPrivate: true, identity: defaultIdentity(mobile) }).fetch(`${origin}/hello`);
    expect(seen.at(-1)?.headers).toMatchObject({ 'user-agent': mobile.userAgent, 'sec-ch-ua': mobile.headers['sec-ch-ua'], 'sec-ch-ua-mobile': '?1' });
    // An InnerTube client's own user agent is not dressed in Chrome's hints.
    await open().fetch(`${origin}/hello`, { headers: { 'User-Agent': 'com.google.ios.youtube/21.26.4 (iPhone16,2; U; CPU iOS 18_3_2 like Mac OS X;)' } });
    expect(seen.at(-1)?.headers['user-agent']).toBe('com.google.ios.youtube/21.26.4 (iPhone16,2; U; CPU iOS 18_3_2 like Mac OS X;)');
    expect(seen.at(-1)?.headers).not.toHaveProperty('sec-ch-ua');
  });

  it('decompresses gzip, br and deflate', async () => {
    const client = open();
    expect((await client.fetch(`${origin}/gzip`)).text()).toBe('gzipped body');
    expect((await client.fetch(`${origin}/br`)).text()).toBe('brotli body');
    expect((await client.fetch(`${origin}/deflate`)).text()).toBe('deflate body');
  });

  it('caps the decompressed size (no zip bombs)', async () => {
    await expect(open().fetch(`${origin}/bomb`, { maxBytes: 1_000_000 })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    await expect(open().fetch(`${origin}/big`, { maxBytes: 100_000 })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('decodes legacy charsets from the header and from <meta charset>', async () => {
    expect((await open().fetch(`${origin}/cp1252-header`)).text()).toBe('<p>€ café</p>');
    expect((await open().fetch(`${origin}/cp1252-meta`)).text()).toContain('“café”');
  });

  it('follows up to 5 redirects and reports the final URL', async () => {
    const res = await open().fetch(`${origin}/to-hello`);
    expect(res.url).toBe(`${origin}/hello`);
    await expect(open().fetch(`${origin}/loop`)).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    const before = seen.length;
    await open().fetch(`${origin}/loop`).catch(() => undefined);
    expect(seen.length - before).toBe(6);
  });

  it('retries 503 honouring Retry-After, and connection resets', async () => {
    flaky = 0;
    const res = await open().fetch(`${origin}/flaky`);
    expect(res.text()).toBe('recovered');
    flaky = 0;
    expect((await open().fetch(`${origin}/reset`)).text()).toBe('after reset');
    const final = await open().fetch(`${origin}/always-503`, { retries: 1 });
    expect(final.status).toBe(503);
    expect(final.text()).toBe('down');
  });

  it('times out as UPSTREAM_TIMEOUT', async () => {
    await expect(open().fetch(`${origin}/slow`, { timeoutMs: 200 })).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
  });

  it('keeps at most perHostConcurrency requests in flight to one host', async () => {
    const client = new HttpClient({ overrides: [], allowPrivate: true, perHostConcurrency: 3 });
    maxInFlight = 0;
    await Promise.all(Array.from({ length: 12 }, () => client.fetch(`${origin}/concurrent`)));
    expect(maxInFlight).toBe(3);
  });

  it('sends sequential requests to one host over one kept-alive connection', async () => {
    let connections = 0;
    const server = http.createServer((req, res) => res.end(`answer ${req.url}`)).on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new HttpClient({ overrides: [], allowPrivate: true });
    try {
      for (let i = 0; i < 5; i++) expect((await client.fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/${i}`)).text()).toBe(`answer /${i}`);
      expect(connections).toBe(1);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('limits each host on its own and forgets a host once nothing is running or waiting for it', async () => {
    const limits = new HostLimits(2);
    const inFlight = new Map<string, number>();
    const peak = new Map<string, number>();
    const gates: Array<() => void> = [];
    const task = (host: string) => () =>
      new Promise<string>((resolve) => {
        inFlight.set(host, (inFlight.get(host) ?? 0) + 1);
        peak.set(host, Math.max(peak.get(host) ?? 0, inFlight.get(host) ?? 0));
        gates.push(() => {
          inFlight.set(host, (inFlight.get(host) ?? 0) - 1);
          resolve(host);
        });
      });
    const all = Promise.all([...Array.from({ length: 5 }, () => limits.run('a.test', task('a.test'))), ...Array.from({ length: 3 }, () => limits.run('b.test', task('b.test')))]);
    // Two of each host start at once; the rest wait for a slot of their own host.
    await new Promise((resolve) => setImmediate(resolve));
    expect(gates.length).toBe(4);
    expect(limits.busyHosts).toBe(2);
    while (gates.length) {
      gates.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await all).toEqual([...Array(5).fill('a.test'), ...Array(3).fill('b.test')]);
    expect(peak.get('a.test')).toBe(2);
    expect(peak.get('b.test')).toBe(2);
    expect(limits.busyHosts).toBe(0);
  });

  it('streams bodies, decompressed', async () => {
    const res = await open().stream(`${origin}/gzip`);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('gzipped body');
  });

  it('refuses schemes other than http(s)', async () => {
    await expect(open().fetch('ftp://example.com/file')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(open().fetch('file:///etc/passwd')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
  });
});

describe('HttpClient SSRF guard (default on)', () => {
  const resolver: Resolver = async (host) => {
    if (host === 'rebound.test') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'mixed.test') return [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
    if (host === 'mapped.test') return [{ address: '::ffff:127.0.0.1', family: 6 }];
    throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
  };
  const guarded = () => new HttpClient({ overrides: [{ host: 'site.test', origin }], resolver, retryBaseMs: 5 });

  it('refuses loopback, metadata and odd spellings without sending anything', async () => {
    const before = seen.length;
    for (const url of [
      `${origin}/secret`,
      `http://localhost:${port}/secret`,
      `http://[::1]:${port}/secret`,
      'http://169.254.169.254/latest/meta-data/',
      `http://0x7f000001:${port}/secret`,
      `http://2130706433:${port}/secret`,
      `http://127.1:${port}/secret`,
      `http://[::ffff:127.0.0.1]:${port}/secret`,
    ]) {
      const error = await guarded().fetch(url).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(GleanerError);
      expect((error as GleanerError).code, url).toBe('URL_NOT_ALLOWED');
      expect((error as GleanerError).status).toBe(400);
    }
    expect(seen.length).toBe(before);
  });

  it('refuses names that resolve to blocked addresses, at connect time', async () => {
    const before = seen.length;
    for (const host of ['rebound.test', 'mixed.test', 'mapped.test']) {
      await expect(guarded().fetch(`http://${host}:${port}/secret`)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
      await expect(guarded().assertAllowed(`http://${host}:${port}/secret`)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    }
    expect(seen.length).toBe(before);
  });

  it('checks every redirect hop; override origins are operator config and pass', async () => {
    const ok = await guarded().fetch('http://site.test/hello');
    expect(ok.text()).toBe('hello é');
    expect(seen.at(-1)?.headers['x-forwarded-host']).toBe('site.test');
    for (const path of ['/to-loopback', '/to-metadata', '/to-hex', '/to-rebound']) {
      await expect(guarded().fetch(`http://site.test${path}`)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    }
    expect(seen.filter((s) => s.path === '/secret')).toHaveLength(0);
  });

  it("opens for guard:false and allowPrivate; an operator endpoint's origin opens nothing for a request without guard:false", async () => {
    expect((await guarded().fetch(`${origin}/hello`, { guard: false })).status).toBe(200);
    const trusted = new HttpClient({ overrides: [], trustedOrigins: [origin] });
    expect((await trusted.fetch(`${origin}/hello`, { guard: false })).status).toBe(200);
    await expect(trusted.fetch(`${origin}/hello`)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    await expect(trusted.fetch(`http://localhost:${port}/hello`)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    const open = new HttpClient({ overrides: [], allowPrivate: true });
    expect((await open.fetch(`${origin}/hello`)).status).toBe(200);
    await Promise.all([trusted.close(), open.close()]);
  });
});
