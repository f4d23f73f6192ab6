// The usage summary always equals the ledger: random batches of charges (request holds settled),
// cached answers (charged at once, no hold), failed requests (holds released), job holds and settlements, purchases, grants and clawbacks run
// concurrently on a few accounts, and afterwards the sums the ledger kept (ledger_sums: hour, day and
// all time) equal the same sums computed from credit_transactions, and GET
// /v1/account/usage/summary over the range equals the entries of that range, per type and operation.
// A refused debit (insufficient credits) leaves neither an entry nor a sum behind.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { randomBase62 } from '../../src/ids.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

const OPERATIONS = ['scrape', 'crawl', 'transcript', 'map'] as const;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Step =
  | { kind: 'charge'; op: number; cost: number; paid: number }
  | { kind: 'cached'; op: number; cost: number }
  | { kind: 'job'; op: number; held: number; cost: number; topUp: number }
  | { kind: 'purchase'; credits: number }
  | { kind: 'grant'; credits: number }
  | { kind: 'clawback'; credits: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('charge' as const),
    op: fc.nat(3),
    cost: fc.integer({ min: 1, max: 30 }),
    paid: fc.integer({ min: 0, max: 30 }), // 0: the request failed and its hold is only released
  }),
  // A cached answer: charged at once, no hold.
  fc.record({ kind: fc.constant('cached' as const), op: fc.nat(3), cost: fc.integer({ min: 1, max: 30 }) }),
  fc.record({
    kind: fc.constant('job' as const),
    op: fc.nat(3),
    held: fc.integer({ min: 1, max: 40 }),
    cost: fc.integer({ min: 0, max: 60 }),
    topUp: fc.integer({ min: 0, max: 10 }),
  }),
  fc.record({ kind: fc.constant('purchase' as const), credits: fc.integer({ min: 1, max: 500 }) }),
  fc.record({ kind: fc.constant('grant' as const), credits: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ kind: fc.constant('clawback' as const), credits: fc.integer({ min: 1, max: 80 }) }),
);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => closeTestApp(t));

/** Runs one step; a debit the balance cannot cover is refused (402) and must leave nothing behind. */
async function run(accountId: string, s: Step, tag: string): Promise<void> {
  const { ledger } = t.services;
  const id = `${tag}_${randomBase62(8)}`;
  /** false for a refused debit (402), the error for anything else. */
  const refused = (err: unknown) => {
    if (!(err instanceof AppError) || err.code !== 'insufficient_credits') throw err;
    return false;
  };
  switch (s.kind) {
    case 'charge': {
      const op = OPERATIONS[s.op]!;
      const ok = await ledger
        .holdRequest(accountId, `req_${id}`, s.cost, `Test ${op}`, op)
        .then(() => true, refused);
      if (ok) await ledger.endRequest(accountId, `req_${id}`, Math.min(s.paid, s.cost), `Test ${op}`);
      return;
    }
    case 'cached': {
      const op = OPERATIONS[s.op]!;
      await ledger.chargeRequest(accountId, `req_${id}`, s.cost, `Test cached ${op}`, op).catch(refused);
      return;
    }
    case 'job': {
      const op = OPERATIONS[s.op]!;
      const jobId = `job_${id}`;
      const held = await ledger
        .hold(accountId, jobId, s.held, 1, `Hold for ${op} job`, op)
        .then(() => true, refused);
      if (!held) return;
      if (s.topUp > 0) {
        await ledger.hold(accountId, jobId, s.topUp, 2, `Additional hold for ${op} job`, op).catch(refused);
      }
      await ledger.settleJob(accountId, jobId, s.cost, `${op} job`, op);
      return;
    }
    case 'purchase':
      await ledger.purchase(accountId, s.credits, `chk_${id}`, 'Test purchase');
      return;
    case 'grant':
      await ledger.grant(accountId, s.credits, 'Test grant');
      return;
    case 'clawback':
      await ledger.clawback(accountId, s.credits, 'Test clawback');
      return;
  }
}

