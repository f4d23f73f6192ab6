// Many small write transactions arriving within one turn of the event loop, committed as one.
// SQLite has one writer and pays per commit, so job endings under load share a commit. If any
// piece fails, the shared transaction rolls back and each piece reruns in its own transaction
// (MicroBatcher's `alone`), so one piece's error never undoes another's work.
import type { Db, Tx } from './db.js';
import { MicroBatcher } from './micro-batch.js';

type Work<T> = (tx: Tx) => Promise<T>;

export class GroupCommit {
  private readonly batches: MicroBatcher<Work<unknown>, unknown>;

  constructor(db: Db, maxBatch = 64) {
    this.batches = new MicroBatcher<Work<unknown>, unknown>(
      (works) =>
        db.transaction().execute(async (tx) => {
          const out: unknown[] = [];
          for (const work of works) out.push(await work(tx));
          return out;
        }),
      maxBatch,
      Number.POSITIVE_INFINITY,
      // A lone piece's shared transaction was its own: it is not run twice.
      { alone: (work) => db.transaction().execute(work) },
    );
  }

  run<T>(work: Work<T>): Promise<T> {
    // The batcher answers each piece with what its own work returned.
    return this.batches.add(work) as Promise<T>;
  }
}
