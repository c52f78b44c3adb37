/**
 * The outbound client's deadline (net/walk.ts on src/deadline.ts) fires while collections run, for
 * a site that never answers and for a streamed body that stops mid-way after the walk has returned.
 * The site never ends either reply, so a deadline that does not fire turns into the test's timeout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/net/http.js';
import { GleanerError } from '../../src/errors.js';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

let server: http.Server;
let origin: string;
const open = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    open.add(res);
    // /silent answers nothing; /stalls sends its headers and a first chunk, then nothing.
    if (req.url === '/stalls') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(1024));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function underCollections<T>(work: () => Promise<T>): Promise<T> {
  const collector = setInterval(collect, 10);
  try {
    return await work();
  } finally {
    clearInterval(collector);
  }
}

describe('the outbound deadline under forced garbage collection', () => {
  it('a site that never answers: UPSTREAM_TIMEOUT, the caller\'s own signal never firing', { timeout: 30_000 }, async () => {
    const client = new HttpClient({ overrides: [], allowPrivate: true, retryBaseMs: 5 });
    const caller = new AbortController();
    const error = await underCollections(() => client.fetch(`${origin}/silent`, { timeoutMs: 300, retries: 0, signal: caller.signal }).then(() => undefined, (e: unknown) => e));
    expect(error).toBeInstanceOf(GleanerError);
    expect((error as GleanerError).code).toBe('UPSTREAM_TIMEOUT');
    expect(caller.signal.aborted).toBe(false);
    await client.close();
  });

  it('a streamed body that stalls is cut by the same deadline after the walk returned', { timeout: 60_000 }, async () => {
    const client = new HttpClient({ overrides: [], allowPrivate: true, retryBaseMs: 5 });
    const failure = await underCollections(async () => {
      // The headers must come before the deadline: on a busy machine a short one may pass first, so it doubles until they do.
      for (let timeoutMs = 500; ; timeoutMs *= 2) {
        const response = await client.stream(`${origin}/stalls`, { timeoutMs, retries: 0 }).catch((error: unknown) => {
          if (error instanceof GleanerError && error.code === 'UPSTREAM_TIMEOUT') return undefined;
          throw error;
        });
        if (!response) continue;
        expect(response.status).toBe(200);
        return new Promise<unknown>((resolve) => {
          response.body.on('error', resolve);
          response.body.resume();
        });
      }
    });
    expect(failure).toBeInstanceOf(Error);
    await client.close();
  });
});
