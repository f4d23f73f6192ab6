// SQL of the jobs table: the truth the API reads. Every state change is a guarded UPDATE so that
// two workers can never both move the same job.
import { sql } from 'kysely';
import type { Db, Dialect, Tx } from '../store/db.js';
import type { JobRow, JobStatus } from '../store/schema.js';

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
    return this.workerDb
      .updateTable('jobs')
      .set({
        status: 'active',
        attempts: sql`attempts + 1`,
        locked_by: workerId,
        locked_until: now + leaseMs,
        started_at: sql`coalesce(started_at, ${now})`,
      })
      .where((eb) =>
        // One array parameter on PostgreSQL: the same statement text whatever the batch size.
        this.dialect === 'pg' ? sql<boolean>`id = any(${ids})` : eb('id', 'in', ids),
      )
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
    const col = <V>(pick: (e: FinishItem) => V) => ends.map(pick);
    const r = await sql<JobRow>`
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
      where j.id = v.id and j.status = 'active' and j.locked_by = ${workerId}
      returning j.*`.execute(this.workerDb);
    return r.rows;
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
