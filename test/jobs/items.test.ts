// Job items (a crawl's pages): stored in order, read back in slices under an item count and a byte
// budget — one oversized item still comes alone — and dropped with the job's expired result.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ItemAppender } from '../../src/jobs/items.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const MB = 1024 * 1024;
const item = (n: number, size: number) => ({ n, text: 'x'.repeat(size) });

describe('ItemAppender', () => {
  it('stores each item of a slow producer within the linger time, and batches a fast one', async () => {
    const items = t.services.jobs.items;
    const writes: number[] = [];
    const counted = {
      append: (jobId: string, from: number, batch: readonly unknown[]) => {
        writes.push(batch.length);
        return items.append(jobId, from, batch);
      },
    };
    const slow = new ItemAppender(counted, 'job_slow', { lingerMs: 30 });
    for (let n = 0; n < 5; n++) {
      await slow.add(item(n, 10));
      // One item at a time, each stored after the linger time without waiting for the next one
      // (polled, so a loaded machine's late timers do not fail it).
      await vi.waitFor(async () => expect(await items.count('job_slow')).toBe(n + 1), {
        timeout: 5000,
        interval: 20,
      });
    }
    await slow.flush();
    expect(writes).toEqual([1, 1, 1, 1, 1]);

    writes.length = 0;
    const fast = new ItemAppender(counted, 'job_fast', { lingerMs: 30, batchSize: 50 });
    for (let n = 0; n < 500; n++) await fast.add(item(n, 10));
    await fast.flush();
    expect(await items.count('job_fast')).toBe(500);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(500);
    expect(writes.length).toBeLessThanOrEqual(12);
    const all = await items.page('job_fast', 0, 1000, 8 * MB);
    expect(all.items.map((i) => (i as { n: number }).n)).toEqual([...Array(500).keys()]);
  });

  it('fails its next add and its flush when a write failed', async () => {
    const failing = { append: async () => Promise.reject(new Error('disk full')) };
    const appender = new ItemAppender(failing, 'job_x', { lingerMs: 1 });
    await appender.add(item(0, 1));
    await expect(appender.flush()).rejects.toThrow('disk full');
    await expect(appender.add(item(1, 1))).rejects.toThrow('disk full');
  });
});

describe('JobItems', () => {
  it('answers slices by count and by bytes, with where the next slice starts', async () => {
    const items = t.services.jobs.items;
    await items.append('job_a', 0, [item(0, 10), item(1, 10), item(2, 10)]);
    await items.append('job_a', 3, [item(3, 3 * MB), item(4, 3 * MB), item(5, 3 * MB), item(6, 10 * MB)]);
    await items.append('job_b', 0, [item(0, 10)]);

    const first = await items.page('job_a', 0, 2, 8 * MB);
    expect(first.items.map((i) => (i as { n: number }).n)).toEqual([0, 1]);
    expect(first).toMatchObject({ total: 7, nextSkip: 2 });

    const budget = await items.page('job_a', 2, 100, 8 * MB);
    expect(budget.items.map((i) => (i as { n: number }).n)).toEqual([2, 3, 4]); // a third 3 MB item would pass 8 MB
    expect(budget.nextSkip).toBe(5);

    const oversized = await items.page('job_a', 6, 100, 8 * MB);
    expect(oversized.items.map((i) => (i as { n: number }).n)).toEqual([6]); // alone, but answered
    expect(oversized.nextSkip).toBeNull();

    expect(await items.page('job_a', 7, 100, 8 * MB)).toEqual({ items: [], total: 7, nextSkip: null });
    expect((await items.page('job_b', 0, 100, 8 * MB)).total).toBe(1);

    await items.clear('job_a');
    expect(await items.count('job_a')).toBe(0);
    expect(await items.count('job_b')).toBe(1);
  });

  it('drops the items of a job whose result expires', async () => {
    const { accountId } = await t.register();
    const now = Date.now();
    await t.services.store.db
      .insertInto('jobs')
      .values({
        id: 'job_expiring',
        account_id: accountId,
        kind: 'crawl',
        status: 'completed',
        input: '{}',
        result: '{"pagesScraped":1}',
        max_attempts: 3,
        run_at: now,
        created_at: now,
        completed_at: now,
        result_expires_at: now - 1,
      } as never)
      .execute();
    await t.services.jobs.items.append('job_expiring', 0, [item(0, 10)]);
    await t.services.jobs.records.expireResults(now);
    expect(await t.services.jobs.items.count('job_expiring')).toBe(0);
    expect(await t.services.jobs.items.count('job_b')).toBe(1); // another job's items stay
  });
});
