// A first attempt with nothing held and no webhook runs straight from its queue message: its row is
// written once, at the end, unless the job runs long enough to be seen (then it is claimed and
// shows `active`), fails, or asks for a hold. Its end lands only if nobody touched the row meanwhile.
import { afterEach, describe, expect, it } from 'vitest';
import type { FreshJob } from '../../src/jobs/queue.js';
import type { JobRow } from '../../src/store/schema.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { handRunner } from '../support/hand-runner.js';
import { type EchoInput, registerTestKinds } from '../support/test-kinds.js';

const dialect = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** A job accepted through the service (no consumers run in this app) and its queue message. */
async function accepted(input: EchoInput) {
  t ??= await createTestApp();
  registerTestKinds(t.services.jobs.registry);
  const { accountId } = await t.register();
  const { jobId } = await t.services.jobs.service.submit({ accountId, kind: 'echo', input });
  const row = (await t.services.jobs.records.get(jobId))!;
  const fresh: FreshJob = {
    kind: row.kind,
    accountId,
    input: row.input,
    maxAttempts: row.max_attempts,
    createdAt: row.created_at,
  };
  return { app: t, accountId, jobId, fresh };
}

const row = (jobId: string) => t!.services.jobs.records.get(jobId) as Promise<JobRow>;

describe(`jobs run straight from their queue message (${dialect})`, () => {
  it('a short job ends queued → completed in one write: one attempt, its real start and duration', async () => {
    const { app, jobId, fresh } = await accepted({ value: 'quick' });
    const runner = handRunner(app);
    const before = Date.now();
    await runner.runById(jobId, fresh);
    await runner.settle();
    const after = Date.now();
    const done = await row(jobId);
    expect(done).toMatchObject({
      status: 'completed',
      attempts: 1,
      cost: 0,
      locked_by: null,
      locked_until: null,
    });
    expect(JSON.parse(done.result!)).toMatchObject({ value: 'quick', attempt: 1 });
    expect(done.started_at).toBeGreaterThanOrEqual(before);
    expect(done.completed_at).toBeLessThanOrEqual(after);
    expect(done.duration_ms).toBe(done.completed_at! - done.started_at!);
  });

  it('a job still running after claimAfterMs is claimed: `active` under the lease, started when it began', async () => {
    // It sleeps a little over the 600 ms checked below: a timer may fire when Date.now(), in whole
    // ms, shows one ms less than it waited (599 was seen once).
    const { app, jobId, fresh } = await accepted({ value: 'slow', sleepMs: 610 });
    const runner = handRunner(app, { claimAfterMs: 50 });
    const began = Date.now();
    const running = runner.runById(jobId, fresh);
    expect((await row(jobId)).status).toBe('queued');
    let seen: JobRow | undefined;
    for (let i = 0; i < 100 && !seen; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const r = await row(jobId);
      if (r.status === 'active') seen = r;
    }
    expect(seen).toMatchObject({ status: 'active', attempts: 1, locked_by: runner.workerId });
    // The start recorded is when the run began, not when the claim was written (≥ 50 ms later).
    expect(seen!.started_at).toBeGreaterThanOrEqual(began);
    expect(seen!.started_at).toBeLessThan(began + 40);
    await running;
    await runner.settle();
    const done = await row(jobId);
    expect(done).toMatchObject({
      status: 'completed',
      attempts: 1,
      locked_by: null,
      started_at: seen!.started_at,
    });
    expect(done.duration_ms).toBeGreaterThanOrEqual(600);
  });

  it('a run whose row another worker took meanwhile does not end the job', async () => {
    const { app, jobId, fresh } = await accepted({ value: 'contested' });
    const [other] = await app.services.jobs.records.claimManyById([{ id: jobId }], 'w_other', 60_000);
    expect(other).toMatchObject({ status: 'active', attempts: 1 });
    const runner = handRunner(app);
    await runner.runById(jobId, fresh);
    await runner.settle();
    expect(await row(jobId)).toMatchObject({
      status: 'active',
      attempts: 1,
      locked_by: 'w_other',
      result: null,
    });
  });

  it('an ended job is not ended again by a late run of its first message', async () => {
    const { app, jobId, fresh } = await accepted({ value: 'twice' });
    const runner = handRunner(app);
    await runner.runById(jobId, fresh);
    await runner.settle();
    const first = await row(jobId);
    const late = handRunner(app);
    await late.runById(jobId, fresh);
    await late.settle();
    expect(await row(jobId)).toEqual(first);
  });

  it('a retryable failure is claimed and put back with backoff; the next attempt completes', async () => {
    const { app, jobId, fresh } = await accepted({ value: 'flaky', failTimes: 1 });
    const runner = handRunner(app);
    const attemptStarted = Date.now();
    await runner.runById(jobId, fresh);
    const waiting = await row(jobId);
    expect(waiting).toMatchObject({ status: 'queued', attempts: 1, locked_by: null });
    expect(waiting.error).toContain('upstream hiccup on attempt 1');
    // Put back with the hand runner's backoff (20 ms, ±20 % jitter) after the failed attempt, measured
    // from the attempt itself rather than from this line, which a busy machine may reach much later.
    expect(waiting.run_at).toBeGreaterThanOrEqual(attemptStarted + 16);
    expect(waiting.run_at).toBeLessThanOrEqual(Date.now() + 24);
    // The retry comes as a plain message (no `fresh`): claimed by id once due.
    await runner.runById(jobId);
    await runner.settle();
    const done = await row(jobId);
    expect(done).toMatchObject({ status: 'completed', attempts: 2 });
    expect(JSON.parse(done.result!)).toMatchObject({ attempt: 2 });
  });

  it('a permanent failure fails at once after one attempt, costing nothing', async () => {
    const { app, accountId, jobId, fresh } = await accepted({ value: 'broken', permanent: true });
    const runner = handRunner(app);
    await runner.runById(jobId, fresh);
    await runner.settle();
    expect(await row(jobId)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error_code: 'not_found',
      cost: 0,
      locked_by: null,
    });
    expect(await app.services.ledger.balance(accountId)).toBe(100);
  });

  it('a hold asked for while running claims the job first; its end settles what was held', async () => {
    const { app, accountId, jobId, fresh } = await accepted({ value: 'grows', holdMore: 5, cost: 3 });
    const runner = handRunner(app);
    await runner.runById(jobId, fresh);
    await runner.settle();
    expect(await row(jobId)).toMatchObject({ status: 'completed', attempts: 1, held: 5, cost: 3 });
    const ledger = await app.services.store.db
      .selectFrom('credit_transactions')
      .select(['type', 'amount'])
      .where('job_id', '=', jobId)
      .execute();
    expect(ledger.map((r) => [r.type, Number(r.amount)]).sort()).toEqual([
      ['hold', -5],
      ['release', 5],
      ['settled', -3],
    ]);
    expect(await app.services.ledger.balance(accountId)).toBe(97);
  });
});
