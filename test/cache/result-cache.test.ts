import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { cached, MemoryCache, RedisCache, type ResultCache } from '../../src/cache/result-cache.js';
import { randomBase62 } from '../../src/ids.js';

const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : null;
const prefix = `unfurl-test-${randomBase62(8)}:`;

afterAll(async () => {
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
});

const caches: Array<[string, () => ResultCache]> = [['memory', () => new MemoryCache(100)]];
if (redis) {
  caches.push(['redis', () => new RedisCache(redis, prefix)]);
  caches.push(['redis with in-process copies', () => new RedisCache(redis, prefix, 100)]);
}

describe.each(caches)('%s cache', (_name, make) => {
  it('stores for the TTL, then forgets', async () => {
    const cache = make();
    await cache.set('k1', { a: 1 }, 150);
    expect(await cache.get('k1')).toEqual({ a: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await cache.get('k1')).toBeUndefined();
  });

  it('cached(): one load for concurrent identical calls, none while fresh, every time with TTL 0', async () => {
    const cache = make();
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 50));
      return { n: loads };
    };
    const key = `k2-${randomBase62(6)}`;
    const answers = await Promise.all(Array.from({ length: 10 }, () => cached(cache, key, 10_000, load)));
    expect(loads).toBe(1);
    expect(answers.every((a) => a.n === 1)).toBe(true);
    expect(await cached(cache, key, 10_000, load)).toEqual({ n: 1 });
    expect(loads).toBe(1);
    const off = `k3-${randomBase62(6)}`;
    await cached(cache, off, 0, load);
    await cached(cache, off, 0, load);
    expect(loads).toBe(3);
  });

  it('cached(): a failed load is not stored', async () => {
    const cache = make();
    const key = `k4-${randomBase62(6)}`;
    await expect(cached(cache, key, 10_000, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(await cached(cache, key, 10_000, async () => 'ok')).toBe('ok');
  });
});

describe.runIf(redis)('redis cache with in-process copies', () => {
  it('serves a process its own answers as the same object, and other processes from Redis', async () => {
    const writer = new RedisCache(redis!, prefix, 100);
    const reader = new RedisCache(redis!, prefix, 100);
    const key = `k5-${randomBase62(6)}`;
    const answer = { text: 'hello', n: 1 };
    await writer.set(key, answer, 10_000);
    expect(await writer.get(key)).toBe(answer);
    const read = await reader.get(key);
    expect(read).toEqual(answer);
    expect(read).not.toBe(answer);
    // From then on the reader answers from its copy: the same object, no round trip.
    expect(await reader.get(key)).toBe(read);
  });

  it("keeps a copy no longer than the Redis entry lives, counted from the writer's TTL", async () => {
    const writer = new RedisCache(redis!, prefix, 100);
    const key = `k6-${randomBase62(6)}`;
    await writer.set(key, { a: 1 }, 400);
    await new Promise((r) => setTimeout(r, 200));
    // A reader that first sees the entry 200 ms in keeps it for what is left (~200 ms), not 400 ms.
    const reader = new RedisCache(redis!, prefix, 100);
    expect(await reader.get(key)).toEqual({ a: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await reader.get(key)).toBeUndefined();
    expect(await writer.get(key)).toBeUndefined();
  });
});
