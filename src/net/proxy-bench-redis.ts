// The proxy bench shared by every process through Redis, so that one worker's lesson (this exit is
// blocked by that platform) serves them all. Picking a proxy still reads only this process's board:
// no Redis round trip per upstream request. A change (a failure, a probe's success) is made on the
// board at once and written by one atomic script, which publishes the new state on a channel every
// process listens to; a probe claim is the one round trip a request waits for, and only when a bench
// has just ended. Messages arrive in the order Redis made the changes, so the last one heard is the
// state (the scripts' own replies, which may overtake them, are not used). Pub/sub does not replay
// what a reconnecting listener missed: the board is also re-read at start and every half minute.
// Clocks: `until` is the failing process's wall clock.
import { randomBytes } from 'node:crypto';
import type { Redis, Result } from 'ioredis';
import {
  afterFailure,
  type BenchBoard,
  type BenchEntry,
  type BenchPolicy,
  type BenchState,
  type FailureReport,
  PROBE_TTL_MS,
  type ProbeClaim,
  type ProxyBench,
} from './proxy-bench.js';

/** How often the board is re-read, for messages lost while the listener reconnected. */
const RESYNC_MS = 30_000;
/** Longest a request waits for a probe claim; past it (Redis away) it probes on this process's word. */
const CLAIM_WAIT_MS = 250;
/** An entry nobody wrote for a week goes (a proxy long gone from UNFURL_PROXY_URLS). */
const KEEP_MS = 7 * 86_400_000;

// KEYS[1]: the hash of states (its name is also the channel); KEYS[2]: the probe lock.
// A state is "failures,until,blocks,errors".
const COMMON = `
local function parse(raw)
  if not raw then return 0, 0, 0, 0 end
  local p = {}
  for x in string.gmatch(raw, '[^,]+') do p[#p + 1] = tonumber(x) end
  return p[1] or 0, p[2] or 0, p[3] or 0, p[4] or 0
end
local function save(f, u, b, e)
  local value = string.format('%.0f,%.0f,%.0f,%.0f', f, u, b, e)
  redis.call('HSET', KEYS[1], ARGV[1], value)
  redis.call('PEXPIRE', KEYS[1], ${KEEP_MS})
  redis.call('PUBLISH', KEYS[1], ARGV[1] .. '=' .. value)
  return value
end
local function unlock()
  if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
end
`;

// ARGV: field, token, now, base, max, retryAfter (-1: none), probe (1/0), outcome. Mirrors afterFailure.
const FAIL_SCRIPT = `${COMMON}
local f, u, b, e = parse(redis.call('HGET', KEYS[1], ARGV[1]))
local now, base, max, ra = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local probe = ARGV[7] == '1'
if ARGV[8] == 'blocked' then b = b + 1 else e = e + 1 end
local function capped(ms) return math.min(max, math.max(0, ms)) end
if f == 0 or probe then
  f = f + 1
  if ra >= 0 then u = now + capped(ra) else u = now + capped(base * 2 ^ (f - 1)) end
elseif ra >= 0 then
  u = math.max(u, now + capped(ra))
end
if probe then unlock() end
return save(f, u, b, e)
`;

// ARGV: field, token. The probe succeeded: healthy again.
const SUCCEED_SCRIPT = `${COMMON}
unlock()
local f, u, b, e = parse(redis.call('HGET', KEYS[1], ARGV[1]))
if f == 0 then return false end
return save(0, 0, b, e)
`;

// ARGV: field, token, ttl, now. Checks the shared state before locking: another process may have
// probed it back already, or failed its probe and benched it again.
const CLAIM_SCRIPT = `${COMMON}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local f, u = parse(raw)
if f == 0 then return {'healthy', raw or ''} end
if u > tonumber(ARGV[4]) then return {'benched', raw} end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return {'probe', raw} end
return {'busy', tostring(redis.call('PTTL', KEYS[2]))}
`;

const field = (index: number, host: string, platform: string) => `${index}|${host}|${platform}`;

function parseState(value: string): BenchState {
  const [failures = 0, until = 0, blocks = 0, errors = 0] = value.split(',').map(Number);
  return { failures, until, blocks, errors };
}

/** A field of the hash, if it names one of `hosts` at its index. */
function parseField(name: string, hosts: readonly string[]): { index: number; platform: string } | null {
  const [index, host, platform] = name.split('|');
  const i = Number(index);
  return platform && hosts[i] === host ? { index: i, platform } : null;
}

const hashKey = (prefix: string) => `${prefix}:proxy-bench`;

/** The shared states of these proxies (the admin command reads them without listening). */
export async function readSharedBench(
  redis: Redis,
  prefix: string,
  hosts: readonly string[],
): Promise<BenchEntry[]> {
  const all = await redis.hgetall(hashKey(prefix));
  const out: BenchEntry[] = [];
  for (const [name, value] of Object.entries(all)) {
    const at = parseField(name, hosts);
    if (at) out.push({ ...at, state: parseState(value) });
  }
  return out;
}

