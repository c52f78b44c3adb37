/**
 * The one store: Keyv over SQLite in the data directory by default, or another Keyv engine
 * (Redis) named by GLEANER_STORE_URL when several processes share state.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import Keyv from 'keyv';
import KeyvSqlite from '@keyv/sqlite';
import { KeyedMutex } from './mutex.js';

export type StoreKind = 'sqlite' | 'redis';

/** The part of a Redis client the cross-process lock needs. */
interface RedisLockClient {
  set(key: string, value: string, options: { NX: true; PX: number }): Promise<string | null>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

const RELEASE_SCRIPT = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export class Store {
  private readonly mutex = new KeyedMutex();

  constructor(
    private readonly keyv: Keyv,
    readonly kind: StoreKind,
    readonly location: string,
    private readonly redis?: RedisLockClient,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.keyv.get<T>(key)) ?? undefined;
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    await this.keyv.set(key, value, ttlMs);
  }

  async delete(key: string): Promise<void> {
    await this.keyv.delete(key);
  }

  /**
   * Atomic read-modify-write of one key: no other update of that key, in this process or (on Redis)
   * in any process sharing the store, runs between the read and the write. `change` returns the new
   * value (undefined deletes) and a result for the caller; throwing aborts without writing.
   */
  async update<T, R>(key: string, change: (current: T | undefined) => { value: T | undefined; result: R } | Promise<{ value: T | undefined; result: R }>): Promise<R> {
    return this.mutex.run(key, () =>
      this.withCrossProcessLock(key, async () => {
        const { value, result } = await change(await this.get<T>(key));
        if (value === undefined) await this.delete(key);
        else await this.set(key, value);
        return result;
      }),
    );
  }

  async close(): Promise<void> {
    await this.keyv.disconnect();
  }

  private async withCrossProcessLock<R>(key: string, work: () => Promise<R>): Promise<R> {
    if (!this.redis) return work();
    const lockKey = `gleaner:lock:${key}`;
    const token = randomUUID();
    for (let attempt = 0; ; attempt++) {
      if ((await this.redis.set(lockKey, token, { NX: true, PX: 10_000 })) === 'OK') break;
      if (attempt > 2_000) throw new Error(`store lock on ${key} not acquired`);
      await delay(Math.min(2 + attempt, 25));
    }
    try {
      return await work();
    } finally {
      await this.redis.eval(RELEASE_SCRIPT, { keys: [lockKey], arguments: [token] });
    }
  }
}

export async function openStore(options: { dataDir: string; storeUrl?: string }): Promise<Store> {
  if (options.storeUrl && /^rediss?:/.test(options.storeUrl)) {
    const { default: KeyvRedis, createClient } = await import('@keyv/redis');
    const client = createClient({ url: options.storeUrl });
    await client.connect();
    const keyv = new Keyv({ store: new KeyvRedis(client as never), namespace: 'gleaner', useKeyPrefix: false });
    return new Store(keyv, 'redis', options.storeUrl, client as unknown as RedisLockClient);
  }
  if (options.storeUrl && !/^sqlite:/.test(options.storeUrl)) {
    throw new Error(`GLEANER_STORE_URL: unsupported store "${options.storeUrl}" (use sqlite://<file> or redis://host:port)`);
  }
  const file = options.storeUrl ? options.storeUrl.replace(/^sqlite:\/\//, '') : path.join(options.dataDir, 'gleaner.sqlite');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new KeyvSqlite({ uri: `sqlite://${file}`, busyTimeout: 10_000 });
  const keyv = new Keyv({ store: sqlite, namespace: 'gleaner' });
  // Surface the first connection error now rather than on the first request.
  await keyv.get('gleaner:ping');
  return new Store(keyv, 'sqlite', file);
}
