// SQL of the jobs table: the truth the API reads. Every state change is a guarded UPDATE so that
// two workers can never both move the same job.
import { type Insertable, sql } from 'kysely';
import type { Db, Dialect, Tx } from '../store/db.js';
import type { JobRow, JobStatus, JobsTable } from '../store/schema.js';

/** Columns a just-accepted job leaves empty (insertMany's short form writes none of them). */
const UNSET_ON_NEW_JOB = [
  'attempts',
  'result',
  'error',
  'error_code',
  'cost',
  'locked_by',
  'locked_until',
  'started_at',
  'completed_at',
  'duration_ms',
  'result_expires_at',
] as const;

/** How a held job ends (what `finish` writes). */
export interface JobOutcome {
  status: 'completed' | 'failed';
  result?: unknown;
  error?: string;
  errorCode?: string;
  cost: number;
}

export interface FinishItem {
  job: JobRow;
  outcome: JobOutcome;
}

export class JobRecords {
  constructor(
    private readonly db: Db,
    /** For worker-side writes (see Store.workerDb). */
    private readonly workerDb: Db,
    readonly dialect: Dialect,
  ) {}

  get(jobId: string, db: Db | Tx = this.db): Promise<JobRow | undefined> {
    return db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
  }

  /** A job of this account, optionally of given kinds; anything else is "not found". */
  getForAccount(accountId: string, jobId: string, kinds?: readonly string[]) {
    let q = this.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', jobId)
      .where('account_id', '=', accountId);
    if (kinds) q = q.where('kind', 'in', kinds);
    return q.executeTakeFirst();
  }

