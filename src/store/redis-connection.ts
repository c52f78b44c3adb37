/**
 * The one way Gleaner connects to Redis: the store (redis-store.ts) and BullMQ (jobs/dispatch-bullmq.ts)
 * both use ioredis with options built here from GLEANER_STORE_URL, so one parser reads the address,
 * credentials, database and TLS, and one place holds the time-out, reconnection and offline-queue rules.
 *
 * Shared by both: a connection attempt gives up after REDIS_COMMAND_TIMEOUT_MS, and a lost connection
 * is retried for ever, 100 ms doubling to at most 2 s apart.
 *
 * The store, on top: no offline queue (a command sent while Redis is away fails at once, it is never
 * run later), a command unanswered after REDIS_COMMAND_TIMEOUT_MS fails, and a command in flight when
 * the connection drops fails with it rather than being sent again on reconnection. A request that
 * needed it answers STORE_UNAVAILABLE and nothing is charged.
 *
 * BullMQ, the exceptions it requires: its worker blocks on Redis for the next job (no command time-out
 * there) and needs `maxRetriesPerRequest: null`; its queue keeps the same rules, so a job whose record
 * the store has written is handed to the queue once Redis is back instead of being lost.
 *
 * The password is only ever in these options, never in a message: errors are the client's own
 * ("connect ECONNREFUSED 127.0.0.1:6379", "Command timed out") and the store is named by its
 * redacted URL (see src/redact.ts).
 */
import type { RedisOptions } from 'ioredis';

/** How long one Redis command (or a connection attempt) may take before what needed it fails. */
export const REDIS_COMMAND_TIMEOUT_MS = 10_000;

/** Where to connect and as whom: redis://[user:password@]host[:port][/db], rediss:// for TLS. */
export function redisAddress(url: string): RedisOptions {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.pathname.length > 1 ? { db: Number(parsed.pathname.slice(1)) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** ioredis options whose retry strategy is a function (BullMQ's types do not take ioredis's `null`). */
type Options = RedisOptions & { retryStrategy: (attempt: number) => number };

function shared(url: string): Options {
  return {
    ...redisAddress(url),
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
  };
}

/** The store's connection: fails fast while Redis is away and never replays a command later. */
export function storeRedisOptions(url: string): Options {
  return {
    ...shared(url),
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  };
}

/** BullMQ's connections (queue and worker): the shared rules, with the unlimited retries BullMQ requires. */
export function bullmqRedisOptions(url: string): Options {
  return { ...shared(url), maxRetriesPerRequest: null };
}
