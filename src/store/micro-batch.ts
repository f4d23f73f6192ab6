// Gathers items that arrive together and handles them in one call (one multi-row INSERT, one Redis
// pipeline, one UPDATE … RETURNING): under load many callers share a round trip and a commit, and
// when idle a lone item waits no longer than a setImmediate.
// With `maxInFlight`, at most that many calls run at once; items arriving meanwhile wait for the
// next one, so batches grow with the load instead of the number of statements (each a round trip,
// a parse and a commit).
// `flushBatch` may answer one result per item, in item order; if it throws, every caller of that
// batch gets the error, unless the batcher has an `alone` way: then each item of the failed batch
// runs again by itself, in arrival order, and gets its own result or error, so a neighbour's failure
// (or a blip) never fails it: so batch the group commits, the paid answers, job claims and job endings.
/** The jobs engine's batches in flight per batcher: enough to overlap a round trip, few statements. */
export const BATCHES_IN_FLIGHT = 2;

/** How an item of a failed batch runs again by itself. */
export interface AloneOnFailure<T, R> {
  /** Runs one item alone: its result or error is its caller's. */
  alone(item: T): Promise<R>;
  /**
   * A batch of one that failed runs again alone too (its failure may have been a blip). By default it
   * does not: where a batch of one does what `alone` does, it would fail the same way twice.
   */
  retryLone?: boolean;
}

export class MicroBatcher<T, R = void> {
  private items: T[] = [];
  private waiters: Array<{ resolve(value: R): void; reject(err: unknown): void }> = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    // biome-ignore lint/suspicious/noConfusingVoidType: a batch of void calls answers nothing
    private readonly flushBatch: (items: T[]) => Promise<R[] | void>,
    private readonly maxBatch = 200,
    private readonly maxInFlight = Number.POSITIVE_INFINITY,
    private readonly onFailure?: AloneOnFailure<T, R>,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.items.push(item);
      this.waiters.push({ resolve, reject });
      if (this.items.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.items.length === 0 || this.inFlight >= this.maxInFlight) return;
    const items = this.items.splice(0, this.maxBatch);
    const waiters = this.waiters.splice(0, this.maxBatch);
    this.inFlight++;
    // A synchronous throw in flushBatch must reach the waiters too, not escape into setImmediate.
    Promise.resolve()
      .then(() => this.flushBatch(items))
      .then(
        (results) => {
          for (const [i, w] of waiters.entries()) w.resolve(results?.[i] as R);
        },
        async (err) => {
          const retry = this.onFailure;
          if (!retry || (items.length === 1 && !retry.retryLone)) {
            for (const w of waiters) w.reject(err);
            return;
          }
          // In arrival order, one at a time: each alone, as if it had come by itself.
          for (const [i, item] of items.entries()) {
            const { resolve, reject } = waiters[i]!;
            await Promise.resolve()
              .then(() => retry.alone(item))
              .then(resolve, reject);
          }
        },
      )
      .finally(() => {
        this.inFlight--;
        // What gathered meanwhile goes next (or more, if a full batch is still waiting).
        if (this.items.length > 0) this.flush();
      });
  }
}
