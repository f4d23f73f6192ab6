// Gathers the items that arrive within one turn of the event loop and handles them in one call
// (one multi-row INSERT, one Redis pipeline, one UPDATE … RETURNING): under load many callers share
// a round trip and a commit, and when idle a lone item waits no longer than a setImmediate.
// `flushBatch` may answer one result per item, in item order; if it throws, every caller of that
// batch gets the error (callers that must not fail with a neighbour retry alone).
export class MicroBatcher<T, R = void> {
  private items: T[] = [];
  private waiters: Array<{ resolve(value: R): void; reject(err: unknown): void }> = [];
  private scheduled = false;

  constructor(
    // biome-ignore lint/suspicious/noConfusingVoidType: a batch of void calls answers nothing
    private readonly flushBatch: (items: T[]) => Promise<R[] | void>,
    private readonly maxBatch = 200,
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
    if (this.items.length === 0) return;
    const items = this.items;
    const waiters = this.waiters;
    this.items = [];
    this.waiters = [];
    // A synchronous throw in flushBatch must reach the waiters too, not escape into setImmediate.
    Promise.resolve()
      .then(() => this.flushBatch(items))
      .then(
        (results) => {
          for (const [i, w] of waiters.entries()) w.resolve(results?.[i] as R);
        },
        (err) => {
          for (const w of waiters) w.reject(err);
        },
      );
  }
}
