// The one billing path of synchronous paid routes: the price is held before any upstream work (402
// when the balance does not cover it), then settled when the work succeeds or released when it
// fails. Holding first is what bounds work by the balance: of N concurrent requests on a balance of
// B, at most B get past the hold, so at most B do the paid work; a failed request costs nothing.
// Requests that create jobs do the same for the upstream work that sizes the job (locating media,
// following short links): it runs under a hold of one request's price, always given back.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { prices } from '../../billing/prices.js';
import { randomBase62 } from '../../ids.js';
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

/**
 * Runs the upstream work a request does before it can size and submit its job under a hold of one
 * request's price, released when the work ends (the job then holds its own estimate): an account
 * without credits gets 402 before anything is fetched, and N concurrent requests on a balance of B
 * run at most B such lookups.
 */
export async function sizingJob<T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> {
  const { accountId } = principal(request);
  const ledger = request.server.services.ledger;
  // An id of its own: the same request may hold more than once (a paid answer, then a job's sizing).
  const holdId = `${request.id}_${randomBase62(6)}`;
  const description = 'Held while the job is sized';
  await ledger.holdRequest(accountId, holdId, prices.syncRequest, description);
  try {
    return await work();
  } finally {
    await ledger.endRequest(accountId, holdId, 0, description);
  }
}
