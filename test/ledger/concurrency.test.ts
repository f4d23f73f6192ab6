// Billing under concurrency (DESIGN §5): N concurrent paid requests on a balance of B give exactly B
// successes, in one process and across two real server processes on the same database, whether each
// holds before its work or is a cache hit charged at once (hits arriving together share a
// transaction, and a batch the balance does not cover is redone a charge at a time); and a job's
// extra hold racing its settlement is either released with the rest or refused, never lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import type { Services } from '../../src/services.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { PAID_PATH, paidTestRoutes } from '../support/paid-route.js';
import { type ServerProcess, startServerProcess } from '../support/processes.js';
import { closeTestApp } from '../support/teardown.js';

const N = 40;
const B = 13;

interface Outcome {
  status: number;
  body: { error?: string; message?: string; ok?: boolean };
  remaining: string | undefined;
}

/** Brings a fresh account's balance from its 100 free credits down to `target` with an operator clawback. */
async function setBalance(services: Services, accountId: string, target: number) {
  const current = await services.ledger.balance(accountId);
  const r = await services.ledger.clawback(accountId, current - target, 'test: drain free credits');
  expect(r).toMatchObject({ taken: current - target, capped: false });
  expect(await services.ledger.balance(accountId)).toBe(target);
}

async function expectExactlyB(services: Services, accountId: string, outcomes: Outcome[]) {
  const ok = outcomes.filter((o) => o.status === 200);
  const refused = outcomes.filter((o) => o.status === 402);
  expect(outcomes.map((o) => o.status).filter((s) => s !== 200 && s !== 402)).toEqual([]);
  expect(ok).toHaveLength(B);
  expect(refused).toHaveLength(N - B);
  for (const o of refused) {
    expect(o.body.error).toBe('insufficient_credits');
    expect(o.body.message).toContain('/v1/credits/packages');
  }
  // Every success was charged against a different balance: B-1, B-2, …, 0.
  expect(ok.map((o) => Number(o.remaining)).sort((x, y) => x - y)).toEqual(
    Array.from({ length: B }, (_, i) => i),
  );
  expect(await services.ledger.balance(accountId)).toBe(0);
  const rows = await services.store.db
    .selectFrom('credit_transactions')
    .select(['type', 'amount'])
    .where('account_id', '=', accountId)
    .execute();
  expect(rows.reduce((sum, r) => sum + Number(r.amount), 0)).toBe(0);
  expect(rows.filter((r) => r.type === 'settled').map((r) => Number(r.amount))).toEqual(Array(B).fill(-1));
}

describe.each([
  ['held, then settled', 'false'],
  ['cache hits, charged at once', 'true'],
])(`${N} concurrent paid requests on a balance of ${B}: %s`, (_name, cached) => {
  let t: TestApp;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    // The default test configuration raises the rate limit far above N.
    t = await createTestApp({}, { extraRoutes: paidTestRoutes });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await closeTestApp(t);
  });

  it('in one process: exactly B succeed, the rest get 402 insufficient_credits', async () => {
    const { apiKey, accountId } = await t.register();
    await setBalance(t.services, accountId, B);
    const responses = await Promise.all(
      Array.from({ length: N }, () =>
        t.call(apiKey, { method: 'GET', url: PAID_PATH, query: { cost: '1', delayMs: '5', cached } }),
      ),
    );
    await expectExactlyB(
      t.services,
      accountId,
      responses.map((r) => ({
        status: r.statusCode,
        body: r.json(),
        remaining: r.headers['x-credits-remaining'] as string | undefined,
      })),
    );
  });

  it('across two API server processes on the same database: exactly B succeed', async () => {
    // This test's database is already migrated (by createTestApp), so the processes only open it.
    const started = await Promise.all([
      startServerProcess('test/support/paid-server.ts', t.env.env, 90_000),
      startServerProcess('test/support/paid-server.ts', t.env.env, 90_000),
    ]);
    servers.push(...started);
    const { apiKey, accountId } = await t.register();
    await setBalance(t.services, accountId, B);
    const outcomes = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await fetch(`${started[i % 2]!.url}${PAID_PATH}?cost=1&delayMs=5&cached=${cached}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        return {
          status: res.status,
          body: (await res.json()) as Outcome['body'],
          remaining: res.headers.get('x-credits-remaining') ?? undefined,
        };
      }),
    );
    await expectExactlyB(t.services, accountId, outcomes);
    const healthy = await Promise.all(started.map((s) => fetch(`${s.url}/health`).then((r) => r.status)));
    expect(healthy).toEqual([200, 200]);
    await Promise.all(started.map((s) => s.stop()));
    for (const s of started) expect(s.child.exitCode ?? s.child.signalCode, s.output()).toBe(0);
  }, 120_000);
});

describe("a job's extra hold racing its settlement", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => closeTestApp(t));

  it('is either released with the rest or refused; never held for good', async () => {
    const { accountId } = await t.register();
    const { ledger, store } = t.services;
    await ledger.grant(accountId, 10_000, 'test: room for holds');
    const jobs = Array.from({ length: 40 }, () => newId('job'));
    for (const jobId of jobs) await ledger.hold(accountId, jobId, 5, 1, 'first hold', 'test');
    const results = await Promise.all(
      jobs.map(async (jobId, i) => {
        // Alternate which one starts first so both orders happen.
        const hold = () =>
          ledger.hold(accountId, jobId, 3, 2, 'extra hold', 'test').then(() => 'held' as const);
        const settle = () => ledger.settleJob(accountId, jobId, 4, 'job', 'test');
        const [h, s] =
          i % 2
            ? await Promise.allSettled([hold(), settle()])
            : await Promise.allSettled([settle(), hold()]).then(([a, b]) => [b, a]);
        return { jobId, hold: h!, settle: s! };
      }),
    );
    let refused = 0;
    for (const r of results) {
      expect(r.settle).toMatchObject({ status: 'fulfilled', value: true });
      const rows = await store.db
        .selectFrom('credit_transactions')
        .select(['type', 'amount'])
        .where('job_id', '=', r.jobId)
        .execute();
      const sum = (type: string) =>
        rows.filter((x) => x.type === type).reduce((s, x) => s + Number(x.amount), 0);
      expect(sum('hold') + sum('release'), `${r.jobId}: ${JSON.stringify(rows)}`).toBe(0);
      expect(sum('settled')).toBe(-4);
      if (r.hold.status === 'rejected') {
        refused++;
        expect(sum('hold')).toBe(-5);
        expect((r.hold.reason as { code?: string }).code).toBe('conflict');
      } else {
        expect(sum('hold')).toBe(-8);
      }
    }
    // Net cost of the 40 jobs is exactly 40 × 4, whatever the interleaving.
    expect(await ledger.balance(accountId)).toBe(100 + 10_000 - 40 * 4);
    // Both interleavings happened.
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThan(jobs.length);
  });
});
