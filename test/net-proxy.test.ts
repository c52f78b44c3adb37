import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../src/net/http.js';

/** A forward proxy on loopback that tunnels CONNECT requests and records their targets. */
let proxy: http.Server;
let proxyUrl: string;
const tunnels: string[] = [];
let origin: http.Server;
let originUrl: string;

beforeAll(async () => {
  origin = http.createServer((req, res) => res.end(`hello from ${req.url}`)).listen(0, '127.0.0.1');
  await once(origin, 'listening');
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  proxy = http.createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client: net.Socket, head) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.close();
  origin.close();
});

describe('GLEANER_PROXY_URL', () => {
  it('carries outbound requests through the proxy', async () => {
    tunnels.length = 0;
    const client = new HttpClient({ overrides: [], allowPrivate: true, proxyUrl, trustedOrigins: [proxyUrl] });
    const response = await client.fetch(`${originUrl}/page`);
    expect(response.text()).toBe('hello from /page');
    expect(tunnels).toEqual([new URL(originUrl).host]);
    await client.close();
  });

  it('does not carry overridden hosts or operator endpoints, and keeps the guard', async () => {
    tunnels.length = 0;
    const client = new HttpClient({ overrides: [{ host: 'youtube.com', origin: originUrl }], proxyUrl, trustedOrigins: [proxyUrl, originUrl] });
    expect((await client.fetch('https://www.youtube.com/watch?v=x')).text()).toBe('hello from /watch?v=x');
    expect((await client.fetch(`${originUrl}/stt`)).text()).toBe('hello from /stt');
    expect(tunnels).toEqual([]);
    await expect(client.fetch('http://169.254.169.254/latest/meta-data/')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(tunnels).toEqual([]);
    await client.close();
  });
});
