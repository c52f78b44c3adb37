/** /healthz and /metrics: what an operator's probes and Prometheus read. Neither needs a key. */
import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { App } from '../app.js';
import { registry } from '../observability/metrics.js';
import { SERVER_IDENTITY } from './identity.js';
import { sendJson } from './reply.js';
import { redactText } from '../redact.js';

const STORE_PROBE_MS = 3_000;
/**
 * The store is probed at most once this often, whatever the number of probes: concurrent /healthz
 * share one probe (they once overwrote each other's key and failed a healthy store), and a flood of
 * them costs the store one write and one read a second.
 */
const PROBE_INTERVAL_MS = 1_000;
/** One probe key per process, so servers sharing a store never read each other's probe. */
const PROBE_KEY = `healthz:probe:${randomUUID()}`;

interface ProbeResult {
  /** Why the store failed the probe; undefined when it passed. */
  error?: string;
  at: number;
}

/** The last probe and the one under way, per app (tests run several apps in one process). */
const probes = new WeakMap<App, { last?: ProbeResult; running?: Promise<ProbeResult> }>();

/**
 * 200 when the process is up and the store answers; 503 when it does not. The probe writes a value
 * and reads it back: a store that swallows its errors (answering "nothing" to every read) fails it too.
 */
export async function serveHealth(app: App, res: ServerResponse): Promise<void> {
  const { error: storeError } = await storeHealth(app);
  const body = {
    status: storeError ? 'unavailable' : 'ok',
    version: SERVER_IDENTITY.version,
    uptimeSeconds: Math.round(process.uptime()),
    store: storeError ? { status: 'unreachable', error: storeError } : { status: 'ok' },
  };
  res.setHeader('Cache-Control', 'no-store');
  sendJson(res, storeError ? 503 : 200, JSON.stringify(body));
}

/** The last result when it is recent, else the probe under way, else a new one (single flight). */
function storeHealth(app: App): Promise<ProbeResult> {
  let state = probes.get(app);
  if (!state) probes.set(app, (state = {}));
  if (state.last && Date.now() - state.last.at < PROBE_INTERVAL_MS) return Promise.resolve(state.last);
  if (!state.running) {
    const current = state;
    current.running = probeStore(app).then((result) => {
      current.last = result;
      current.running = undefined;
      return result;
    });
  }
  return state.running!;
}

async function probeStore(app: App): Promise<ProbeResult> {
  const store = app.services.store;
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
    return { at: Date.now() };
  } catch (error) {
    app.log.error({ store: store.location, err: error }, 'health check: the store is not reachable');
    // The reply needs no key: it says what failed, never the store's credentials.
    return { error: redactText((error as Error).message), at: Date.now() };
  } finally {
    clearTimeout(timer);
  }
}

export async function serveMetrics(res: ServerResponse): Promise<void> {
  const text = await registry.metrics();
  res.statusCode = 200;
  res.setHeader('Content-Type', registry.contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}
