// BullMQ bundles: first attempts accepted together (nothing held, no webhook) share a message of at
// most the kind's concurrency; every job still runs once, under the kind's concurrency; a bundle
// delivered again after its worker stalled claims each job before running it.
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { bullQueueName } from '../../src/jobs/bullmq-queue.js';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import type { JobRow } from '../../src/store/schema.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { quietLogger } from '../support/quiet-logger.js';
import { echoKind, registerTestKinds } from '../support/test-kinds.js';

let t: TestApp | null = null;
let processing: JobProcessing | null = null;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await processing?.stop();
  processing = null;
  for (const close of closers.splice(0).reverse()) await close();
  await t?.close();
  t = null;
});

/** An app with a `bundled` kind (concurrency 3) that records every run and how many overlap. */
async function setup(overrides: Record<string, string> = {}) {
  t = await createTestApp(overrides);
  registerTestKinds(t.services.jobs.registry);
  const runs = new Map<string, number>();
  const overlap = { now: 0, most: 0 };
  const kind = echoKind('bundled', { concurrency: 3 });
  t.services.jobs.registry.register({
    ...kind,
    run: async (ctx, input) => {
      runs.set(ctx.jobId, (runs.get(ctx.jobId) ?? 0) + 1);
      overlap.most = Math.max(overlap.most, ++overlap.now);
      try {
        return await kind.run(ctx, input);
      } finally {
        overlap.now--;
      }
    },
  });
  const { config } = t.services;
  const connection = new Redis(config.redisUrl!, { maxRetriesPerRequest: null });
  const queue = new Queue(bullQueueName('bundled'), { connection, prefix: config.jobs.queuePrefix });
  closers.push(
    () => queue.close(),
    async () => connection.disconnect(),
  );
  const { accountId } = await t.register();
  return { app: t, runs, overlap, queue, accountId };
}

async function untilEnded(app: TestApp, ids: readonly string[]): Promise<JobRow[]> {
  for (let i = 0; i < 600; i++) {
    const rows = await Promise.all(ids.map((id) => app.services.jobs.records.get(id)));
    if (rows.every((r) => r?.status === 'completed' || r?.status === 'failed')) return rows as JobRow[];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('jobs did not end');
}

// Needs Redis: CI's second (distributed) pass has it; the embedded queue sends no messages.
describe.skipIf(!process.env.REDIS_URL)('BullMQ bundles of first attempts', () => {
  it('a burst travels in bundles of at most the concurrency; each job runs once, at most 3 at once', async () => {
    const { app, runs, overlap, queue, accountId } = await setup();
    const submits = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        app.services.jobs.service.submit({
          accountId,
          kind: 'bundled',
          input: { value: `b${i}`, sleepMs: 40 },
        }),
      ),
    );
    await app.services.jobs.service.flushed();
    const messages = await queue.getJobs(['waiting']);
    const carried = messages.map((m) => (m.data.jobs ? m.data.jobs.length : 1));
    expect(carried.reduce((a, b) => a + b, 0)).toBe(20);
    expect(messages.length).toBeLessThan(20);
    expect(Math.max(...carried)).toBe(3);

    processing = await startJobProcessing(app.services, quietLogger);
    const rows = await untilEnded(
      app,
      submits.map((s) => s.jobId),
    );
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'completed', attempts: 1, locked_by: null });
      expect(runs.get(row.id)).toBe(1);
    }
    expect(overlap.most).toBeLessThanOrEqual(3);
    expect(overlap.most).toBeGreaterThan(1);
  });

  it('a bundle delivered again after its worker stalled claims each job first: an ended one is not run', async () => {
    const { app, runs, queue, accountId } = await setup({ UNFURL_JOB_LEASE_MS: '1000' });
    const ids = (
      await Promise.all(
        ['s0', 's1', 's2'].map((value) =>
          app.services.jobs.service.submit({ accountId, kind: 'bundled', input: { value } }),
        ),
      )
    ).map((s) => s.jobId);
    await app.services.jobs.service.flushed();
    const [message] = await queue.getJobs(['waiting']);
    expect(message?.data.jobs).toHaveLength(3);

    // A worker takes the bundle and dies before running anything: its lock is never renewed.
    const { config } = app.services;
    const dying = new Worker(bullQueueName('bundled'), () => new Promise(() => {}), {
      connection: new Redis(config.redisUrl!, { maxRetriesPerRequest: null }),
      prefix: config.jobs.queuePrefix,
      lockDuration: 1000,
    });
    for (let i = 0; i < 200 && (await queue.getActiveCount()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await queue.getActiveCount()).toBe(1);
    await dying.close(true);
    // Meanwhile one of its jobs ended elsewhere (say, re-sent by a sweeper and run).
    await app.services.store.db
      .updateTable('jobs')
      .set({ status: 'completed', attempts: 1, result: '"done elsewhere"', completed_at: Date.now() })
      .where('id', '=', ids[0]!)
      .execute();

    processing = await startJobProcessing(app.services, quietLogger);
    const rows = await untilEnded(app, ids);
    expect(rows[0]).toMatchObject({ status: 'completed', result: '"done elsewhere"' });
    expect(runs.get(ids[0]!)).toBeUndefined();
    for (const row of rows.slice(1)) {
      expect(row).toMatchObject({ status: 'completed', attempts: 1 });
      expect(runs.get(row.id)).toBe(1);
    }
  });
});
