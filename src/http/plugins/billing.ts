// The one billing path of synchronous paid routes: refuse early when the balance is short, run the
// work, then debit atomically with the balance check. A failed request throws before the debit and
// so costs nothing; of N concurrent requests on a balance of B exactly B are charged and answered.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { insufficientCredits } from '../../billing/ledger.js';
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
  const before = await ledger.balance(accountId);
  if (before < cost) throw insufficientCredits(cost, before);
  const result = await work();
  const { balance } = await ledger.settleRequest(accountId, cost, request.id, description);
  reply.header('X-Credits-Charged', String(cost));
  reply.header('X-Credits-Remaining', String(balance));
  return result;
}
