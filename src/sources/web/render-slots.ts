// Who may render next in the browser pool. The pool has `size` slots; one account holds at most
// `accountMax` of them, so pages that never finish (a script stuck in a loop) tie up only their own
// account's share. A freed slot goes to the waiting account with the fewest renders running (the
// oldest waiter among equals), so one account's queue never stands in front of another account.
// A render that cannot start within `queueTimeoutMs` is refused: 429 when the account's own limit
// holds it back, 503 when the pool is simply full, each with a Retry-After of when, at the latest,
// a slot that would let it start is freed (renders are held at most `holdMs`, or the hold a render
// asked for: one that waits and acts on the page may take longer).
import { AppError } from '../../errors.js';

export interface RenderSlotsOptions {
  size: number;
  accountMax: number;
  queueTimeoutMs: number;
  /** The longest one render holds its slot (its time limit), unless acquire() says otherwise. */
  holdMs: number;
}

interface Waiter {
  account: string;
  grant(): void;
}

export class RenderSlots {
  /** When, at the latest, each render running gives its slot back, per account. */
  private readonly running = new Map<string, number[]>();
  private total = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: RenderSlotsOptions) {}

  /**
   * Waits for a slot for `account`, to be held at most `holdMs` (default: the options'); the answer
   * frees it (call it exactly once).
   */
  acquire(account: string, signal?: AbortSignal, holdMs = this.options.holdMs): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<() => void>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        account,
        grant: () => {
          leave();
          resolve(this.start(account, holdMs));
        },
      };
      const onAbort = () => {
        leave();
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        leave();
        reject(this.refusal(account));
      }, this.options.queueTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.pump();
    });
  }

  private count(account: string): number {
    return this.running.get(account)?.length ?? 0;
  }

  /** Hands free slots to waiters: fewest renders running first, then the oldest. */
  private pump(): void {
    while (this.total < this.options.size) {
      let next: Waiter | null = null;
      for (const w of this.waiting) {
        const n = this.count(w.account);
        if (n < this.options.accountMax && (!next || n < this.count(next.account))) next = w;
      }
      if (!next) return;
      next.grant();
    }
  }

  private start(account: string, holdMs: number): () => void {
    const freedBy = Date.now() + holdMs;
    const ends = this.running.get(account) ?? [];
    ends.push(freedBy);
    this.running.set(account, ends);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      ends.splice(ends.indexOf(freedBy), 1);
      if (ends.length === 0) this.running.delete(account);
      this.total--;
      this.pump();
    };
  }

  private refusal(account: string): AppError {
    const own = this.count(account) >= this.options.accountMax;
    const ends = own ? this.running.get(account)! : [...this.running.values()].flat();
    const freedBy = Math.min(...ends);
    const seconds = Number.isFinite(freedBy) ? Math.ceil((freedBy - Date.now()) / 1000) : 1;
    const retryAfterMs = Math.max(1, seconds) * 1000;
    if (own) {
      return new AppError(
        'rate_limited',
        `This account already has ${this.options.accountMax} pages rendering at once, its limit (UNFURL_RENDER_ACCOUNT_MAX); retry when one has finished`,
        null,
        { retryAfterMs },
      );
    }
    return new AppError(
      'service_unavailable',
      `Every browser slot is busy (${this.options.size}); retry shortly`,
      null,
      { retryAfterMs },
    );
  }
}
