// The proxies of UNFURL_PROXY_URLS. Platform requests take the healthy ones in turn: a proxy a
// platform blocked or failed is benched for that platform (proxy-bench.ts) and a retry never goes
// back to the proxy that just failed while another is healthy. When every proxy is benched for a
// platform the caller learns it at once, with how long until one may be tried again.
import type { Redis } from 'ioredis';
import { type Dispatcher, ProxyAgent } from 'undici';
import { type ProxyStateSample, proxyFailures, showProxyStates } from '../metrics.js';
import {
  BenchBoard,
  type BenchEntry,
  type BenchPolicy,
  MemoryBench,
  type Outcome,
  type ProxyBench,
} from './proxy-bench.js';
import { RedisBench } from './proxy-bench-redis.js';
import { sleep } from './waiting.js';

export interface ProxyPoolOptions {
  /** The first bench of a failing proxy (doubled while it keeps failing). */
  benchMs?: number;
  benchMaxMs?: number;
  /** Share the bench with every process on this Redis (keys under `prefix`). */
  shared?: { redis: Redis; prefix: string } | null;
}

/** A proxy handed to one attempt; tell it how the attempt went, once. */
export interface ProxyLease {
  readonly index: number;
  readonly dispatcher: Dispatcher;
  /** This attempt is the probe of a proxy whose bench just ended. */
  readonly probe: boolean;
  succeeded(): void;
  failed(outcome: Outcome, retryAfterMs: number | null): void;
  /** Neither: the attempt ended without the platform's answer (our own refusal, the caller's abort). */
  release(): void;
}

/** Every proxy is benched for the platform. */
export interface AllBenched {
  readonly benched: true;
  /** Until the earliest bench ends (at least a second when a probe is already under way). */
  readonly retryAfterMs: number;
}

export interface TakeOptions {
  /** The proxy the last attempt failed on: not used again while another is healthy. */
  avoid?: number;
  /** How long to wait for a bench about to end rather than answer that every proxy is benched. */
  waitMs?: number;
  signal?: AbortSignal;
}

export interface ProxyReport {
  index: number;
  host: string;
  platforms: Array<{
    platform: string;
    benched: boolean;
    benchLeftMs: number;
    failures: number;
    blocks: number;
    errors: number;
  }>;
}

/** How soon a request that found only probes under way looks again. */
const PROBE_RECHECK_MS = 50;

/** The longest a request waits for a bench to end (then it is the probe). */
export const MAX_WAIT_MS = 2000;

/** How a proxy is named wherever it is shown or stored: its host, never its credentials. */
export const proxyHost = (uri: string): string => new URL(uri).host;

type Pick = { use: number; probe: boolean } | { wait: number | null; retryAfterMs: number };

export class ProxyPool {
  private readonly agents: ProxyAgent[];
  private readonly hosts: string[];
  private readonly bench: ProxyBench;
  /** Where the turn is, per platform. */
  private readonly cursors = new Map<string, number>();
  private cursor = 0;
  private readonly hideStates: () => void;

  constructor(urls: readonly string[], options: ProxyPoolOptions = {}) {
    this.agents = urls.map(
      (uri) =>
        new ProxyAgent({ uri, connect: { timeout: 10_000 }, headersTimeout: 30_000, bodyTimeout: 30_000 }),
    );
    this.hosts = urls.map(proxyHost);
    const policy: BenchPolicy = { baseMs: options.benchMs ?? 1000, maxMs: options.benchMaxMs ?? 300_000 };
    const board = new BenchBoard();
    this.bench =
      options.shared && urls.length > 0
        ? new RedisBench(board, policy, options.shared.redis, options.shared.prefix, this.hosts)
        : new MemoryBench(board, policy);
    this.hideStates = urls.length > 0 ? showProxyStates(() => this.states()) : () => {};
  }

  /** Each proxy's state for every platform that ever failed one (the /metrics gauge). */
  private states(): ProxyStateSample[] {
    const entries = this.bench.board.entries();
    const platforms = [...new Set(entries.map((e) => e.platform))];
    return platforms.flatMap((platform) =>
      this.hosts.map((host, index) => ({
        proxy: String(index),
        host,
        platform,
        benched: this.benched(index, platform),
      })),
    );
  }

  get size(): number {
    return this.agents.length;
  }

  /** The next proxy in turn, whatever its health (media downloads, browser requests); undefined when none. */
  next(): Dispatcher | undefined {
    if (this.agents.length === 0) return undefined;
    const agent = this.agents[this.cursor % this.agents.length]!;
    this.cursor = (this.cursor + 1) % this.agents.length;
    return agent;
  }

