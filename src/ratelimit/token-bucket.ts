// Token buckets keyed by API-key id (or client IP for auth routes): `rate` tokens per second refill
// a bucket of `burst`. In memory for one process, in Redis (one atomic script) across processes.
import type { Redis, Result } from 'ioredis';

export interface BucketPolicy {
  /** Tokens added per second. */
  rate: number;
  /** Bucket size: the most requests allowed at once. */
  burst: number;
}

export interface BucketDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Milliseconds until one token is available (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

export interface RateLimiter {
  /** The decision at once where the buckets live in this process; a promise where they live in Redis. */
  take(key: string): BucketDecision | Promise<BucketDecision>;
  readonly policy: BucketPolicy;
}

function decide(tokens: number, allowed: boolean, p: BucketPolicy): BucketDecision {
  return {
    allowed,
    remaining: Math.floor(tokens),
    retryAfterMs: allowed ? 0 : Math.ceil(((1 - tokens) / p.rate) * 1000),
    resetMs: Math.ceil(((p.burst - tokens) / p.rate) * 1000),
  };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(readonly policy: BucketPolicy) {}

  take(key: string): BucketDecision {
    const now = performance.now();
    const b = this.buckets.get(key) ?? { tokens: this.policy.burst, at: now };
    const tokens = Math.min(this.policy.burst, b.tokens + ((now - b.at) / 1000) * this.policy.rate);
    const allowed = tokens >= 1;
    const left = allowed ? tokens - 1 : tokens;
    this.buckets.set(key, { tokens: left, at: now });
    if (this.buckets.size > 100_000) this.sweep(now);
    return decide(left, allowed, this.policy);
  }

  /** Full buckets carry no information; dropping them bounds memory. */
  private sweep(now: number) {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.policy.rate >= this.policy.burst) this.buckets.delete(k);
    }
  }
}

// Redis's own clock is used so that every process sees the same time.
const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local data = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(data[1]) or burst
local at = tonumber(data[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    readonly policy: BucketPolicy,
    private readonly prefix: string,
  ) {
    if (!redis.takeToken) redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  }

  async take(key: string): Promise<BucketDecision> {
    const [allowed, tokens] = (await this.redis.takeToken(
      `${this.prefix}${key}`,
      this.policy.rate,
      this.policy.burst,
    )) as [number, string];
    return decide(Number(tokens), allowed === 1, this.policy);
  }
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    takeToken(key: string, rate: number, burst: number): Result<[number, string], Context>;
  }
}
