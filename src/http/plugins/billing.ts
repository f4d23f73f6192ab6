// The HTTP side of charging requests (billing/request-charges.ts): the caller's account and the
// request id go in, the X-Credits-* headers come out.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chargeForRequest, holdWhileSizing } from '../../billing/request-charges.js';
import { principal } from './auth.js';

/** Runs a paid request's work under a hold of its price (settled on success, released on failure). */
export async function paid<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  cost: number,
  description: string,
  work: () => Promise<T>,
): Promise<T> {
  const { accountId } = principal(request);
  const { result, remaining } = await chargeForRequest(
    request.server.services.ledger,
    { accountId, requestId: request.id, cost, description },
    work,
  );
  reply.header('X-Credits-Charged', String(cost));
  // What was left once this request's price was taken (other requests may be moving the balance).
  reply.header('X-Credits-Remaining', String(remaining));
  return result;
}

/** Runs the upstream work that sizes a job under a hold of one request's price, always released. */
export function sizingJob<T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> {
  return holdWhileSizing(request.server.services.ledger, principal(request).accountId, request.id, work);
}
