// How each proxy fares with each platform lately, as this process knows it. A platform that blocks
// one exit may still serve it to another platform, so everything is kept per proxy *and* platform.
// A failure benches the proxy for that platform; the bench doubles while it keeps failing (capped);
// when it ends, one request is let through as the probe, and only the probe's success brings the
// proxy back. The Redis variant (proxy-bench-redis.ts) shares this board between processes.

export interface BenchState {
  /** Benches in a row (0: healthy). One failure (or one failed probe) starts the next. */
  failures: number;
  /** When the bench ends (epoch ms); after it, one probe request may try the proxy. */
  until: number;
  /** Answers that were blocks (429, a bot check), ever. */
  blocks: number;
  /** Answers that were failures (5xx, no answer), ever. */
  errors: number;
}

export type Outcome = 'blocked' | 'failed';

export interface FailureReport {
  outcome: Outcome;
  /** This request was the proxy's probe. */
  probe: boolean;
  /** The platform's Retry-After, when it gave one: the bench then lasts that long (capped). */
  retryAfterMs: number | null;
  now: number;
}

export interface BenchPolicy {
  /** The first bench; each further one is twice the last. */
  baseMs: number;
  maxMs: number;
}

/** How long one probe may hold a proxy for itself before another may try (a process that died). */
export const PROBE_TTL_MS = 10_000;

export const HEALTHY: BenchState = { failures: 0, until: 0, blocks: 0, errors: 0 };

/**
 * The state after a failure. Only a failure of a healthy proxy or of its probe starts a bench (and
 * counts towards the doubling): requests that were already on their way when it was benched fail for
 * the same reason and say nothing new, though their Retry-After may lengthen the bench. Mirrored by
 * the Lua script of proxy-bench-redis.ts.
 */
export function afterFailure(prev: BenchState | undefined, f: FailureReport, p: BenchPolicy): BenchState {
  const s = prev ?? HEALTHY;
  const blocks = s.blocks + (f.outcome === 'blocked' ? 1 : 0);
  const errors = s.errors + (f.outcome === 'failed' ? 1 : 0);
  const capped = (ms: number) => Math.min(p.maxMs, Math.max(0, ms));
  if (s.failures === 0 || f.probe) {
    const failures = s.failures + 1;
    const ms = f.retryAfterMs ?? p.baseMs * 2 ** (failures - 1);
    return { failures, until: f.now + capped(ms), blocks, errors };
  }
  const until = f.retryAfterMs === null ? s.until : Math.max(s.until, f.now + capped(f.retryAfterMs));
  return { ...s, until, blocks, errors };
}

const key = (index: number, platform: string) => `${index}|${platform}`;

/** The board of one process: states, and the probes this process knows to be under way. */
export class BenchBoard {
  private readonly states = new Map<string, BenchState>();
  private readonly probes = new Map<string, number>();

  get(index: number, platform: string): BenchState | undefined {
    return this.states.get(key(index, platform));
  }

  set(index: number, platform: string, next: BenchState): void {
    this.states.set(key(index, platform), next);
  }

  probing(index: number, platform: string, now: number): boolean {
    return (this.probes.get(key(index, platform)) ?? 0) > now;
  }

  markProbing(index: number, platform: string, until: number): void {
    this.probes.set(key(index, platform), until);
  }

  clearProbing(index: number, platform: string): void {
    this.probes.delete(key(index, platform));
  }

  entries(): BenchEntry[] {
    return [...this.states].map(([k, state]) => {
      const at = k.indexOf('|');
      return { index: Number(k.slice(0, at)), platform: k.slice(at + 1), state };
    });
  }
}

export interface BenchEntry {
  index: number;
  platform: string;
  state: BenchState;
}

/** What a request may do with a proxy it asked to probe. */
export type ProbeClaim = 'probe' | 'healthy' | 'taken';

/** Where the board lives: this process only, or shared through Redis. */
export interface ProxyBench {
  /** This process's view, read on every pick: never a round trip. */
  readonly board: BenchBoard;
  failed(index: number, platform: string, report: FailureReport): void;
  /** A success: resets the proxy when it was the probe (others started before the bench and prove nothing). */
  succeeded(index: number, platform: string, probe: boolean): void;
  /** Claims the probe of a proxy whose bench is over; `taken` when another request has it (or the bench was renewed). */
  claimProbe(index: number, platform: string, now: number): Promise<ProbeClaim>;
  /** Gives up a probe that ended without an answer of the platform (our own refusal, the caller's abort). */
  releaseProbe(index: number, platform: string): void;
  /** Every known state, from the shared store where there is one (admin, reports). */
  entries(): Promise<BenchEntry[]>;
  close(): Promise<void>;
}

/** The bench of a single process. */
export class MemoryBench implements ProxyBench {
  constructor(
    readonly board: BenchBoard,
    private readonly policy: BenchPolicy,
  ) {}

  failed(index: number, platform: string, report: FailureReport): void {
    if (report.probe) this.board.clearProbing(index, platform);
    this.board.set(index, platform, afterFailure(this.board.get(index, platform), report, this.policy));
  }

  succeeded(index: number, platform: string, probe: boolean): void {
    if (!probe) return;
    this.board.clearProbing(index, platform);
    const s = this.board.get(index, platform);
    if (s && s.failures > 0) this.board.set(index, platform, { ...s, failures: 0, until: 0 });
  }

  async claimProbe(index: number, platform: string, now: number): Promise<ProbeClaim> {
    if (this.board.probing(index, platform, now)) return 'taken';
    this.board.markProbing(index, platform, now + PROBE_TTL_MS);
    return 'probe';
  }

  releaseProbe(index: number, platform: string): void {
    this.board.clearProbing(index, platform);
  }

  async entries(): Promise<BenchEntry[]> {
    return this.board.entries();
  }

  async close(): Promise<void> {}
}
