/**
 * Egress: which exit a request to the outside world leaves by. Each platform may have its own
 * proxy pool (GLEANER_PROXY_URL_YOUTUBE, ...), else the common GLEANER_PROXY_URL, else none (direct).
 *
 * A platform that blocks an exit (bot check, persistent 429) keeps blocking it: retrying from the
 * same address only extends the block. So adapters that recognise a block call `rotate(platform)`,
 * which drops the blocked exit's connections and moves the pool to its next proxy; the next request
 * opens a fresh connection there. An exit that cannot be reached at all (refused, timed out, its
 * name unknown) is marked down for a while (`markDown`) and skipped until then, so a dead proxy in a
 * pool costs one failed connect, not every request. Proxy URLs may carry credentials: they never
 * appear in messages (a message says "proxy 2 of 3").
 */
import { Pool, ProxyAgent } from 'undici';
import { guardedConnector } from './h1-guard.js';

export const PLATFORMS = ['youtube', 'tiktok', 'instagram', 'x', 'facebook'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** The hosts (and their subdomains) each platform's requests go to: pages, APIs and media CDNs. */
export const PLATFORM_HOSTS: Record<Platform, string[]> = {
  youtube: ['youtube.com', 'youtu.be', 'youtube-nocookie.com', 'youtubei.googleapis.com', 'googlevideo.com', 'ytimg.com'],
  tiktok: ['tiktok.com', 'tiktokv.com', 'tiktokcdn.com', 'tiktokcdn-us.com', 'ttwstatic.com'],
  instagram: ['instagram.com', 'cdninstagram.com'],
  x: ['x.com', 'twitter.com', 'twimg.com'],
  facebook: ['facebook.com', 'fb.watch', 'fbcdn.net'],
};

/** The platform a host belongs to, if any. */
export function platformOfHost(hostname: string): Platform | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return PLATFORMS.find((p) => PLATFORM_HOSTS[p].some((d) => host === d || host.endsWith(`.${d}`)));
}

/** A comma-separated proxy list (one proxy, or a pool). */
export function parseProxyList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

export interface EgressOptions {
  /** GLEANER_PROXY_URL (one or more): the exit of every platform without its own pool, and of other sites. */
  proxies?: string[];
  /** GLEANER_PROXY_URL_<PLATFORM>: overrides `proxies` for that platform's hosts. */
  platformProxies?: Partial<Record<Platform, string[]>>;
  connectTimeoutMs?: number;
  /** How long an exit that could not be reached is skipped (60 s). */
  downForMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

interface ExitPool {
  proxies: string[];
  index: number;
  /** One agent per pool slot, created on first use and dropped when the slot is rotated away from. */
  agents: Map<number, ProxyAgent>;
  /** Slots that could not be reached, and until when they are skipped. */
  downUntil: Map<number, number>;
}

export interface Exit {
  agent: ProxyAgent;
  /** The proxy URL (with any credentials): for the caller's use, never for a message. */
  proxy: string;
  /** "proxy 2 of 3": what a message may say about it. */
  label: string;
  /** How many proxies its pool has. */
  poolSize: number;
  /** Which pool and slot it is (for markDown). */
  pool: string;
  slot: number;
}

/** A ProxyAgent whose tunnels carry the HTTP/1 guard (h1-guard.ts) like direct connections do. */
function proxyAgent(uri: string, connectTimeoutMs: number): ProxyAgent {
  return new ProxyAgent({
    uri,
    connectTimeout: connectTimeoutMs,
    factory: (origin, options) => {
      const poolOptions = options as Pool.Options;
      const connect = typeof poolOptions.connect === 'function' ? guardedConnector(poolOptions.connect) : poolOptions.connect;
      return new Pool(origin, { ...poolOptions, connect });
    },
  });
}

export class Egress {
  private readonly pools = new Map<string, ExitPool>();

  constructor(private readonly options: EgressOptions = {}) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private isDown(pool: ExitPool, slot: number): boolean {
    const until = pool.downUntil.get(slot);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    pool.downUntil.delete(slot);
    return false;
  }

