// A small result cache: in-process LRU, or Redis shared by every process when REDIS_URL is set.
// `cached()` also makes concurrent identical loads in one process share one upstream call.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

export interface ResultCache {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlMs: number): Promise<void>;
}

export class MemoryCache implements ResultCache {
  private readonly lru: LRUCache<string, { value: unknown }> | null;

  constructor(maxEntries: number) {
    this.lru = maxEntries > 0 ? new LRUCache({ max: maxEntries }) : null;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.lru?.get(key)?.value as T | undefined;
  }

  async set<T>(key: string, value: T, ttlMs: number): Promise<void> {
    if (ttlMs > 0) this.lru?.set(key, { value }, { ttl: ttlMs });
  }
}

export class RedisCache implements ResultCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.redis.get(this.prefix + key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }

  async set<T>(key: string, value: T, ttlMs: number): Promise<void> {
    if (ttlMs > 0) await this.redis.set(this.prefix + key, JSON.stringify(value), 'PX', ttlMs);
  }
}

const inFlight = new Map<string, Promise<unknown>>();

/** The cached value, or `load()`'s (stored for ttlMs; 0 = not stored, still shared while in flight). */
export async function cached<T>(
  cache: ResultCache,
  key: string,
  ttlMs: number,
  load: () => Promise<T>,
): Promise<T> {
  if (ttlMs > 0) {
    const hit = await cache.get<T>(key);
    if (hit !== undefined) return hit;
  }
  const pending = inFlight.get(key);
  if (pending) return pending as Promise<T>;
  const promise = (async () => {
    try {
      const value = await load();
      await cache.set(key, value, ttlMs);
      return value;
    } finally {
      inFlight.delete(key);
    }
  })();
  inFlight.set(key, promise);
  return promise;
}