export class RedisBench implements ProxyBench {
  private readonly hash: string;
  private readonly token = randomBytes(8).toString('hex');
  private readonly listener: Redis;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    readonly board: BenchBoard,
    private readonly policy: BenchPolicy,
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly hosts: readonly string[],
  ) {
    this.hash = hashKey(prefix);
    if (!redis.proxyBenchFail) {
      redis.defineCommand('proxyBenchFail', { numberOfKeys: 2, lua: FAIL_SCRIPT });
      redis.defineCommand('proxyBenchSucceed', { numberOfKeys: 2, lua: SUCCEED_SCRIPT });
      redis.defineCommand('proxyBenchClaim', { numberOfKeys: 2, lua: CLAIM_SCRIPT });
    }
    this.listener = redis.duplicate();
    // Without Redis the local board still works; the next resync catches up.
    this.listener.on('error', () => {});
    this.listener.on('message', (_channel: string, message: string) => this.onMessage(message));
    // The first read waits for the listener: a command sent on the shared connection while the other
    // services are still defining their scripts would be batched (auto-pipelining) without them.
    this.listener.subscribe(this.hash).then(
      () => this.resync(),
      () => {},
    );
    this.timer = setInterval(() => void this.resync(), RESYNC_MS);
    this.timer.unref();
  }

  private lock(index: number, platform: string): string {
    return `${this.prefix}:proxy-probe:${field(index, this.hosts[index]!, platform)}`;
  }

  private applyValue(index: number, platform: string, value: string | null): void {
    if (!this.closed && value) this.board.set(index, platform, parseState(value));
  }

  private onMessage(message: string): void {
    const at = message.lastIndexOf('=');
    const where = parseField(message.slice(0, at), this.hosts);
    if (where) this.applyValue(where.index, where.platform, message.slice(at + 1));
  }

  private async resync(): Promise<void> {
    try {
      for (const e of await readSharedBench(this.redis, this.prefix, this.hosts)) {
        if (!this.closed) this.board.set(e.index, e.platform, e.state);
      }
    } catch {
      // Redis away: this process goes on with what it knows.
    }
  }

  failed(index: number, platform: string, report: FailureReport): void {
    if (report.probe) this.board.clearProbing(index, platform);
    this.board.set(index, platform, afterFailure(this.board.get(index, platform), report, this.policy));
    this.redis
      .proxyBenchFail(
        this.hash,
        this.lock(index, platform),
        field(index, this.hosts[index]!, platform),
        this.token,
        report.now,
        this.policy.baseMs,
        this.policy.maxMs,
        report.retryAfterMs ?? -1,
        report.probe ? 1 : 0,
        report.outcome,
      )
      .catch(() => {});
  }

  succeeded(index: number, platform: string, probe: boolean): void {
    if (!probe) return;
    this.board.clearProbing(index, platform);
    const s = this.board.get(index, platform);
    if (s && s.failures > 0) this.board.set(index, platform, { ...s, failures: 0, until: 0 });
    this.redis
      .proxyBenchSucceed(
        this.hash,
        this.lock(index, platform),
        field(index, this.hosts[index]!, platform),
        this.token,
      )
      .catch(() => {});
  }

  async claimProbe(index: number, platform: string, now: number): Promise<ProbeClaim> {
    if (this.board.probing(index, platform, now)) return 'taken';
    // Reserved here before the round trip, so that this process sends one probe, not one per request.
    this.board.markProbing(index, platform, now + PROBE_TTL_MS);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), CLAIM_WAIT_MS);
    });
    const answer = await Promise.race([
      this.redis
        .proxyBenchClaim(
          this.hash,
          this.lock(index, platform),
          field(index, this.hosts[index]!, platform),
          this.token,
          PROBE_TTL_MS,
          now,
        )
        .catch(() => null),
      late,
    ]).finally(() => clearTimeout(timer));
    // Redis away or slow: probe on this process's own word, as a lone process would.
    if (!answer) return 'probe';
    const [verdict, value] = answer;
    if (verdict === 'probe') return 'probe';
    if (verdict === 'busy') {
      this.board.markProbing(index, platform, now + Math.max(0, Number(value)));
      return 'taken';
    }
    // A fresh read of the shared state: what this process held was out of date.
    this.board.clearProbing(index, platform);
    if (verdict === 'healthy') {
      const s = this.board.get(index, platform);
      if (value) this.applyValue(index, platform, value);
      else if (s) this.board.set(index, platform, { ...s, failures: 0, until: 0 });
      return 'healthy';
    }
    this.applyValue(index, platform, value);
    return 'taken';
  }

  releaseProbe(index: number, platform: string): void {
    this.board.clearProbing(index, platform);
    const lock = this.lock(index, platform);
    // Only our own lock goes (it may have expired and been taken by another process since).
    this.redis
      .eval(
        "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end",
        1,
        lock,
        this.token,
      )
      .catch(() => {});
  }

  entries(): Promise<BenchEntry[]> {
    return readSharedBench(this.redis, this.prefix, this.hosts);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.listener.disconnect();
  }
}

declare module 'ioredis' {
  interface RedisCommander<Context> {
    proxyBenchFail(
      hash: string,
      lock: string,
      field: string,
      token: string,
      now: number,
      baseMs: number,
      maxMs: number,
      retryAfterMs: number,
      probe: number,
      outcome: string,
    ): Result<string, Context>;
    proxyBenchSucceed(
      hash: string,
      lock: string,
      field: string,
      token: string,
    ): Result<string | null, Context>;
    proxyBenchClaim(
      hash: string,
      lock: string,
      field: string,
      token: string,
      ttlMs: number,
      now: number,
    ): Result<[string, string], Context>;
  }
}
