// Gathers the items that arrive within one turn of the event loop and handles them in one call
// (one multi-row INSERT, one Redis pipeline): under load many submits share a commit, and when idle
// a lone item waits no longer than a setImmediate.
export class MicroBatcher<T> {
  private items: T[] = [];
  private waiters: Array<{ resolve(): void; reject(err: unknown): void }> = [];
  private scheduled = false;

  constructor(
    private readonly flushBatch: (items: T[]) => Promise<void>,
    private readonly maxBatch = 200,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
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
    this.flushBatch(items).then(
      () => {
        for (const w of waiters) w.resolve();
      },
      (err) => {
        for (const w of waiters) w.reject(err);
      },
    );
  }
}
