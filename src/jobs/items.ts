// A job's result items (a crawl's pages): appended in order while the job runs, read back a slice at
// a time under a byte budget so that one poll answer stays small whatever the pages weigh.
import type { Db } from '../store/db.js';

export interface ItemsPage {
  items: unknown[];
  /** Items the job has so far. */
  total: number;
  /** Where the next slice starts; null when this one reaches the end. */
  nextSkip: number | null;
}

export class JobItems {
  constructor(
    private readonly db: Db,
    /** Writes from workers (PostgreSQL: the asynchronous-commit pool; a lost write is redone). */
    private readonly writeDb: Db = db,
  ) {}

  /** Stores `items` as numbers `firstSeq`, `firstSeq + 1`, … of the job. */
  async append(jobId: string, firstSeq: number, items: readonly unknown[]): Promise<void> {
    if (items.length === 0) return;
    const rows = items.map((item, i) => {
      const data = JSON.stringify(item);
      return { job_id: jobId, seq: firstSeq + i, data, bytes: Buffer.byteLength(data) };
    });
    // Bounded statements: SQLite caps bound parameters and PostgreSQL slows on huge ones.
    for (let i = 0; i < rows.length; i += 200) {
      await this.writeDb
        .insertInto('job_items')
        .values(rows.slice(i, i + 200))
        .execute();
    }
  }

  /** Drops every item of the job (a rerun starts over), in bounded statements. */
  async clear(jobId: string): Promise<void> {
    await deleteItems(this.writeDb, jobId);
  }

  /**
   * Items the job has so far. They are numbered 0, 1, 2, … without gaps (appended in order, dropped
   * all together), so this is the last number plus one: one index probe, however many there are.
   */
  async count(jobId: string): Promise<number> {
    const r = await this.db
      .selectFrom('job_items')
      .select((eb) => eb.fn.max<number | string | null>('seq').as('last'))
      .where('job_id', '=', jobId)
      .executeTakeFirst();
    return r?.last === null || r?.last === undefined ? 0 : Number(r.last) + 1;
  }

  /** Items from `skip`, at most `maxItems` and (past the first) at most `maxBytes` of JSON. */
  async page(jobId: string, skip: number, maxItems: number, maxBytes: number): Promise<ItemsPage> {
    const total = await this.count(jobId);
    const sizes = await this.db
      .selectFrom('job_items')
      .select(['seq', 'bytes'])
      .where('job_id', '=', jobId)
      .where('seq', '>=', skip)
      .orderBy('seq')
      .limit(maxItems)
      .execute();
    let taken = 0;
    let bytes = 0;
    for (const s of sizes) {
      if (taken > 0 && bytes + s.bytes > maxBytes) break;
      bytes += s.bytes;
      taken++;
    }
    if (taken === 0) return { items: [], total, nextSkip: null };
    const rows = await this.db
      .selectFrom('job_items')
      .select('data')
      .where('job_id', '=', jobId)
      .where('seq', '>=', skip)
      .where('seq', '<=', sizes[taken - 1]!.seq)
      .orderBy('seq')
      .execute();
    const end = skip + taken;
    return { items: rows.map((r) => JSON.parse(r.data)), total, nextSkip: end < total ? end : null };
  }
}

/** Items deleted per statement: a huge crawl's items go in many short statements, not one long one. */
export const ITEM_DELETE_BATCH = 2000;

/** Deletes every item of a job, ITEM_DELETE_BATCH at a time (from the end, so no gap opens). */
export async function deleteItems(db: Db, jobId: string): Promise<void> {
  for (;;) {
    const r = await db
      .deleteFrom('job_items')
      .where('job_id', '=', jobId)
      .where('seq', 'in', (eb) =>
        eb
          .selectFrom('job_items')
          .select('seq')
          .where('job_id', '=', jobId)
          .orderBy('seq', 'desc')
          .limit(ITEM_DELETE_BATCH),
      )
      .executeTakeFirst();
    if (Number(r.numDeletedRows) < ITEM_DELETE_BATCH) return;
  }
}

/**
 * Stores a running job's items in order as they come, each within `lingerMs` of its arrival (or
 * at once when `batchSize` wait): a poll counts every item within a tenth of a second, however
 * slowly they come, while a fast producer still gets one write per batch. One write at a time, in
 * order, so a poll never sees a gap in the numbering. At most `maxPending` items wait in memory:
 * `add` waits for the write under way when more would.
 */
export class ItemAppender {
  private pending: unknown[] = [];
  /** The number of `pending[0]`. */
  private nextSeq = 0;
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private failure: { err: unknown } | null = null;

  constructor(
    private readonly items: Pick<JobItems, 'append'>,
    private readonly jobId: string,
    private readonly options: { lingerMs?: number; batchSize?: number; maxPending?: number } = {},
  ) {}

  async add(item: unknown): Promise<void> {
    if (this.failure) throw this.failure.err;
    this.pending.push(item);
    this.schedule();
    if (this.pending.length >= (this.options.maxPending ?? 400)) await this.writing;
  }

  /** Resolves once every item added so far is stored; rejects if a write failed. */
  async flush(): Promise<void> {
    for (;;) {
      this.write();
      if (!this.writing) break;
      await this.writing;
    }
    if (this.failure) throw this.failure.err;
  }

  /** The next write: now if a batch is waiting, else when the oldest waiting item has lingered. */
  private schedule(): void {
    if (this.writing || this.failure || this.pending.length === 0) return;
    if (this.pending.length >= (this.options.batchSize ?? 100)) this.write();
    else this.timer ??= setTimeout(() => this.write(), this.options.lingerMs ?? 100);
  }

  private write(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.failure || this.pending.length === 0) return;
    const batch = this.pending;
    const from = this.nextSeq;
    this.pending = [];
    this.nextSeq += batch.length;
    this.writing = this.items.append(this.jobId, from, batch).then(
      () => {
        this.writing = null;
        this.schedule();
      },
      (err: unknown) => {
        this.writing = null;
        this.failure = { err };
      },
    );
  }
}
