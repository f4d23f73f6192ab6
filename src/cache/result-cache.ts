// A small result cache: in-process LRU, or Redis shared by every process when REDIS_URL is set (with
// an in-process copy of the answers read lately).
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

/**
 * Answers shared by every process through Redis, stored with the time they expire. Each process also
 * keeps the ones it read or wrote lately (up to `nearEntries`), each until its Redis entry expires:
 * a hot answer is then served with no round trip and no parse, as the same object on every hit (so
 * its JSON is written once, http/answer-body.ts). An entry never changes once stored (a key is only
 * ever written again with an answer as true as the first), so such a copy is never stale.
 */
export class RedisCache implements ResultCache {
  /** The copies: an in-process cache of its own, which keeps nothing when `nearEntries` is 0. */
  private readonly near: MemoryCache;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    nearEntries = 0,
  ) {
    this.near = new MemoryCache(nearEntries);
  }

  async get<T>(key: string): Promise<T | undefined> {
    const near = await this.near.get<T>(key);
    if (near !== undefined) return near;
    const raw = await this.redis.get(this.prefix + key);
    if (raw === null) return undefined;
    const [expiresAt, value] = JSON.parse(raw) as [number, T];
    const left = expiresAt - Date.now();
    if (left <= 0) return undefined;
    await this.near.set(key, value, left);
    return value;
  }

  async set<T>(key: string, value: T, ttlMs: number): Promise<void> {
    if (ttlMs <= 0) return;
    await this.redis.set(this.prefix + key, JSON.stringify([Date.now() + ttlMs, value]), 'PX', ttlMs);
    await this.near.set(key, value, ttlMs);
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
