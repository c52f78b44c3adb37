/**
 * The key-value store, the credit ledger and the shared rate buckets on Redis, for several processes
 * (or machines) on one service. Credits and buckets are one Lua script per step, so Redis runs each
 * whole and alone: no lock, no retry. Commands time out and nothing is queued while Redis is away,
 * so an outage fails requests at once instead of replaying them later (redis-connection.ts: the same
 * ioredis client and connection rules as BullMQ's).
 */
import { Redis } from 'ioredis';
import { allowanceOf, type CreditLedger, type HeldReservation, type ReserveRequest, type SettleRequest } from './ledger.js';
import { storeRedisOptions } from './redis-connection.js';
import { redactUrl } from '../redact.js';

export { REDIS_COMMAND_TIMEOUT_MS } from './redis-connection.js';

const PREFIX = 'gleaner:';
const usageKey = (account: string) => `${PREFIX}usage:${account}`;
const reservationKey = (id: string) => `${PREFIX}reservation:${id}`;
const RESERVATIONS = `${PREFIX}reservations`;

// KEYS: usage, reservation, index. ARGV: period, amount, allowance (-1 unlimited), account, owner, id.
const RESERVE = `
local used = 0
if redis.call('HGET', KEYS[1], 'period') == ARGV[1] then used = tonumber(redis.call('HGET', KEYS[1], 'used')) end
local amount = tonumber(ARGV[2])
local allowance = tonumber(ARGV[3])
if allowance >= 0 and used + amount > allowance then return {0, used} end
used = used + amount
redis.call('HSET', KEYS[1], 'period', ARGV[1], 'used', used)
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], 'amount', amount)
else
  redis.call('HSET', KEYS[2], 'account', ARGV[4], 'period', ARGV[1], 'amount', amount, 'owner', ARGV[5])
  redis.call('SADD', KEYS[3], ARGV[6])
end
return {1, used}`;

// KEYS: usage, reservation, index. ARGV: period, actual, allowance (-1 unlimited), id.
const SETTLE = `
local used = 0
if redis.call('HGET', KEYS[1], 'period') == ARGV[1] then used = tonumber(redis.call('HGET', KEYS[1], 'used')) end
if redis.call('EXISTS', KEYS[2]) == 0 then return {0, used, 0} end
local amount = tonumber(redis.call('HGET', KEYS[2], 'amount'))
local period = redis.call('HGET', KEYS[2], 'period')
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[3], ARGV[4])
if period ~= ARGV[1] then return {amount, used, 1} end
local delta = tonumber(ARGV[2]) - amount
local allowance = tonumber(ARGV[3])
if delta > 0 and allowance >= 0 then delta = math.min(delta, math.max(0, allowance - used)) end
used = math.max(0, used + delta)
redis.call('HSET', KEYS[1], 'period', ARGV[1], 'used', used)
return {amount + delta, used, 1}`;

