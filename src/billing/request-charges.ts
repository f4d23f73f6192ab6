// Charging synchronous requests: the price is held before any upstream work (402 when the balance
// does not cover it), then settled when the work succeeds or released when it fails. Holding first
// is what bounds work by the balance: of N concurrent requests on a balance of B, at most B get past
// the hold, so at most B do the paid work; a failed request costs nothing. Requests that create jobs
// do the same for the upstream work that sizes the job (locating media, following short links): it
// runs under a hold of one request's price, always given back. Knows nothing of HTTP.
import { randomBase62 } from '../ids.js';
import type { Ledger } from './ledger.js';
import { prices } from './prices.js';

export interface RequestCharge {
  accountId: string;
  /** Unique per request: the hold, its release and its settlement are recorded under it. */
  requestId: string;
  cost: number;
  description: string;
}

/** Runs `work` under a hold of its price; answers its result and the balance left once the price was taken. */
export async function chargeForRequest<T>(
  ledger: Ledger,
  charge: RequestCharge,
  work: () => Promise<T>,
): Promise<{ result: T; remaining: number }> {
  const { accountId, requestId, cost, description } = charge;
  const remaining = await ledger.holdRequest(accountId, requestId, cost, description);
  let result: T;
  try {
    result = await work();
  } catch (err) {
    await ledger.endRequest(accountId, requestId, 0, description);
    throw err;
  }
  await ledger.endRequest(accountId, requestId, cost, description);
  return { result, remaining };
}

/**
 * Runs the upstream work a request does before it can size and submit its job under a hold of one
 * request's price, released when the work ends (the job then holds its own estimate): an account
 * without credits gets 402 before anything is fetched, and N concurrent requests on a balance of B
 * run at most B such lookups.
 */
export async function holdWhileSizing<T>(
  ledger: Ledger,
  accountId: string,
  requestId: string,
  work: () => Promise<T>,
): Promise<T> {
  // An id of its own: the same request may hold more than once (a paid answer, then a job's sizing).
  const holdId = `${requestId}_${randomBase62(6)}`;
  const description = 'Held while the job is sized';
  await ledger.holdRequest(accountId, holdId, prices.syncRequest, description);
  try {
    return await work();
  } finally {
    await ledger.endRequest(accountId, holdId, 0, description);
  }
}