  /**
   * A proxy for one attempt at `platform`: a proxy whose bench is over (this attempt is its probe),
   * else the next healthy one. `platform` null (the open web: countless sites, none of which speaks for
   * the proxy) keeps no health, only the turn and `avoid`. When every proxy is benched, waits for the
   * earliest bench to end if that is within `waitMs` (default MAX_WAIT_MS), else answers AllBenched.
   */
  async take(platform: string | null, options: TakeOptions = {}): Promise<ProxyLease | AllBenched> {
    const deadline = Date.now() + Math.min(options.waitMs ?? MAX_WAIT_MS, MAX_WAIT_MS);
    let claims = 0;
    for (;;) {
      const now = Date.now();
      const pick = this.choose(platform, options.avoid, now);
      if ('use' in pick) {
        if (!pick.probe || platform === null) return this.lease(pick.use, platform, false);
        const claim = await this.bench.claimProbe(pick.use, platform, now);
        if (claim !== 'taken') return this.lease(pick.use, platform, claim === 'probe');
        // Another request probes it, or it was benched again: the board knows now. (Bounded, in case
        // the shared store keeps contradicting it.)
        if (++claims <= this.agents.length) continue;
        return { benched: true, retryAfterMs: 1000 };
      }
      if (pick.wait !== null && now + pick.wait <= deadline) {
        await sleep(pick.wait, options.signal);
        continue;
      }
      return { benched: true, retryAfterMs: pick.retryAfterMs };
    }
  }

  private choose(platform: string | null, avoid: number | undefined, now: number): Pick {
    const n = this.agents.length;
    const start = this.cursors.get(platform ?? '') ?? 0;
    let healthy = -1;
    let probe = -1;
    let wait = Number.POSITIVE_INFINITY;
    let probing = false;
    for (let k = 0; k < n; k++) {
      const i = (start + k) % n;
      const s = platform === null ? undefined : this.bench.board.get(i, platform);
      if (!s || s.failures === 0) {
        if (healthy < 0 || healthy === avoid) healthy = i;
      } else if (s.until > now) {
        wait = Math.min(wait, s.until - now);
      } else if (this.bench.board.probing(i, platform!, now)) {
        probing = true;
      } else if (probe < 0 || probe === avoid) {
        probe = i;
      }
    }
    // A proxy whose bench is over gets the next request as its probe: otherwise, with healthy
    // proxies about, it would never be tried again.
    if (probe >= 0 && (probe !== avoid || healthy < 0 || healthy === avoid))
      return { use: probe, probe: true };
    if (healthy >= 0) {
      this.cursors.set(platform ?? '', healthy + 1);
      return { use: healthy, probe: false };
    }
    const finite = Number.isFinite(wait);
    return {
      // A probe under way settles soon: look again shortly rather than turn the request away.
      wait: probing ? Math.min(wait, PROBE_RECHECK_MS) : finite ? wait : null,
      retryAfterMs: probing ? Math.min(wait, 1000) : finite ? wait : 1000,
    };
  }

  private lease(index: number, platform: string | null, probe: boolean): ProxyLease {
    return new Lease(this, index, platform, probe);
  }

  /** How a lease's attempt went (Lease calls it once). */
  settle(lease: Lease, outcome: Outcome | 'success' | 'none', retryAfterMs: number | null = null): void {
    const { index, platform, probe } = lease;
    if (outcome !== 'success' && outcome !== 'none') {
      proxyFailures.labels(String(index), this.hosts[index]!, platform ?? 'web', outcome).inc();
    }
    if (platform === null) return;
    if (outcome === 'success') this.bench.succeeded(index, platform, probe);
    else if (outcome === 'none') {
      if (probe) this.bench.releaseProbe(index, platform);
    } else this.bench.failed(index, platform, { outcome, probe, retryAfterMs, now: Date.now() });
  }

  dispatcher(index: number): Dispatcher {
    return this.agents[index]!;
  }

  /** Whether this process knows proxy `index` to be benched for `platform` (its bench may be over, its probe not yet). */
  benched(index: number, platform: string): boolean {
    return (this.bench.board.get(index, platform)?.failures ?? 0) > 0;
  }

  /** Every proxy and its state per platform (from the shared store where there is one). */
  async report(now = Date.now()): Promise<ProxyReport[]> {
    return proxyReport(this.hosts, await this.bench.entries(), now);
  }

  async close(): Promise<void> {
    this.hideStates();
    await this.bench.close();
    await Promise.all(this.agents.map((a) => a.close()));
  }
}

/** The rows of a report: every proxy, with the platforms it has a state for. */
export function proxyReport(hosts: readonly string[], entries: BenchEntry[], now: number): ProxyReport[] {
  return hosts.map((host, index) => ({
    index,
    host,
    platforms: entries
      .filter((e) => e.index === index)
      .sort((a, b) => a.platform.localeCompare(b.platform))
      .map(({ platform, state: s }) => ({
        platform,
        benched: s.failures > 0,
        benchLeftMs: s.failures > 0 ? Math.max(0, s.until - now) : 0,
        failures: s.failures,
        blocks: s.blocks,
        errors: s.errors,
      })),
  }));
}

/** A class rather than closures: one is made per upstream attempt. */
class Lease implements ProxyLease {
  private settled = false;
  readonly dispatcher: Dispatcher;

  constructor(
    private readonly pool: ProxyPool,
    readonly index: number,
    readonly platform: string | null,
    readonly probe: boolean,
  ) {
    this.dispatcher = pool.dispatcher(index);
  }

  private once(): boolean {
    const first = !this.settled;
    this.settled = true;
    return first;
  }

  succeeded(): void {
    if (this.once()) this.pool.settle(this, 'success');
  }

  failed(outcome: Outcome, retryAfterMs: number | null): void {
    if (this.once()) this.pool.settle(this, outcome, retryAfterMs);
  }

  release(): void {
    if (this.once()) this.pool.settle(this, 'none');
  }
}
