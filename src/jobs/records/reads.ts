// Reads of the jobs table, none of which changes a row: what the API answers (one job, a listing,
// the live job a dedupe key points to, the gauge counts) and what the sweeper looks for (leases that
// ran out, queued jobs whose message may be lost).
import { sql } from 'kysely';
import type { Db, Dialect, Tx } from '../../store/db.js';
import { decodeCursor, pageOf } from '../../store/keyset.js';
import { PreparedQuery } from '../../store/prepared.js';
import type { JobRow, JobStatus } from '../../store/schema.js';

export interface JobListQuery {
  status?: JobStatus;
  limit: number;
  offset: number;
  /** The `next` of a previous page: the page after it. */
  cursor?: string;
}

/** What a listing shows of a job (never its result, which may be large). */
export const summaryColumns = [
  'id',
  'kind',
  'status',
  'created_at',
  'completed_at',
  'duration_ms',
  'error',
  'attempts',
  'max_attempts',
  'cost',
  'held',
] as const;
/** A listing row: the summary columns and the input's `url`, read out by the database. */
export type JobSummaryRow = Pick<JobRow, (typeof summaryColumns)[number]> & { input_url: unknown };

/** The input's top-level `url` (inputs are JSON text; listings never carry the whole input). */
const inputUrl = (dialect: Dialect) =>
  dialect === 'pg'
    ? sql<unknown>`(input::jsonb ->> 'url')`.as('input_url')
    : sql<unknown>`json_extract(input, '$.url')`.as('input_url');

/** A job by id and owner: what every poll of a job's status reads. */
const jobOfAccount = new PreparedQuery((db, p: { jobId: string; accountId: string }) =>
  db.selectFrom('jobs').selectAll().where('id', '=', p.jobId).where('account_id', '=', p.accountId),
);

export class JobReads {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  get(jobId: string, db: Db | Tx = this.db): Promise<JobRow | undefined> {
    return db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
  }

  /** A job of this account, optionally of given kinds; anything else is "not found". */
  async getForAccount(accountId: string, jobId: string, kinds?: readonly string[]) {
    const job = await jobOfAccount.executeTakeFirst(this.db, { jobId, accountId });
    return job && (!kinds || kinds.includes(job.kind)) ? job : undefined;
  }

  /**
   * One page of the account's jobs, newest first (after `cursor` when given), and how many jobs match.
   * The page walks (account_id[, status], created_at, id) from its start; the count is read from
   * job_counts and the deltas not yet folded into it, so neither grows with the account's history.
   */
  async list(accountId: string, q: JobListQuery) {
    let page = this.db.selectFrom('jobs').where('account_id', '=', accountId);
    if (q.status) page = page.where('status', '=', q.status);
    if (q.cursor) {
      const after = decodeCursor(q.cursor);
      page = page.where((eb) =>
        eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)),
      );
    }
    const [rows, total] = await Promise.all([
      page
        .select([...summaryColumns, inputUrl(this.dialect)])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit + 1)
        .offset(q.offset)
        .execute(),
      this.count(accountId, q.status),
    ]);
    return { ...pageOf(rows, q.limit), total };
  }

  /** Jobs of the account (in one status): folded counts plus the deltas written since. */
  async count(accountId: string, status?: JobStatus): Promise<number> {
    let folded = this.db
      .selectFrom('job_counts')
      .select((eb) => eb.fn.sum<number | string | null>('n').as('n'))
      .where('account_id', '=', accountId);
    let pending = this.db
      .selectFrom('job_count_deltas')
      .select((eb) => eb.fn.sum<number | string | null>('delta').as('n'))
      .where('account_id', '=', accountId);
    if (status) {
      folded = folded.where('status', '=', status);
      pending = pending.where('status', '=', status);
    }
    // One statement, so one snapshot: a fold committing between two reads would count its deltas
    // twice or not at all.
    const parts = await folded.unionAll(pending).execute();
    return parts.reduce((sum, p) => sum + Number(p.n ?? 0), 0);
  }

  /**
   * Job counts for the /metrics gauges: all jobs by status, and queued/active ones by kind. By status
   * they come from the maintained counts (a row per account and status, plus deltas not yet folded),
   * so a scrape costs the same however many jobs ever ran; queued/active jobs are a small range of the
   * (status, run_at) index.
   */
  async countsForGauges() {
    // One statement (one snapshot), as in count().
    const parts = await this.db
      .selectFrom('job_counts')
      .select(['status', (eb) => eb.fn.sum<number | string>('n').as('n')])
      .groupBy('status')
      .unionAll(
        this.db
          .selectFrom('job_count_deltas')
          .select(['status', (eb) => eb.fn.sum<number | string>('delta').as('n')])
          .groupBy('status'),
      )
      .execute();
    const states = new Map<string, number>();
    for (const r of parts) states.set(r.status, (states.get(r.status) ?? 0) + Number(r.n));
    const byState = [...states].map(([status, n]) => ({ status, n }));
    const live = await this.db
      .selectFrom('jobs')
      .select(['kind', 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', 'in', ['queued', 'active'])
      .groupBy(['kind', 'status'])
      .execute();
    const count = <R extends { n: number | string }>(rows: R[]) =>
      rows.map((r) => Object.assign(r, { n: Number(r.n) }));
    return { byState, live: count(live) };
  }

  /** A running or waiting job of the account with the same dedupe key. */
  findLive(accountId: string, kind: string, dedupeKey: string, db: Db | Tx = this.db) {
    return db
      .selectFrom('jobs')
      .select(['id'])
      .where('account_id', '=', accountId)
      .where('kind', '=', kind)
      .where('dedupe_key', '=', dedupeKey)
      .where('status', 'in', ['queued', 'active'])
      .executeTakeFirst();
  }

  /** Active jobs whose worker stopped renewing its lease. */
  expiredLeases(now: number, limit = 100) {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('status', '=', 'active')
      .where('locked_until', '<', now)
      .limit(limit)
      .execute();
  }

  /** Queued jobs that have been due for a while: the queue may have lost them (distributed mode). */
  overdueQueued(olderThan: number, limit = 500) {
    return this.db
      .selectFrom('jobs')
      .select(['id', 'kind', 'run_at', 'attempts'])
      .where('status', '=', 'queued')
      .where('run_at', '<', olderThan)
      .limit(limit)
      .execute();
  }
}
