// Model-based test of the credit ledger (src/billing/ledger.ts) on the real database: random
// sequences of grants, purchases, job holds and settlements, request holds and their ends (and the
// sweeper's release of a dead request's hold) and clawbacks, run
// against the ledger and a plain in-memory model, with the ledger's invariants checked after each.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/billing/ledger.js';
import { AppError } from '../../src/errors.js';
import { newId, randomBase62 } from '../../src/ids.js';
import type { Db } from '../../src/store/db.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

interface JobModel {
  held: number;
  seqs: Set<number>;
  ended: boolean;
}

interface Model {
  balance: number;
  rows: number;
  jobs: Map<number, JobModel>;
  purchases: Set<number>;
  requests: Map<number, RequestModel>;
  clawbackRefs: Set<number>;
  /** Clawbacks capped at the balance (flagged for an operator). */
  flagged: number;
}

interface Real {
  ledger: Ledger;
  db: Db;
  accountId: string;
  /** Prefix that makes this run's job, checkout and request ids unique in the shared database. */
  tag: string;
}

const jobId = (r: Real, j: number) => `job_${r.tag}_${j}`;
const requestId = (r: Real, q: number) => `req_${r.tag}_${q}`;

async function expectAppError(p: Promise<unknown>, code: string) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
}

/** The ledger's invariants, checked against the database after every command. */
async function check(m: Model, r: Real) {
  const balance = await r.ledger.balance(r.accountId);
  expect(balance).toBe(m.balance);
  expect(balance).toBeGreaterThanOrEqual(0);
  const rows = await r.db
    .selectFrom('credit_transactions')
    .select(['type', 'amount', 'job_id', 'flagged'])
    .where('account_id', '=', r.accountId)
    .execute();
  // A failed debit leaves no row; every success leaves exactly the rows the model counts.
  expect(rows).toHaveLength(m.rows);
  expect(rows.reduce((s, x) => s + Number(x.amount), 0)).toBe(balance);
  expect(rows.filter((x) => Number(x.flagged) === 1).map((x) => x.type)).toEqual(
    Array(m.flagged).fill('clawback'),
  );
  const perJob = new Map<string, { release: number; settled: number; holds: number }>();
  for (const x of rows) {
    if (!x.job_id?.startsWith('job_')) continue;
    const c = perJob.get(x.job_id) ?? { release: 0, settled: 0, holds: 0 };
    if (x.type === 'release') c.release++;
    if (x.type === 'settled') c.settled++;
    if (x.type === 'hold') c.holds++;
    perJob.set(x.job_id, c);
  }
  for (const [id, c] of perJob) {
    expect(c.release, id).toBeLessThanOrEqual(1);
    expect(c.settled, id).toBeLessThanOrEqual(1);
    expect(c.holds, id).toBeLessThanOrEqual(2);
  }
  for (const [j, job] of m.jobs) {
    expect(await r.ledger.heldFor(jobId(r, j))).toBe(job.held);
  }
}

type Cmd = fc.AsyncCommand<Model, Real>;

class Grant implements Cmd {
  constructor(readonly amount: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const balance = await r.ledger.grant(r.accountId, this.amount, 'model grant');
    m.balance += this.amount;
    m.rows++;
    expect(balance).toBe(m.balance);
    await check(m, r);
  }
  toString = () => `grant(${this.amount})`;
}

class Purchase implements Cmd {
  constructor(
    readonly checkout: number,
    readonly amount: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const credited = await r.ledger.purchase(
      r.accountId,
      this.amount,
      `chk_${r.tag}_${this.checkout}`,
      'model',
    );
    const fresh = !m.purchases.has(this.checkout);
    expect(credited).toBe(fresh);
    if (fresh) {
      m.purchases.add(this.checkout);
      m.balance += this.amount;
      m.rows++;
    }
    await check(m, r);
  }
  toString = () => `purchase(chk ${this.checkout}, ${this.amount})`;
}

class Hold implements Cmd {
  constructor(
    readonly job: number,
    readonly seq: 1 | 2,
    readonly amount: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const job = m.jobs.get(this.job) ?? { held: 0, seqs: new Set<number>(), ended: false };
    const call = r.ledger.hold(r.accountId, jobId(r, this.job), this.amount, this.seq, 'model hold', 'model');
    if (job.ended) {
      await expectAppError(call, 'conflict');
    } else if (job.seqs.has(this.seq)) {
      expect(await call).toBe(m.balance); // a retried hold is not taken twice
    } else if (this.amount > m.balance) {
      await expectAppError(call, 'insufficient_credits');
    } else {
      expect(await call).toBe(m.balance - this.amount);
      m.balance -= this.amount;
      m.rows++;
      job.held += this.amount;
      job.seqs.add(this.seq);
      m.jobs.set(this.job, job);
    }
    await check(m, r);
  }
  toString = () => `hold(job ${this.job}, seq ${this.seq}, ${this.amount})`;
}

class SettleJob implements Cmd {
  constructor(
    readonly job: number,
    readonly cost: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const job = m.jobs.get(this.job) ?? { held: 0, seqs: new Set<number>(), ended: false };
    const settled = await r.ledger.settleJob(
      r.accountId,
      jobId(r, this.job),
      this.cost,
      'model job',
      'model',
    );
    expect(settled).toBe(!job.ended);
    if (!job.ended) {
      const charge = Math.min(this.cost, job.held); // never more than was held
      m.balance += job.held - charge;
      m.rows += 1 + (charge > 0 ? 1 : 0); // release, and settled when there is a charge
      job.held = 0;
      job.ended = true;
      m.jobs.set(this.job, job);
    }
    await check(m, r);
  }
  toString = () => `settleJob(job ${this.job}, cost ${this.cost})`;
}

