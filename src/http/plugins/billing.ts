// The one billing path of synchronous paid routes: the price is held before any upstream work (402
// when the balance does not cover it), then settled when the work succeeds or released when it
// fails. Holding first is what bounds work by the balance: of N concurrent requests on a balance of
// B, at most B get past the hold, so at most B do the paid work; a failed request costs nothing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principal } from './auth.js';

export async function paid<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  cost: number,
  description: string,
  work: () => Promise<T>,
): Promise<T> {
  const { accountId } = principal(request);
  const ledger = request.server.services.ledger;
  const left = await ledger.holdRequest(accountId, request.id, cost, description);
  let result: T;
  try {
    result = await work();
  } catch (err) {
    await ledger.endRequest(accountId, request.id, 0, description);
    throw err;
  }
  await ledger.endRequest(accountId, request.id, cost, description);
  reply.header('X-Credits-Charged', String(cost));
  // What was left once this request's price was taken (other requests may be moving the balance).
  reply.header('X-Credits-Remaining', String(left));
  return result;
}
