// A job is accepted once its row is committed; its queue message is sent after the caller has its
// answer. If that message never arrives (Redis lost it, the API process died before sending it),
// the sweeper re-sends the job once it has been due for two sweeps, and it runs once.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { bullQueueName } from '../../src/jobs/bullmq-queue.js';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
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

/** Deletes every message of the kind's BullMQ queue (embedded: the table is the queue; nothing to lose). */
async function loseMessages(app: TestApp, kind: string) {
  const { config } = app.services;
  if (!config.redisUrl) return;
  const connection = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(bullQueueName(kind), { connection, prefix: config.jobs.queuePrefix });
  expect(await queue.getJobCountByTypes('waiting')).toBeGreaterThan(0);
  await queue.obliterate({ force: true });
  expect(await queue.getJobCountByTypes('waiting', 'active', 'delayed', 'prioritized')).toBe(0);
  await queue.close();
  connection.disconnect();
}

describe(`a job whose queue message is lost (${mode} queue)`, () => {
  it('is re-sent by the sweeper and runs once, billed once', async () => {
    t = await createTestApp({ UNFURL_JOB_SWEEP_MS: '200' });
    registerTestKinds(t.services.jobs.registry);
    const runs = new Map<string, number>();
    const counted = echoKind('counted');
    t.services.jobs.registry.register({
      ...counted,
      run: (ctx, input) => {
        runs.set(ctx.jobId, (runs.get(ctx.jobId) ?? 0) + 1);
        return counted.run(ctx, input);
      },
    });
    const { accountId } = await t.register();
    const { service } = t.services.jobs;
    const plain = await service.submit({ accountId, kind: 'counted', input: { value: 'plain' } });
    const billed = await service.submit({
      accountId,
      kind: 'counted',
      input: { value: 'billed', estimate: 4, cost: 3 },
    });
    await service.flushed();
    await loseMessages(t, 'counted');

    const sent = Date.now();
    processing = await startJobProcessing(t.services, quietLogger);
    for (const { jobId } of [plain, billed]) {
      let row = await t.services.jobs.records.get(jobId);
      for (let i = 0; i < 400 && row?.status !== 'completed'; i++) {
        await new Promise((r) => setTimeout(r, 25));
        row = await t.services.jobs.records.get(jobId);
      }
      expect(row).toMatchObject({ status: 'completed', attempts: 1 });
      expect(runs.get(jobId)).toBe(1);
    }
    // Re-sent, not run from the lost message: not before it had been due for two sweeps.
    if (mode === 'BullMQ') expect(Date.now() - sent).toBeGreaterThanOrEqual(400);
    expect(await t.services.ledger.balance(accountId)).toBe(100 - 3);
  });
});
