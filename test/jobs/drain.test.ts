// Stopping job processing in-process (what SIGTERM does in serve/worker): stop() must not return
// while a job is being claimed or run — else the process closes its database under a running job,
// which is left `active` until its lease runs out and costs it an attempt.
import { afterEach, describe, expect, it } from 'vitest';
import { startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { disposeEnv } from '../support/job-processes.js';
import { quietLogger } from '../support/quiet-logger.js';
import { registerTestKinds, testJobRoutes } from '../support/test-kinds.js';

let t: TestApp | null = null;
afterEach(async () => {
  if (!t) return;
  await t.app.close();
  await t.services.close();
  await disposeEnv(t.env);
  t = null;
});

describe(`stopping job processing (${process.env.REDIS_URL ? 'BullMQ' : 'embedded'} queue)`, () => {
  it('does not return while a job submitted just before is being claimed', async () => {
    t = await createTestApp({ UNFURL_JOB_POLL_MS: '10000' }, { extraRoutes: testJobRoutes });
    registerTestKinds(t.services.jobs.registry);
    const processing = await startJobProcessing(t.services, quietLogger);
    const { accountId } = await t.register();
    // Nothing runs, so nothing holds stop() up — except the claim the submit has just started.
    const { jobId } = await t.services.jobs.service.submit({
      accountId,
      kind: 'echo',
      input: { value: 'just in time', sleepMs: 200 },
    });
    const ids = [jobId];
    await processing.stop();
    const atStop = await Promise.all(ids.map((id) => t!.services.jobs.records.get(id)));
    for (const r of atStop) {
      // Either it ran to its end before stop() returned, or it was never taken.
      expect(['completed', 'queued']).toContain(r?.status);
      expect(r?.locked_by).toBeNull();
    }
    // Nothing runs after stop() returned.
    await new Promise((r) => setTimeout(r, 700));
    const later = await Promise.all(ids.map((id) => t!.services.jobs.records.get(id)));
    expect(later.map((r) => [r?.status, r?.attempts])).toEqual(atStop.map((r) => [r?.status, r?.attempts]));
  });
});

describe(`a forced stop cuts a job short (${process.env.REDIS_URL ? 'BullMQ' : 'embedded'} queue)`, () => {
  it('does not count the interrupted attempt, even on the last one: the job still runs and bills once', async () => {
    t = await createTestApp(
      { UNFURL_JOB_BACKOFF_MS: '20', UNFURL_JOB_POLL_MS: '50', UNFURL_JOB_SWEEP_MS: '200' },
      { extraRoutes: testJobRoutes },
    );
    registerTestKinds(t.services.jobs.registry);
    const first = await startJobProcessing(t.services, quietLogger);
    const { accountId } = await t.register();
    const { jobId } = await t.services.jobs.service.submit({
      accountId,
      kind: 'echo',
      input: { value: 'last try', sleepMs: 700, failTimes: 2, estimate: 5, cost: 2 },
    });
    // Wait until the third (last) attempt is running, then stop with almost no grace.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const row = await t.services.jobs.records.get(jobId);
      if (row?.status === 'active' && row.attempts === 3) break;
      if (Date.now() > deadline) throw new Error(`never reached attempt 3: ${row?.status}/${row?.attempts}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.stop(100);
    const stopped = await t.services.jobs.records.get(jobId);
    expect([stopped?.status, stopped?.attempts]).toEqual(['queued', 2]);

    const second = await startJobProcessing(t.services, quietLogger);
    try {
      for (;;) {
        const row = await t.services.jobs.records.get(jobId);
        if (row?.status === 'completed' || row?.status === 'failed') {
          expect([row.status, row.attempts, row.cost]).toEqual(['completed', 3, 2]);
          break;
        }
        if (Date.now() > deadline + 20_000) throw new Error(`job stuck in ${row?.status}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await second.stop();
    }
    expect(await t.services.ledger.heldFor(jobId)).toBe(0);
    expect(await t.services.ledger.balance(accountId)).toBe(98);
  });
});
