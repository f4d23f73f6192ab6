// Charging synchronous requests: the price is held before any upstream work (402 when the balance
// does not cover it), then settled when the work succeeds or released when it fails. Holding first
// is what bounds work by the balance: of N concurrent requests on a balance of B, at most B get past
// the hold, so at most B do the paid work; a failed request costs nothing, unless its work spent the
// operator's money as it went (model calls, `chargeSpent`): then what it spent is settled. An answer
// already at hand (a cache hit) has no work to bound: its price is charged at once, in a transaction
// it shares with the other hits of the moment (Ledger.chargeRequest), with the same 402. Requests
// that create jobs hold the same way for the upstream work that sizes the job (locating media,
// following short links): it runs under a hold of one request's price, always given back.
// Knows nothing of HTTP.
import { randomBase62 } from '../ids.js';
import type { Ledger } from './ledger.js';
import { prices } from './prices.js';

export interface RequestCharge {
  accountId: string;
  /** Unique per request: the hold, its release and its settlement are recorded under it. */
  requestId: string;
  cost: number;
  description: string;
  /** What the request does (scrape, transcript, …): its entries are summed per operation. */
  operation: string;
}

/** The credits of a job just accepted: what it holds, and the balance left beside the hold. */
export interface JobCredits {
  held: number;
  remaining: number;
}

export class RequestCharges {
  constructor(private readonly ledger: Ledger) {}

  /**
   * Runs `work` under a hold of its price; answers its result, what was charged and the balance left
   * once the price was taken. `settle` prices a request whose cost its result tells (pages fetched):
   * `cost` is then the most it may cost, held first, and at most that is charged.
   */
  charge<T>(
    charge: RequestCharge,
    work: () => Promise<T>,
    settle?: (result: T) => number,
  ): Promise<{ result: T; remaining: number; charged: number }> {
    return this.underHold(charge, work, settle, () => 0);
  }

  /**
   * Like `charge`, for work that spends money of the operator's as it goes (language-model calls):
   * when it fails, what it had spent by then (`spent()` credits, never more than held) is charged
   * instead of nothing, then the error goes on. On success the full price is charged.
   */
  chargeSpent<T>(
    charge: RequestCharge,
    work: () => Promise<T>,
    spent: () => number,
  ): Promise<{ result: T; remaining: number; charged: number }> {
    return this.underHold(charge, work, undefined, spent);
  }

  private async underHold<T>(
    charge: RequestCharge,
    work: () => Promise<T>,
    settle: ((result: T) => number) | undefined,
    spentOnFailure: () => number,
  ): Promise<{ result: T; remaining: number; charged: number }> {
    const { accountId, requestId, cost, description, operation } = charge;
    const held = await this.ledger.holdRequest(accountId, requestId, cost, description, operation);
    const bounded = (n: number) => Math.min(cost, Math.max(0, Math.ceil(n)));
    let result: T;
    try {
      result = await work();
    } catch (err) {
      await this.ledger.endRequest(accountId, requestId, bounded(spentOnFailure()), description);
      throw err;
    }
    const charged = settle ? bounded(settle(result)) : cost;
    await this.ledger.endRequest(accountId, requestId, charged, description);
    // The hold took `cost`; what was not charged came back.
    return { result, remaining: held + (cost - charged), charged };
  }

  /**
   * A request whose answer may already be at hand: `peek` answers it without upstream work (a cache
   * hit) or undefined. A hit needs no hold — there is no work for the balance to bound — so its
   * price is charged at once, in a ledger transaction shared with the hits of the moment (402 when
   * the balance does not cover it, as a hold would be); a miss runs `work` as `charge` does.
   */
  async chargeAnswer<T>(
    charge: RequestCharge,
    peek: () => Promise<T | undefined>,
    work: () => Promise<T>,
    /** As in `charge`: a price the answer tells, `cost` the most; a cached answer is charged it too. */
    settle?: (result: T) => number,
  ): Promise<{ result: T; remaining: number; charged: number }> {
    const known = await peek();
    if (known === undefined) return this.charge(charge, work, settle);
    const { accountId, requestId, description, operation } = charge;
    const cost = settle ? Math.min(charge.cost, Math.max(0, Math.ceil(settle(known)))) : charge.cost;
    const remaining = await this.ledger.chargeRequest(accountId, requestId, cost, description, operation);
    return { result: known, remaining, charged: cost };
  }

  /**
   * Runs the upstream work a request does before it can size and submit its job under a hold of one
   * request's price, released when the work ends (the job then holds its own estimate): an account
   * without credits gets 402 before anything is fetched, and N concurrent requests on a balance of B
   * run at most B such lookups.
   */
  async whileSizing<T>(accountId: string, requestId: string, work: () => Promise<T>): Promise<T> {
    // An id of its own: the same request may hold more than once (a paid answer, then a job's sizing).
    const holdId = `${requestId}_${randomBase62(6)}`;
    const description = 'Held while the job is sized';
    await this.ledger.holdRequest(accountId, holdId, prices.syncRequest, description, 'sizing');
    try {
      return await work();
    } finally {
      await this.ledger.endRequest(accountId, holdId, 0, description);
    }
  }

  /**
   * What an accepted job holds and what its account has left (nothing is charged before it ends):
   * as its accepting transaction saw them when it held credits, else read now (a replay, a joined
   * duplicate, a job that holds nothing).
   */
  async ofJob(accountId: string, accepted: { jobId: string; credits?: JobCredits }): Promise<JobCredits> {
    if (accepted.credits) return accepted.credits;
    const [held, remaining] = await Promise.all([
      this.ledger.heldFor(accepted.jobId),
      this.ledger.balance(accountId),
    ]);
    return { held, remaining };
  }
}
