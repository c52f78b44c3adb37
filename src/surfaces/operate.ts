/** /healthz and /metrics: what an operator's probes and Prometheus read. Neither needs a key. */
import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { App } from '../app.js';
import { registry } from '../observability/metrics.js';
import { SERVER_IDENTITY } from './identity.js';
import { sendJson } from './reply.js';

const STORE_PROBE_MS = 3_000;
/** One probe key per process, so servers sharing a store never read each other's probe. */
const PROBE_KEY = `healthz:probe:${randomUUID()}`;

/**
 * 200 when the process is up and the store answers; 503 when it does not. The probe writes a value
 * and reads it back: a store that swallows its errors (answering "nothing" to every read) fails it too.
 */
export async function serveHealth(app: App, res: ServerResponse): Promise<void> {
  const store = app.services.store;
  let storeError: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const token = randomUUID();
    const probe = async () => {
      await store.set(PROBE_KEY, token, 60_000);
      if ((await store.get<string>(PROBE_KEY)) !== token) throw new Error('a value written to the store could not be read back');
    };
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${STORE_PROBE_MS / 1000} s`)), STORE_PROBE_MS);
      }),
    ]);
  } catch (error) {
    storeError = (error as Error).message;
    app.log.error({ store: store.location, err: error }, 'health check: the store is not reachable');
  } finally {
    clearTimeout(timer);
  }
  const body = {
    status: storeError ? 'unavailable' : 'ok',
    version: SERVER_IDENTITY.version,
    uptimeSeconds: Math.round(process.uptime()),
    store: storeError ? { status: 'unreachable', error: storeError } : { status: 'ok' },
  };
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, storeError ? 503 : 200, JSON.stringify(body));
}

export async function serveMetrics(res: ServerResponse): Promise<void> {
  const text = await registry.metrics();
  res.statusCode = 200;
  res.setHeader('Content-Type', registry.contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}