// A token bucket refilled continuously: tokens = min(burst, tokens + elapsed * rate), time from Redis
// itself so every process sees one clock. KEYS: bucket. ARGV: tokens per ms, burst, take (1 or 0).
// Returns {allowed, tokens left * 1000, ms until full}.
const TAKE_TOKEN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or burst)
local last = tonumber(redis.call('HGET', KEYS[1], 'at') or now)
tokens = math.min(burst, tokens + math.max(0, now - last) * rate)
local allowed = 0
if ARGV[3] == '1' and tokens >= 1 - 1e-9 then tokens = math.max(0, tokens - 1); allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
local full = math.ceil((burst - tokens) / rate)
redis.call('PEXPIRE', KEYS[1], full + 1000)
return {allowed, math.floor(tokens * 1000), full}`;

// Deletes a key only if it still holds the caller's lock token.
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

// HSET XX is not a thing for hashes: a script keeps "only if it still exists" atomic.
const ADOPT = "if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'owner', ARGV[1]) return 1 else return 0 end";

/**
 * The scripts, each defined once on the client: ioredis sends EVALSHA (the script's hash, not its
 * text) and falls back to EVAL once if this Redis has not seen it yet (NOSCRIPT, e.g. after a restart).
 */
const SCRIPTS = {
  gleanerReserve: { numberOfKeys: 3, lua: RESERVE },
  gleanerSettle: { numberOfKeys: 3, lua: SETTLE },
  gleanerTakeToken: { numberOfKeys: 1, lua: TAKE_TOKEN },
  gleanerReleaseLock: { numberOfKeys: 1, lua: RELEASE_LOCK },
  gleanerAdopt: { numberOfKeys: 1, lua: ADOPT },
} as const;
type ScriptName = keyof typeof SCRIPTS;

/** The ioredis client with the scripts above defined on it. */
class Client extends Redis {
  constructor(url: string) {
    super(storeRedisOptions(url));
    for (const [name, definition] of Object.entries(SCRIPTS)) this.defineCommand(name, definition);
  }

  runScript(name: ScriptName, keys: string[], args: string[]): Promise<unknown> {
    return (this as unknown as Record<ScriptName, (...values: string[]) => Promise<unknown>>)[name](...keys, ...args);
  }
}

export class RedisStore {
  readonly ledger: CreditLedger;

  private constructor(
    readonly client: Client,
    /** The URL without its password. */
    readonly location: string,
  ) {
    this.ledger = new RedisLedger(client);
  }

  /** Connects, retrying until Redis answers (each failed attempt goes to `onError`). */
  static async open(url: string, onError: (error: Error) => void): Promise<RedisStore> {
    const client = new Client(url);
    client.on('error', onError);
    if (client.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        client.once('ready', resolve);
        client.once('end', () => reject(new Error('the connection to Redis ended before it was ready')));
      });
    }
    return new RedisStore(client, redactUrl(url));
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.client.get(PREFIX + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs) await this.client.set(PREFIX + key, value, 'PX', Math.max(1, Math.round(ttlMs)));
    else await this.client.set(PREFIX + key, value);
  }

  async getThrough(key: string, next: (value: string) => string): Promise<string | undefined> {
    const first = await this.client.get(PREFIX + key);
    return first === null ? undefined : ((await this.client.get(PREFIX + next(first))) ?? undefined);
  }

  async delete(key: string): Promise<void> {
    await this.client.del(PREFIX + key);
  }

  /** Keeps the time left on a key when an update rewrites it. */
  async ttl(key: string): Promise<number | undefined> {
    const ms = await this.client.pttl(PREFIX + key);
    return ms > 0 ? ms : undefined;
  }

  /** A short lock for the generic read-modify-write of a JSON value (jobs, webhooks); credits do not use it. */
  async lock(key: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(`${PREFIX}lock:${key}`, token, 'PX', ttlMs, 'NX')) === 'OK';
  }

  async unlock(key: string, token: string): Promise<void> {
    await this.client.runScript('gleanerReleaseLock', [`${PREFIX}lock:${key}`], [token]);
  }

  /** One step of the shared token bucket of `bucket`; `take` false only reads it. */
  async takeToken(bucket: string, perMinute: number, burst: number, take: boolean): Promise<{ allowed: boolean; tokens: number; msUntilFull: number }> {
    const [allowed, milliTokens, full] = (await this.client.runScript('gleanerTakeToken', [`${PREFIX}rate:${bucket}`], [String(perMinute / 60_000), String(burst), take ? '1' : '0'])) as number[];
    return { allowed: allowed === 1, tokens: milliTokens! / 1000, msUntilFull: full! };
  }

  async close(): Promise<void> {
    try {
      await this.client.quit();
    } catch {
      // Redis away: nothing to say goodbye to; stop reconnecting.
    }
    this.client.disconnect();
  }
}

class RedisLedger implements CreditLedger {
  constructor(private readonly client: Client) {}

  // The record is read first: a plan change between that read and the script is as if it came after.
  async reserve(request: ReserveRequest): Promise<{ ok: boolean; used: number; record?: string }> {
    const record = (await this.client.get(PREFIX + request.recordKey)) ?? undefined;
    if (record === undefined) return { ok: false, used: 0 };
    const [ok, used] = (await this.client.runScript(
      'gleanerReserve',
      [usageKey(request.account), reservationKey(request.reservationId), RESERVATIONS],
      [request.period, String(request.amount), String(allowanceOf(record, request.planCredits) ?? -1), request.account, request.owner, request.reservationId],
    )) as number[];
    return { ok: ok === 1, used: used!, record };
  }

  async settle(request: SettleRequest): Promise<{ charged: number; used: number; found: boolean; record?: string }> {
    const record = (await this.client.get(PREFIX + request.recordKey)) ?? undefined;
    const allowance = record === undefined ? 0 : allowanceOf(record, request.planCredits);
    const [charged, used, found] = (await this.client.runScript(
      'gleanerSettle',
      [usageKey(request.account), reservationKey(request.reservationId), RESERVATIONS],
      [request.period, String(request.actual), String(allowance ?? -1), request.reservationId],
    )) as number[];
    return { charged: charged!, used: used!, found: found === 1, record };
  }

  async keep(reservationId: string): Promise<void> {
    await this.client.multi().del(reservationKey(reservationId)).srem(RESERVATIONS, reservationId).exec();
  }

  async usage(ref: { account: string; recordKey: string }, period: string): Promise<{ used: number; record?: string }> {
    const [[stored, used], record] = await Promise.all([this.client.hmget(usageKey(ref.account), 'period', 'used'), this.client.get(PREFIX + ref.recordKey)]);
    return { used: stored === period ? Number(used) : 0, record: record ?? undefined };
  }

  async reservations(): Promise<HeldReservation[]> {
    const ids = await this.client.smembers(RESERVATIONS);
    const held: HeldReservation[] = [];
    for (const id of ids) {
      const [account, owner, amount] = await this.client.hmget(reservationKey(id), 'account', 'owner', 'amount');
      if (account && owner) held.push({ id, account, owner, amount: Number(amount) });
    }
    return held;
  }

  async adopt(reservationId: string, owner: string): Promise<boolean> {
    return (await this.client.runScript('gleanerAdopt', [reservationKey(reservationId)], [owner])) === 1;
  }
}
