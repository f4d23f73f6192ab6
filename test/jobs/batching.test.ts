// The worker's batched SQL (claims by id in one UPDATE, plain endings in one UPDATE): jobs that
// share a statement still end once each, billed once each; a job this worker lost is not ended by
// its neighbours' batch; a worker that dies between claiming and finishing loses nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import type { JobRow } from '../../src/store/schema.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { handRunner } from '../support/hand-runner.js';
import { until } from '../support/job-processes.js';
import { quietLogger } from '../support/quiet-logger.js';
import { echoKind, registerTestKinds } from '../support/test-kinds.js';

const mode = process.env.REDIS_URL ? 'BullMQ' : 'embedded';
let t: TestApp | null = null;
let processing: JobProcessing | null = null;
afterEach(async () => {
  await processing?.stop();
  processing = null;
  await t?.close();
  t = null;
});

/** A test app with the echo kinds and a `counted` kind that records every run it starts. */
async function setup(overrides: Record<string, string> = {}) {
  t = await createTestApp({ UNFURL_JOB_POLL_MS: '50', ...overrides });
  registerTestKinds(t.services.jobs.registry);
  const runs = new Map<string, number>();
  const counted = echoKind('counted', { concurrency: 32 });
  const inner = counted.run;
  t.services.jobs.registry.register({
    ...counted,
    run: (ctx, input) => {
      runs.set(ctx.jobId, (runs.get(ctx.jobId) ?? 0) + 1);
      return inner(ctx, input);
    },
  });
  return { t, runs };
}

async function ledgerOf(app: TestApp, jobId: string) {
  const rows = await app.services.store.db
    .selectFrom('credit_transactions')
    .select(['type', 'amount'])
    .where('job_id', '=', jobId)
    .execute();
  return rows.map((r) => [r.type, Number(r.amount)]).sort();
}

