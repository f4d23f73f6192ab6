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

  /** Drops every item of the job (a rerun starts over; an expired result goes). */
  async clear(jobId: string): Promise<void> {
    await this.writeDb.deleteFrom('job_items').where('job_id', '=', jobId).execute();
  }

  async count(jobId: string): Promise<number> {
    const r = await this.db
      .selectFrom('job_items')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('job_id', '=', jobId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
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
