/**
 * A forward proxy on loopback that tunnels CONNECT requests, records what it was asked to reach,
 * and resolves names itself: `route` maps the requested host and port to where the tunnel really
 * goes (a name the client could not resolve, or a public address, can be sent to loopback), which is
 * how an SSRF through a proxy would happen.
 */
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface TestProxy {
  url: string;
  /** Every CONNECT target as asked ("host:port"), one per new tunnel. */
  connects: string[];
  close(): Promise<void>;
}

export async function startTestProxy(route: (host: string, port: number) => { host: string; port: number } = (host, port) => ({ host, port })): Promise<TestProxy> {
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const asked = req.url ?? '';
    connects.push(asked);
    const colon = asked.lastIndexOf(':');
    const to = route(asked.slice(0, colon).replace(/^\[|\]$/g, ''), Number(asked.slice(colon + 1)));
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const upstream = net.connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