describe(`batched claims and endings (${mode} queue)`, () => {
  it('many jobs ending together: each completes once, billed exactly once', async () => {
    const { t, runs } = await setup();
    processing = await startJobProcessing(t.services, quietLogger);
    const { accountId } = await t.register();
    const billed = 30;
    const plain = 60;
    // Submitted together so that claims and endings share statements.
    const submits = await Promise.all(
      Array.from({ length: billed + plain }, (_, i) =>
        t.services.jobs.service.submit({
          accountId,
          kind: 'counted',
          input: i < billed ? { value: `b${i}`, estimate: 2, cost: 1 } : { value: `p${i}` },
        }),
      ),
    );
    const ids = submits.map((s) => s.jobId);
    const rows = await until(
      'every job to end',
      async () => {
        const r = await t.services.store.db.selectFrom('jobs').selectAll().where('id', 'in', ids).execute();
        return r.every((j) => j.status === 'completed' || j.status === 'failed') ? r : undefined;
      },
      20_000,
      25,
    );
    expect(rows).toHaveLength(ids.length);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [i, id] of ids.entries()) {
      const row = byId.get(id)!;
      expect(row, id).toMatchObject({
        status: 'completed',
        attempts: 1,
        locked_by: null,
        locked_until: null,
      });
      expect(JSON.parse(row.result!).value).toBe(i < billed ? `b${i}` : `p${i}`);
      expect(row.completed_at).toBeGreaterThanOrEqual(row.started_at!);
      expect(row.duration_ms).toBe(row.completed_at! - row.started_at!);
      expect(row.result_expires_at).toBeGreaterThan(row.completed_at!);
      expect(runs.get(id), id).toBe(1);
      if (i < billed) {
        expect(Number(row.cost)).toBe(1);
        expect(await ledgerOf(t, id)).toEqual([
          ['hold', -2],
          ['release', 2],
          ['settled', -1],
        ]);
      } else {
        expect(Number(row.cost)).toBe(0);
        expect(await ledgerOf(t, id)).toEqual([]);
      }
    }
    expect(await t.services.ledger.balance(accountId)).toBe(100 - billed);
    // Nothing runs again afterwards (no second delivery, no sweep) .
    await new Promise((r) => setTimeout(r, 500));
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  });

  it('a job id delivered several times in one claim batch runs once', async () => {
    const { t, runs } = await setup();
    const runner = handRunner(t);
    const { accountId } = await t.register();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        (await t.services.jobs.service.submit({ accountId, kind: 'counted', input: { value: `d${i}` } }))
          .jobId,
      );
    }
    // The same message three times (a redelivery racing the first), plus the others: one tick.
    await Promise.all([ids[0]!, ids[0]!, ids[1]!, ids[0]!, ids[2]!].map((id) => runner.runById(id)));
    await runner.settle();
    for (const id of ids) {
      expect(await t.services.jobs.records.get(id)).toMatchObject({ status: 'completed', attempts: 1 });
      expect(runs.get(id)).toBe(1);
    }
  });

  it('claims many by id in one statement: only jobs that are due and free are taken', async () => {
    const { t } = await setup();
    const { records } = t.services.jobs;
    const { accountId } = await t.register();
    const submit = async (value: string) =>
      (await t.services.jobs.service.submit({ accountId, kind: 'counted', input: { value } })).jobId;
    const [due, later, held, ended] = [
      await submit('due'),
      await submit('later'),
      await submit('held'),
      await submit('ended'),
    ];
    const db = t.services.store.db;
    await db
      .updateTable('jobs')
      .set({ run_at: Date.now() + 60_000 })
      .where('id', '=', later)
      .execute();
    expect((await records.claimManyById([{ id: held }], 'w_other', 60_000)).map((r) => r.id)).toEqual([held]);
    await db
      .updateTable('jobs')
      .set({ status: 'completed', locked_by: null })
      .where('id', '=', ended)
      .execute();

    const claimed = await records.claimManyById(
      [due, later, held, ended, 'job_missing', due].map((id) => ({ id })),
      'w_me',
      60_000,
    );
    expect(claimed.map((r) => r.id)).toEqual([due]);
    expect(claimed[0]).toMatchObject({ status: 'active', attempts: 1, locked_by: 'w_me' });
    expect(await records.get(held)).toMatchObject({ locked_by: 'w_other', attempts: 1 });
    expect(await records.get(later)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(await records.get(ended)).toMatchObject({ status: 'completed', attempts: 0 });
  });

  it('a batch of endings leaves alone a job this worker has lost', async () => {
    const { t } = await setup();
    const { records } = t.services.jobs;
    const { accountId } = await t.register();
    const ids: string[] = [];
    for (const value of ['kept', 'lost', 'failing']) {
      ids.push(
        (await t.services.jobs.service.submit({ accountId, kind: 'counted', input: { value } })).jobId,
      );
    }
    const mine = await records.claimManyById(
      ids.map((id) => ({ id })),
      'w_me',
      60_000,
    );
    expect(mine).toHaveLength(3);
    const [kept, lost, failing] = ids.map((id) => mine.find((r) => r.id === id)!) as [JobRow, JobRow, JobRow];
    // Its lease ran out and another worker took it meanwhile.
    await t.services.store.db
      .updateTable('jobs')
      .set({ locked_by: 'w_other', attempts: 2 })
      .where('id', '=', lost.id)
      .execute();
    const ended = await records.finishMany(
      [
        { job: kept, outcome: { status: 'completed', result: { value: 'kept', n: [1, 2] }, cost: 0 } },
        { job: lost, outcome: { status: 'completed', result: { value: 'stolen' }, cost: 0 } },
        {
          job: failing,
          outcome: { status: 'failed', error: 'no such thing', errorCode: 'not_found', cost: 0 },
        },
      ],
      'w_me',
      3600_000,
    );
    expect(ended.map((r) => r.id).sort()).toEqual([kept.id, failing.id].sort());
    expect(await records.get(kept.id)).toMatchObject({
      status: 'completed',
      result: JSON.stringify({ value: 'kept', n: [1, 2] }),
      error: null,
      cost: 0,
      locked_by: null,
    });
    expect(await records.get(failing.id)).toMatchObject({
      status: 'failed',
      result: null,
      error: 'no such thing',
      error_code: 'not_found',
      locked_by: null,
    });
    expect(await records.get(lost.id)).toMatchObject({
      status: 'active',
      locked_by: 'w_other',
      result: null,
    });
  });

  it('a worker that dies between its batched claim and the finish: the job runs again, billed once', async () => {
    const { t, runs } = await setup({ UNFURL_JOB_LEASE_MS: '600', UNFURL_JOB_SWEEP_MS: '200' });
    const { accountId } = await t.register();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        (
          await t.services.jobs.service.submit({
            accountId,
            kind: 'counted',
            input: i % 2 ? { value: `c${i}`, estimate: 3, cost: 2 } : { value: `c${i}` },
          })
        ).jobId,
      );
    }
    // The dead worker's claim committed (one statement for all four); it never ran or finished them.
    const taken = await t.services.jobs.records.claimManyById(
      ids.map((id) => ({ id })),
      'w_dead',
      600,
    );
    expect(taken).toHaveLength(4);
    processing = await startJobProcessing(t.services, quietLogger);
    const rows = await until(
      'the claimed jobs to complete again',
      async () => {
        const r = await Promise.all(ids.map((id) => t.services.jobs.records.get(id)));
        return r.every((j) => j?.status === 'completed') ? (r as JobRow[]) : undefined;
      },
      20_000,
      25,
    );
    for (const [i, row] of rows.entries()) {
      expect(row).toMatchObject({ status: 'completed', attempts: 2, locked_by: null });
      // On BullMQ an unbilled job's first message runs it straight away, while the dead worker's
      // lease still stands: that run's end does not land (the row is not queued), so it ran twice
      // and ended once. Billed jobs are claimed before they run.
      expect(runs.get(row.id)).toBe(mode === 'BullMQ' && i % 2 === 0 ? 2 : 1);
      expect(await ledgerOf(t, row.id)).toEqual(
        i % 2
          ? [
              ['hold', -3],
              ['release', 3],
              ['settled', -2],
            ]
          : [],
      );
    }
    expect(await t.services.ledger.balance(accountId)).toBe(100 - 2 * 2);
  });
});
