// MicroBatcher with an `alone` way: a failed batch runs each of its items again by itself, in arrival
// order, so each caller gets its own result or error and a neighbour's failure never reaches it; a
// lone item is run once unless `retryLone` says a blip may have failed it.
import { describe, expect, it } from 'vitest';
import { MicroBatcher } from '../../src/store/micro-batch.js';

/** A batcher whose batch fails when it holds a negative number; alone, a negative number fails. */
function batcher(retryLone = false) {
  const calls: string[] = [];
  const b = new MicroBatcher<number, number>(
    async (items) => {
      calls.push(`batch ${items.join(',')}`);
      if (items.some((n) => n < 0)) throw new Error('batch refused');
      return items.map((n) => n * 10);
    },
    10,
    Number.POSITIVE_INFINITY,
    {
      alone: async (n) => {
        calls.push(`alone ${n}`);
        if (n < 0) throw new Error(`refused ${n}`);
        return n * 10;
      },
      retryLone,
    },
  );
  return { b, calls };
}

describe('MicroBatcher, alone on failure', () => {
  it('a batch that passes answers each item once, together', async () => {
    const { b, calls } = batcher();
    expect(await Promise.all([1, 2, 3].map((n) => b.add(n)))).toEqual([10, 20, 30]);
    expect(calls).toEqual(['batch 1,2,3']);
  });

  it('a failed batch reruns each item alone, in order: only the failing one fails', async () => {
    const { b, calls } = batcher();
    const results = await Promise.allSettled([1, -2, 3].map((n) => b.add(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      10,
      'refused -2',
      30,
    ]);
    expect(calls).toEqual(['batch 1,-2,3', 'alone 1', 'alone -2', 'alone 3']);
  });

  it('a lone item that failed is not run again, unless retryLone', async () => {
    const once = batcher();
    await expect(once.b.add(-1)).rejects.toThrow('batch refused');
    expect(once.calls).toEqual(['batch -1']);
    const retried = batcher(true);
    await expect(retried.b.add(-1)).rejects.toThrow('refused -1');
    expect(retried.calls).toEqual(['batch -1', 'alone -1']);
  });
});