  /** Moves the pool to its next slot that is not down (or simply the next one when all are). */
  private advance(pool: ExitPool): void {
    for (let step = 1; step <= pool.proxies.length; step++) {
      const slot = (pool.index + step) % pool.proxies.length;
      if (!this.isDown(pool, slot)) {
        pool.index = slot;
        return;
      }
    }
    pool.index = (pool.index + 1) % pool.proxies.length;
  }

  private poolKey(platform: Platform | undefined): string | undefined {
    if (platform && this.options.platformProxies?.[platform]?.length) return platform;
    // A platform without its own list still rotates on its own, through the common list.
    if (this.options.proxies?.length) return platform ?? 'default';
    return undefined;
  }

  private pool(platform: Platform | undefined): ExitPool | undefined {
    const key = this.poolKey(platform);
    if (!key) return undefined;
    let pool = this.pools.get(key);
    if (!pool) {
      const proxies = (platform && this.options.platformProxies?.[platform]?.length ? this.options.platformProxies[platform] : this.options.proxies) ?? [];
      pool = { proxies, index: 0, agents: new Map(), downUntil: new Map() };
      this.pools.set(key, pool);
    }
    return pool;
  }

  /** The exit for a request to `url` (matched on its host), or undefined to go direct. */
  exitFor(url: URL): Exit | undefined {
    return this.exitOf(platformOfHost(url.hostname));
  }

  /** The exit for a request to a host of `platform` (undefined: any other site), or undefined to go direct. */
  exitOf(platform: Platform | undefined): Exit | undefined {
    const pool = this.pool(platform);
    if (!pool) return undefined;
    if (this.isDown(pool, pool.index)) this.advance(pool);
    let agent = pool.agents.get(pool.index);
    if (!agent) {
      agent = proxyAgent(pool.proxies[pool.index], this.options.connectTimeoutMs ?? 10_000);
      pool.agents.set(pool.index, agent);
    }
    return { agent, proxy: pool.proxies[pool.index], label: `proxy ${pool.index + 1} of ${pool.proxies.length}`, poolSize: pool.proxies.length, pool: this.poolKey(platform)!, slot: pool.index };
  }

  /**
   * `exit` could not be reached: skip it for a while and move its pool on. True when the pool has
   * another exit that is not down, i.e. when the request is worth making again at once.
   */
  markDown(exit: Exit): boolean {
    const pool = this.pools.get(exit.pool);
    if (!pool) return false;
    pool.downUntil.set(exit.slot, this.now() + (this.options.downForMs ?? 60_000));
    const agent = pool.agents.get(exit.slot);
    pool.agents.delete(exit.slot);
    agent?.close().catch(() => undefined);
    if (pool.index === exit.slot) this.advance(pool);
    return !this.isDown(pool, pool.index);
  }

  /** How many exits a platform's requests (undefined: other sites') can take (0: direct only). */
  poolSize(platform: Platform | undefined): number {
    return this.pool(platform)?.proxies.length ?? 0;
  }

  /** True when the platform (undefined: other sites) has a proxy (its own or the common one). */
  proxied(platform: Platform | undefined): boolean {
    return this.poolSize(platform) > 0;
  }

  /**
   * The current exit of `platform` was blocked: close its connections and move to the next proxy.
   * Returns false when there is no proxy to move to (direct egress). A pool of one gets a fresh
   * connection through the same proxy (a rotating-IP proxy gives a new address per connection).
   */
  rotate(platform: Platform): boolean {
    const pool = this.pool(platform);
    if (!pool) return false;
    const blocked = pool.agents.get(pool.index);
    pool.agents.delete(pool.index);
    blocked?.close().catch(() => undefined);
    this.advance(pool);
    return true;
  }

  /** The proxy a platform's requests use now (a PO-token provider mints for that exit). */
  currentProxy(platform: Platform): string | undefined {
    const pool = this.pool(platform);
    return pool ? pool.proxies[pool.index] : undefined;
  }

  async close(): Promise<void> {
    const agents = [...this.pools.values()].flatMap((pool) => [...pool.agents.values()]);
    this.pools.clear();
    await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)));
  }
}