interface RequestModel {
  held: number;
  state: 'holding' | 'ended' | 'refused';
}

class HoldRequest implements Cmd {
  constructor(
    readonly request: number,
    readonly amount: number,
  ) {}
  // A request id holds once: the next request has a new id.
  check = (m: Readonly<Model>) => !m.requests.has(this.request);
  async run(m: Model, r: Real) {
    const call = r.ledger.holdRequest(
      r.accountId,
      requestId(r, this.request),
      this.amount,
      'model request',
      'request',
    );
    if (this.amount > m.balance) {
      await expectAppError(call, 'insufficient_credits');
      m.requests.set(this.request, { held: 0, state: 'refused' });
    } else {
      m.balance -= this.amount;
      m.rows++;
      m.requests.set(this.request, { held: this.amount, state: 'holding' });
      expect(await call).toBe(m.balance);
    }
    await check(m, r);
  }
  toString = () => `holdRequest(req ${this.request}, ${this.amount})`;
}

/** Ends an open hold (release, and settled when cost > 0); anything else changes nothing. */
function endModelRequest(m: Model, q: RequestModel, cost: number): void {
  const charge = Math.min(cost, q.held);
  m.balance += q.held - charge;
  m.rows += 1 + (charge > 0 ? 1 : 0);
  q.state = 'ended';
  q.held = 0;
}

class EndRequest implements Cmd {
  constructor(
    readonly request: number,
    readonly cost: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const result = await r.ledger.endRequest(
      r.accountId,
      requestId(r, this.request),
      this.cost,
      'model request',
    );
    const q = m.requests.get(this.request);
    if (q?.state === 'holding') {
      endModelRequest(m, q, this.cost);
      expect(result).toBe(m.balance);
    } else {
      expect(result).toBeNull();
    }
    await check(m, r);
  }
  toString = () => `endRequest(req ${this.request}, cost ${this.cost})`;
}

/** The sweeper after a crash: every open request hold is given back, none charged. */
class ReleaseStaleRequests implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    const open = [...m.requests.values()].filter((q) => q.state === 'holding');
    const released = await r.ledger.releaseStaleRequestHolds(0, Date.now() + 1);
    for (const q of open) endModelRequest(m, q, 0);
    expect(released).toBeGreaterThanOrEqual(open.length);
    await check(m, r);
  }
  toString = () => 'releaseStaleRequestHolds()';
}

class Clawback implements Cmd {
  constructor(
    readonly amount: number,
    readonly ref: number | null,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const reference = this.ref === null ? undefined : `clawback:${r.tag}:${this.ref}`;
    const result = await r.ledger.clawback(r.accountId, this.amount, 'model clawback', reference);
    if (this.ref !== null && m.clawbackRefs.has(this.ref)) {
      expect(result).toEqual({ taken: 0, capped: false, duplicate: true });
    } else {
      const taken = Math.min(this.amount, m.balance); // capped at the balance, never below zero
      expect(result).toEqual({ taken, capped: taken < this.amount, duplicate: false });
      m.balance -= taken;
      m.rows++;
      if (this.ref !== null) m.clawbackRefs.add(this.ref);
      if (taken < this.amount) m.flagged++;
    }
    await check(m, r);
  }
  toString = () => `clawback(${this.amount}${this.ref === null ? '' : `, ref ${this.ref}`})`;
}

const JOBS = 4;
const commands = [
  fc.integer({ min: 1, max: 60 }).map((a) => new Grant(a)),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 100 }))
    .map(([c, a]) => new Purchase(c, a)),
  fc
    .tuple(
      fc.integer({ min: 0, max: JOBS - 1 }),
      fc.constantFrom(1 as const, 2 as const),
      fc.integer({ min: 1, max: 50 }),
    )
    .map(([j, s, a]) => new Hold(j, s, a)),
  fc
    .tuple(fc.integer({ min: 0, max: JOBS - 1 }), fc.integer({ min: 0, max: 120 }))
    .map(([j, c]) => new SettleJob(j, c)),
  fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 40 }))
    .map(([q, a]) => new HoldRequest(q, a)),
  fc
    .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 40 }))
    .map(([q, c]) => new EndRequest(q, c)),
  fc.constant(new ReleaseStaleRequests()),
  fc
    .tuple(fc.integer({ min: 1, max: 200 }), fc.option(fc.integer({ min: 0, max: 2 }), { freq: 2 }))
    .map(([a, ref]) => new Clawback(a, ref)),
];

describe('credit ledger against an in-memory model', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => closeTestApp(t));

  it('keeps balance = model = sum of entries, never negative, one release/settle per job, no row for a failed debit', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40 }), async (cmds) => {
        runs++;
        // A fresh account per run, starting empty (the model's starting point).
        const accountId = newId('acc');
        await t.services.store.db
          .insertInto('accounts')
          .values({
            id: accountId,
            email: `${accountId.toLowerCase()}@model.example`,
            password_hash: 'scrypt$-',
            webhook_secret: 'whsec_model',
            balance: 0,
            created_at: Date.now(),
          })
          .execute();
        const setup = () => ({
          model: {
            balance: 0,
            rows: 0,
            jobs: new Map(),
            purchases: new Set<number>(),
            requests: new Map<number, RequestModel>(),
            clawbackRefs: new Set<number>(),
            flagged: 0,
          } satisfies Model,
          real: {
            ledger: t.services.ledger,
            db: t.services.store.db,
            accountId,
            tag: randomBase62(10),
          } satisfies Real,
        });
        await fc.asyncModelRun(setup, cmds);
      }),
      { numRuns: 40 },
    );
    expect(runs).toBeGreaterThanOrEqual(40);
  });
});
