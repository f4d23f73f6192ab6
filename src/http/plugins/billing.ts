// The HTTP side of charging requests (billing/request-charges.ts): the caller's account and the
// request id go in, the X-Credits-* headers come out.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JobCredits, RequestCharge } from '../../billing/request-charges.js';
import type { HttpContext } from '../context.js';
import { principal } from './auth.js';

export type Charges = HttpContext['charges'];

type Label = { operation: string; description: string };
type Charged<T> = { result: T; remaining: number; charged: number };

/** Runs a paid request's work under a hold of its price (settled on success, released on failure). */
export function paid<T>(
  charges: Charges,
  request: FastifyRequest,
  reply: FastifyReply,
  cost: number,
  label: Label,
  work: () => Promise<T>,
  /** For a price its result tells: `cost` is then the most, held first (see RequestCharges.charge). */
  settle?: (result: T) => number,
): Promise<T> {
  return charging(request, reply, cost, label, (charge) => charges.charge(charge, work, settle));
}

/**
 * A paid request whose answer may be cached: `peek` answers it from the cache (charged at once, no
 * hold, 402 when the balance does not cover it), else `work` runs under a hold as in `paid`.
 */
export function paidAnswer<T>(
  charges: Charges,
  request: FastifyRequest,
  reply: FastifyReply,
  cost: number,
  label: Label,
  peek: () => Promise<T | undefined>,
  work: () => Promise<T>,
  /** For a price its answer tells: `cost` is then the most (see RequestCharges.chargeAnswer). */
  settle?: (result: T) => number,
): Promise<T> {
  return charging(request, reply, cost, label, (charge) => charges.chargeAnswer(charge, peek, work, settle));
}

/** The caller's charge for this request, run by `charge`; its headers set on the reply. */
async function charging<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  cost: number,
  label: Label,
  charge: (c: RequestCharge) => Promise<Charged<T>>,
): Promise<T> {
  const { result, remaining, charged } = await charge({
    accountId: principal(request).accountId,
    requestId: request.id,
    cost,
    description: label.description,
    operation: label.operation,
  });
  sendCharged(reply, charged, remaining);
  return result;
}

/** The credit headers of a paid answer. */
export function sendCharged(reply: FastifyReply, charged: number, remaining: number): void {
  reply.header('X-Credits-Charged', String(charged));
  // What was left once this request's price was taken (other requests may be moving the balance).
  reply.header('X-Credits-Remaining', String(remaining));
}

/** Runs the upstream work that sizes a job under a hold of one request's price, always released. */
export function sizingJob<T>(charges: Charges, request: FastifyRequest, work: () => Promise<T>): Promise<T> {
  return charges.whileSizing(principal(request).accountId, request.id, work);
}

/** 202 {jobId} with the credit headers of an accepted job (nothing charged yet, what is held). */
export function sendJobAccepted(reply: FastifyReply, jobId: string, credits: JobCredits): FastifyReply {
  jobCreditHeaders(reply, credits);
  return reply.code(202).send({ jobId });
}

/** What accepting a job did to the balance: nothing charged yet, what is held, what remains. */
export function jobCreditHeaders(reply: FastifyReply, credits: JobCredits): void {
  reply.header('X-Credits-Charged', '0');
  reply.header('X-Credits-Held', String(credits.held));
  reply.header('X-Credits-Remaining', String(credits.remaining));
}
