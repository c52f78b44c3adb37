/**
 * The loopback world the platform tests run in: a recorded-reply and media server standing in for
 * every platform and CDN host (through GLEANER_UPSTREAM_OVERRIDES), a transcription server, generated
 * media, and a Gleaner server pointed at them.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestServer, type TestServer } from './server.js';
import { generateMedia, startMediaServer, startSttServer, type GeneratedMedia, type MediaServer, type SttServer } from './media.js';

export interface PlatformHarness {
  media: GeneratedMedia;
  upstream: MediaServer;
  stt: SttServer;
  server: TestServer;
  /** Credits left on a key. */
  credits: (key: string) => Promise<number>;
  get: (pathAndQuery: string, key: string) => ReturnType<TestServer['request']>;
  close: () => Promise<void>;
}

export interface PlatformHarnessOptions {
  /** The platform and CDN hosts the media server stands in for. */
  hosts: string[];
  /** GLEANER_STT_CHUNK_SECONDS of the server. */
  chunkSeconds: number;
  env?: Record<string, string>;
}

/**
 * The harness of a test file or describe block: started before its tests, closed after them, the
 * transcription server reset before each test. Its members are read once it has started.
 */
export function usePlatformHarness(options: PlatformHarnessOptions): PlatformHarness {
  let started: PlatformHarness | undefined;
  beforeAll(async () => {
    started = await startPlatformHarness(options);
  }, 60_000);
  afterAll(() => started?.close());
  beforeEach(() => started?.stt.reset());
  const current = (): PlatformHarness => {
    if (!started) throw new Error('the platform harness is read before its beforeAll ran');
    return started;
  };
  return {
    get media() {
      return current().media;
    },
    get upstream() {
      return current().upstream;
    },
    get stt() {
      return current().stt;
    },
    get server() {
      return current().server;
    },
    credits: (key) => current().credits(key),
    get: (pathAndQuery, key) => current().get(pathAndQuery, key),
    close: () => current().close(),
  };
}

export async function startPlatformHarness(options: PlatformHarnessOptions): Promise<PlatformHarness> {
  const media = generateMedia();
  const [upstream, stt] = await Promise.all([startMediaServer(), startSttServer()]);
  const server = await startTestServer({
    env: {
      GLEANER_STT_URL: stt.url,
      GLEANER_STT_CHUNK_SECONDS: String(options.chunkSeconds),
      GLEANER_UPSTREAM_OVERRIDES: options.hosts.map((h) => `${h}=${upstream.origin}`).join(','),
      ...options.env,
    },
  });
  return {
    media,
    upstream,
    stt,
    server,
    credits: async (key) => (await server.request('GET', '/v1/me', { apiKey: key })).body.credits as number,
    get: (pathAndQuery, key) => server.request('GET', pathAndQuery, { apiKey: key }),
    async close() {
      await server.close();
      await Promise.all([upstream.close(), stt.close()]);
      fs.rmSync(media.dir, { recursive: true, force: true });
    },
  };
}
