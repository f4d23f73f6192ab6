// Many small write transactions arriving within one turn of the event loop, committed as one.
// SQLite has one writer and pays per commit, so job endings under load share a commit. If any
// piece fails, the shared transaction rolls back and each piece reruns in its own transaction,
// so one piece's error never undoes another's work.
import type { Db, Tx } from './db.js';

type Work<T> = (tx: Tx) => Promise<T>;

interface Pending {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly maxBatch = 64,
  ) {}

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (this.pending.length >= this.maxBatch) void this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    if (batch.length > 1) {
      try {
        const results = await this.db.transaction().execute(async (tx) => {
          const out: unknown[] = [];
          for (const p of batch) out.push(await p.work(tx));
          return out;
        });
        for (const [i, p] of batch.entries()) p.resolve(results[i]);
        return;
      } catch {
        // Fall through: each piece alone, so the failing one fails by itself.
      }
    }
    for (const p of batch) {
      await this.db.transaction().execute(p.work).then(p.resolve, p.reject);
    }
  }
}
