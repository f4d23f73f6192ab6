// Working through a job's list a few at a time while its results come out in order (batches of
// videos, batches of pages): a bounded window ahead of the first unfinished entry keeps memory flat.

/** At most `limit` calls of `run` at once; the others wait their turn in order. */
export function limiter(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await run();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/**
 * `work(i)` for i in 0…count-1, `concurrency` at a time and at most `window` ahead of the first
 * unfinished one; `emit` sees every value in index order. A rejection of `work` stops it all.
 */
export async function inOrder<T>(
  count: number,
  concurrency: number,
  window: number,
  work: (index: number) => Promise<T>,
  emit: (value: T, index: number) => Promise<void> | void,
): Promise<void> {
  const limit = limiter(concurrency);
  const started: Array<Promise<T> | undefined> = new Array(count);
  let next = 0;
  for (let i = 0; i < count; i++) {
    while (next < count && next < i + window) {
      const index = next++;
      const p = limit(() => work(index));
      // Handled here too: a later one failing while an earlier one is awaited is no stray rejection.
      p.catch(() => {});
      started[index] = p;
    }
    const value = await started[i]!;
    started[i] = undefined;
    await emit(value, i);
  }
}