type Key = string;
const key = (...parts: unknown[]): Key => parts.join('|');

/** Sums of the account's entries per (period start, type, operation), computed from the rows. */
async function fromEntries(accountId: string) {
  const rows = await t.services.store.db
    .selectFrom('credit_transactions')
    .select(['amount', 'type', 'operation', 'created_at'])
    .where('account_id', '=', accountId)
    .execute();
  const sums = new Map<Key, { amount: number; entries: number }>();
  const add = (k: Key, amount: number) => {
    const s = sums.get(k) ?? { amount: 0, entries: 0 };
    s.amount += amount;
    s.entries++;
    sums.set(k, s);
  };
  for (const r of rows) {
    const at = Number(r.created_at);
    const op = r.operation ?? '';
    add(key('hour', at - (at % HOUR), r.type, op), Number(r.amount));
    add(key('day', at - (at % DAY), r.type, op), Number(r.amount));
    add(key('all', 0, r.type, op), Number(r.amount));
  }
  return { rows, sums };
}

async function fromSums(accountId: string) {
  const rows = await t.services.store.db
    .selectFrom('ledger_sums')
    .selectAll()
    .where('account_id', '=', accountId)
    .execute();
  return new Map(
    rows.map((r) => [
      key(r.period, Number(r.start), r.type, r.operation),
      { amount: Number(r.amount), entries: Number(r.entries) },
    ]),
  );
}

describe('usage summary = ledger', () => {
  it('under concurrent charges, cached charges, holds, releases, purchases, grants and clawbacks', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 3 }),
        async (perAccount) => {
          runs++;
          const tag = randomBase62(6);
          const accounts = await Promise.all(perAccount.map(() => t.register()));
          const from = Date.now();
          // Every account's steps at once, and two accounts' streams interleaved.
          await Promise.all(
            perAccount.flatMap((steps, i) => steps.map((s) => run(accounts[i]!.accountId, s, tag))),
          );
          const to = Date.now() + 1;
          for (const { accountId, apiKey } of accounts) {
            const { rows, sums } = await fromEntries(accountId);
            expect(await fromSums(accountId)).toEqual(sums);
            const balance = await t.services.ledger.balance(accountId);
            expect(rows.reduce((s, r) => s + Number(r.amount), 0)).toBe(balance);

            // The API's summary of the range holding every entry (registration grant included).
            const res = await t.call(apiKey, {
              method: 'GET',
              url: `/v1/account/usage/summary?from=${from - 10 * 60_000}&to=${to}&bucket=hour`,
            });
            expect(res.statusCode).toBe(200);
            const summary = res.json();
            const inRange = rows.filter((r) => r.created_at >= summary.from && r.created_at < summary.to);
            const total = (type: string) =>
              inRange.filter((r) => r.type === type).reduce((s, r) => s + Number(r.amount), 0);
            expect(summary.totals).toEqual({
              spent: 0 - total('settled'),
              bought: total('purchase'),
              granted: total('grant'),
              clawedBack: 0 - total('clawback'),
              held: 0 - (total('hold') + total('release')),
              net: inRange.reduce((s, r) => s + Number(r.amount), 0),
            });
            const bucketNet = summary.buckets.reduce((s: number, b: { net: number }) => s + b.net, 0);
            expect(bucketNet).toBe(summary.totals.net);
            for (const op of OPERATIONS) {
              const spent =
                0 -
                inRange
                  .filter((r) => r.type === 'settled' && r.operation === op)
                  .reduce((s, r) => s + Number(r.amount), 0);
              const listed = summary.operations.find((o: { operation: string }) => o.operation === op);
              expect(listed?.spent ?? 0).toBe(spent);
            }
            // The listing's total is read from the same sums.
            const page = await t.call(apiKey, { method: 'GET', url: '/v1/account/usage?limit=1' });
            expect(page.json().total).toBe(rows.length);
          }
        },
      ),
      { numRuns: 12 },
    );
    expect(runs).toBe(12);
  }, 240_000);
});