  async list(accountId: string, q: { status?: JobStatus; limit: number; offset: number }) {
    let base = this.db.selectFrom('jobs').where('account_id', '=', accountId);
    if (q.status) base = base.where('status', '=', q.status);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit)
        .offset(q.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    ]);
    return { rows, total: Number(count?.n ?? 0) };
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

  /**
   * Records new jobs in one statement. On PostgreSQL, fresh rows (nothing run yet) go in as one
   * INSERT … SELECT FROM unnest(arrays): the same short statement whatever the batch size, instead
   * of a parameter per cell to send, parse and plan.
   */
  async insertMany(rows: ReadonlyArray<Insertable<JobsTable>>, db: Db | Tx = this.db): Promise<void> {
    if (rows.length === 0) return;
    const fresh = rows.every((r) =>
      UNSET_ON_NEW_JOB.every((c) => r[c] === null || r[c] === undefined || (c === 'attempts' && r[c] === 0)),
    );
    if (this.dialect !== 'pg' || !fresh) {
      await db.insertInto('jobs').values(rows).execute();
      return;
    }
    const col = <V>(pick: (r: Insertable<JobsTable>) => V) => rows.map(pick);
    await sql`
      insert into jobs (id, account_id, kind, status, input, max_attempts, held, webhook_url, dedupe_key,
        run_at, created_at)
      select * from unnest(
        ${col((r) => r.id)}::text[], ${col((r) => r.account_id)}::text[], ${col((r) => r.kind)}::text[],
        ${col((r) => r.status)}::text[], ${col((r) => r.input)}::text[], ${col((r) => r.max_attempts)}::int[],
        ${col((r) => r.held ?? 0)}::bigint[], ${col((r) => r.webhook_url ?? null)}::text[],
        ${col((r) => r.dedupe_key ?? null)}::text[], ${col((r) => r.run_at)}::bigint[],
        ${col((r) => r.created_at)}::bigint[]
      )`.execute(db);
  }

  /**
   * Takes a specific job if it is due, or if its previous worker's lease ran out. Counts an attempt.
   */
  async claimById(jobId: string, workerId: string, leaseMs: number): Promise<JobRow | undefined> {
    return (await this.claimManyById([jobId], workerId, leaseMs))[0];
  }

  /**
   * `claimById` for many jobs in one statement (one round trip, one commit): the rows this worker
   * took; ids that are not claimable now (held, not due, ended, out of attempts) are left out.
   */
  claimManyById(jobIds: readonly string[], workerId: string, leaseMs: number): Promise<JobRow[]> {
    const ids = [...new Set(jobIds)];
    if (ids.length === 0) return Promise.resolve([]);
    const now = Date.now();
    if (this.dialect === 'pg') {
      return this.claimSql(ids, workerId, leaseMs, now)
        .execute(this.workerDb)
        .then((r) => r.rows);
    }
    return this.workerDb
      .updateTable('jobs')
      .set({
        status: 'active',
        attempts: sql`attempts + 1`,
        locked_by: workerId,
        locked_until: now + leaseMs,
        started_at: sql`coalesce(started_at, ${now})`,
      })
      .where('id', 'in', ids)
      .where(sql<boolean>`attempts < max_attempts`)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
          eb.and([eb('status', '=', 'active'), eb('locked_until', '<', now)]),
        ]),
      )
      .returningAll()
      .execute();
  }

  /**
   * Claims up to `limit` due queued jobs of a kind for this worker (one statement: one commit for
   * the lot), oldest first. On PostgreSQL, SKIP LOCKED keeps concurrent workers off each other's rows.
   */
  async claimDue(kind: string, limit: number, workerId: string, leaseMs: number): Promise<JobRow[]> {
    const now = Date.now();
    let pick = this.workerDb
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'queued')
      .where('kind', '=', kind)
      .where('run_at', '<=', now)
      .orderBy('run_at')
      .orderBy('created_at')
      .limit(limit);
    if (this.dialect === 'pg') pick = pick.forUpdate().skipLocked();
    const rows = await this.workerDb
      .updateTable('jobs')
      .set({
        status: 'active',
        attempts: sql`attempts + 1`,
        locked_by: workerId,
        locked_until: now + leaseMs,
        started_at: sql`coalesce(started_at, ${now})`,
      })
      .where('id', 'in', pick)
      .where('status', '=', 'queued')
      .returningAll()
      .execute();
    // RETURNING gives no order guarantee: start the oldest first.
    return rows.sort((a, b) => a.run_at - b.run_at || a.created_at - b.created_at);
  }

  /** Extends the lease of a job this worker holds; false if it no longer holds it. */
  async heartbeat(jobId: string, workerId: string, leaseMs: number): Promise<boolean> {
    const r = await this.workerDb
      .updateTable('jobs')
      .set({ locked_until: Date.now() + leaseMs })
      .where('id', '=', jobId)
      .where('status', '=', 'active')
      .where('locked_by', '=', workerId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Ends a held job as completed or failed; the final row, or undefined if this worker lost it. */
  finish(
    db: Db | Tx,
    job: JobRow,
    workerId: string,
    outcome: JobOutcome,
    resultTtlMs: number,
  ): Promise<JobRow | undefined> {
    const now = Date.now();
    return db
      .updateTable('jobs')
      .set({
        status: outcome.status,
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        error: outcome.error ?? null,
        error_code: outcome.errorCode ?? null,
        cost: outcome.cost,
        completed_at: now,
        duration_ms: now - (job.started_at ?? now),
        result_expires_at: now + resultTtlMs,
        locked_by: null,
        locked_until: null,
      })
      .where('id', '=', job.id)
      .where('status', '=', 'active')
      .where('locked_by', '=', workerId)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * `finish` for many held jobs in one statement (PostgreSQL: one round trip, one commit; each row
   * keeps its own guard, so a job this worker lost is left alone). Only for endings that need
   * nothing else in their transaction: no credits held, no webhook. The rows that ended.
   */
  async finishMany(ends: readonly FinishItem[], workerId: string, resultTtlMs: number): Promise<JobRow[]> {
    if (ends.length === 0) return [];
    const now = Date.now();
    if (this.dialect !== 'pg') {
      const rows = await Promise.all(
        ends.map((e) => this.finish(this.workerDb, e.job, workerId, e.outcome, resultTtlMs)),
      );
      return rows.filter((r): r is JobRow => r !== undefined);
    }
    const r = await this.finishSql(ends, workerId, resultTtlMs, now).execute(this.workerDb);
    return r.rows;
  }

  // PostgreSQL statements that change rows by id write their state guards as `status || ''`: the
  // rows must be found through the primary key. Left indexable, the planner (without statistics,
  // as on a fresh table) walks jobs_claim's 'queued' or 'active' range instead, which under load
  // holds every backlog row, or the dead entries of every job since the last vacuum.

  /** PostgreSQL: `claimManyById` as one UPDATE … WHERE id = ANY($1) RETURNING the claimed rows. */
  private claimSql(ids: readonly string[], workerId: string, leaseMs: number, now: number) {
    return sql<JobRow>`
      update jobs set status = 'active', attempts = attempts + 1, locked_by = ${workerId},
        locked_until = ${now + leaseMs}, started_at = coalesce(started_at, ${now})
      where id = any(${ids}::text[]) and attempts < max_attempts
        and ((status || '' = 'queued' and run_at <= ${now})
          or (status || '' = 'active' and locked_until < ${now}))
      returning *`;
  }

  /** PostgreSQL: the guarded endings of `ends` as one UPDATE … FROM unnest(…) RETURNING the ended rows. */
  private finishSql(ends: readonly FinishItem[], workerId: string, resultTtlMs: number, now: number) {
    const col = <V>(pick: (e: FinishItem) => V) => ends.map(pick);
    return sql<JobRow>`
      update jobs as j set
        status = v.status, result = v.result, error = v.error, error_code = v.error_code,
        cost = v.cost, completed_at = ${now}, duration_ms = v.duration_ms,
        result_expires_at = ${now + resultTtlMs}, locked_by = null, locked_until = null
      from unnest(
        ${col((e) => e.job.id)}::text[], ${col((e) => e.outcome.status)}::text[],
        ${col((e) => (e.outcome.result === undefined ? null : JSON.stringify(e.outcome.result)))}::text[],
        ${col((e) => e.outcome.error ?? null)}::text[], ${col((e) => e.outcome.errorCode ?? null)}::text[],
        ${col((e) => e.outcome.cost)}::bigint[], ${col((e) => now - (e.job.started_at ?? now))}::bigint[]
      ) as v(id, status, result, error, error_code, cost, duration_ms)
      where j.id = any(${col((e) => e.job.id)}::text[]) and j.id = v.id
        and j.status || '' = 'active' and j.locked_by = ${workerId}
      returning j.*`;
  }

  /**
   * PostgreSQL: `finishMany(ends)` and `claimManyById(claimIds)` in one statement (two
   * data-modifying CTEs): a worker's endings and next claims share a round trip and a commit.
   * The two sets must not share a job (a row changed twice in one statement keeps one change).
   */
  async finishAndClaim(
    ends: readonly FinishItem[],
    claimIds: readonly string[],
    workerId: string,
    leaseMs: number,
    resultTtlMs: number,
  ): Promise<{ ended: JobRow[]; claimed: JobRow[] }> {
    const ids = [...new Set(claimIds)];
    if (this.dialect !== 'pg' || ends.length === 0 || ids.length === 0) {
      const [ended, claimed] = await Promise.all([
        this.finishMany(ends, workerId, resultTtlMs),
        this.claimManyById(ids, workerId, leaseMs),
      ]);
      return { ended, claimed };
    }
    const claiming = new Set(ids);
    if (ends.some((e) => claiming.has(e.job.id))) throw new Error('a job cannot end and be claimed at once');
    const now = Date.now();
    const r = await sql<JobRow & { ended: boolean }>`
      with f as (${this.finishSql(ends, workerId, resultTtlMs, now)}),
      c as (${this.claimSql(ids, workerId, leaseMs, now)})
      select true as ended, f.* from f union all select false as ended, c.* from c`.execute(this.workerDb);
    const ended: JobRow[] = [];
    const claimed: JobRow[] = [];
    for (const { ended: isEnd, ...row } of r.rows) (isEnd ? ended : claimed).push(row as JobRow);
    return { ended, claimed };
  }

  /** Fails a job that is not held by anyone (lease ran out with no attempts left). */
  failUnheld(db: Db | Tx, job: JobRow, error: string, errorCode: string, resultTtlMs: number) {
    const now = Date.now();
    return db
      .updateTable('jobs')
      .set({
        status: 'failed',
        error,
        error_code: errorCode,
        cost: 0,
        completed_at: now,
        duration_ms: now - (job.started_at ?? now),
        result_expires_at: now + resultTtlMs,
        locked_by: null,
        locked_until: null,
      })
      .where('id', '=', job.id)
      .where('status', '=', job.status)
      .where('attempts', '=', job.attempts)
      .returningAll()
      .executeTakeFirst();
  }

  /** Puts a held job back in the queue to run again at `runAt`. */
  async requeue(job: JobRow, workerId: string, runAt: number, error: string, refundAttempt = false) {
    const r = await this.workerDb
      .updateTable('jobs')
      .set({
        status: 'queued',
        run_at: runAt,
        error,
        locked_by: null,
        locked_until: null,
        ...(refundAttempt && { attempts: sql`attempts - 1` }),
      })
      .where('id', '=', job.id)
      .where('status', '=', 'active')
      .where('locked_by', '=', workerId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  addHeld(jobId: string, credits: number, tx: Tx) {
    return tx
      .updateTable('jobs')
      .set({ held: sql`held + ${credits}` })
      .where('id', '=', jobId)
      .execute();
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

  /** Returns a lost job to the queue (its attempt was already counted). */
  async requeueLost(job: JobRow): Promise<boolean> {
    const r = await this.workerDb
      .updateTable('jobs')
      .set({
        status: 'queued',
        run_at: Date.now(),
        locked_by: null,
        locked_until: null,
        error: 'worker lost',
      })
      .where('id', '=', job.id)
      .where('status', '=', 'active')
      .where('locked_until', '=', job.locked_until)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
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

  /** Drops results past their expiry, items included (the summary stays listed). */
  async expireResults(now: number) {
    await this.db
      .deleteFrom('job_items')
      .where('job_id', 'in', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where('result_expires_at', '<', now)
          .where('result', 'is not', null),
      )
      .execute();
    return this.db
      .updateTable('jobs')
      .set({ result: null })
      .where('result_expires_at', '<', now)
      .where('result', 'is not', null)
      .execute();
  }
}
