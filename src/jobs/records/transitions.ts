// Every write to the jobs table: accepting jobs, claiming them, renewing a lease, ending, retrying,
// the sweeper's recoveries and result expiry. Every state change is an UPDATE guarded by the state
// its caller holds (status, worker, attempt count or lease), so two workers can never both move the
// same job. The batched statements of the hot path come in a raw PostgreSQL form and a Kysely twin
// (hot-statements.ts); this class picks the form for the database.
import { type Insertable, sql } from 'kysely';
import type { Db, Dialect, PgPools, Tx } from '../../store/db.js';
import type { JobRow, JobsTable } from '../../store/schema.js';
import { deleteItems } from '../items.js';
import {
  allFresh,
  type Claim,
  claimed,
  claimJobsById,
  type EndedJob,
  type FinishItem,
  finishJob,
  finishJobs,
  insertJobs,
  type JobOutcome,
  type PgTarget,
  startTimes,
} from './hot-statements.js';

export class JobTransitions {
  constructor(
    private readonly db: Db,
    /** For worker-side writes (see Store.workerDb). */
    private readonly workerDb: Db,
    readonly dialect: Dialect,
    /** PostgreSQL: the pools under `db` and `workerDb`, for prepared statements. */
    private readonly pools?: PgPools,
  ) {}

  /**
   * Records new jobs in one statement. On PostgreSQL, fresh rows (nothing run yet) go in as one
   * prepared INSERT … SELECT FROM json_populate_recordset($1): the same statement whatever the
   * batch size, one parameter to send.
   */
  async insertMany(rows: ReadonlyArray<Insertable<JobsTable>>, db: Db | Tx = this.db): Promise<void> {
    if (rows.length === 0) return;
    if (this.dialect !== 'pg' || !allFresh(rows)) return insertJobs.kysely(db, rows);
    return insertJobs.pg({ pool: db === this.db ? this.pools?.api : undefined, db }, rows);
  }

  /**
   * Takes a specific job if it is due, or if its previous worker's lease ran out. Counts an attempt.
   */
  async claimById(jobId: string, workerId: string, leaseMs: number): Promise<JobRow | undefined> {
    return (await this.claimManyById([{ id: jobId }], workerId, leaseMs))[0];
  }

  /**
   * `claimById` for many jobs in one statement (one round trip, one commit): the rows this worker
   * took; ids that are not claimable now (held, not due, ended, out of attempts) are left out. A
   * claim's `startedAt` is when its worker began the attempt, if earlier than now. SQLite claims
   * one job at a time here (the embedded queue claims in claimDue).
   */
  claimManyById(claims: readonly Claim[], workerId: string, leaseMs: number): Promise<JobRow[]> {
    const now = Date.now();
    const starts = startTimes(claims, now);
    if (starts.size === 0) return Promise.resolve([]);
    return this.dialect === 'pg'
      ? claimJobsById.pg(this.onWorker(), starts, workerId, now + leaseMs, now)
      : claimJobsById.kysely(this.workerDb, starts, workerId, now + leaseMs, now);
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
      .set(claimed(workerId, now + leaseMs, now))
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

  /** Ends a job this worker holds (see `finishJob`); the final row, or undefined if it lost the job. */
  finish(
    db: Db | Tx,
    job: JobRow,
    workerId: string,
    outcome: JobOutcome,
    resultTtlMs: number,
  ): Promise<JobRow | undefined> {
    return finishJob(db, job, workerId, outcome, resultTtlMs);
  }

  /**
   * `finish` for many jobs in one statement (PostgreSQL: one round trip, one commit; each row keeps
   * its own guard, so a job this worker lost is left alone). Only for endings that need nothing
   * else in their transaction: no credits held, no webhook. The rows that ended.
   */
  async finishMany(ends: readonly FinishItem[], workerId: string, resultTtlMs: number): Promise<EndedJob[]> {
    if (ends.length === 0) return [];
    return this.dialect === 'pg'
      ? finishJobs.pg(this.onWorker(), ends, workerId, resultTtlMs)
      : finishJobs.kysely(this.workerDb, ends, workerId, resultTtlMs);
  }

  /** Fails a job that is not held by anyone (lease ran out with no attempts left). */
  failUnheld(db: Db | Tx, job: JobRow, error: string, errorCode: string, resultTtlMs: number) {
    return this.endUnheld(db, job, { status: 'failed', error, error_code: errorCode }, resultTtlMs);
  }

  /**
   * Cancels a job no worker holds: a queued one (also one a worker runs straight from its queue
   * message: that run's claim and its end are guarded on `queued`, so they find it gone), or an
   * active one whose worker died after its owner asked to cancel it. Nothing is charged.
   */
  cancelUnheld(db: Db | Tx, job: JobRow, resultTtlMs: number) {
    return this.endUnheld(db, job, { status: 'cancelled', error: null, error_code: null }, resultTtlMs);
  }

  /** Ends a job nobody holds, guarded on the state and attempt count it was read in. */
  private endUnheld(
    db: Db | Tx,
    job: JobRow,
    end: { status: 'failed' | 'cancelled'; error: string | null; error_code: string | null },
    resultTtlMs: number,
  ) {
    const now = Date.now();
    let q = db
      .updateTable('jobs')
      .set({
        ...end,
        cost: 0,
        completed_at: now,
        duration_ms: job.started_at === null ? null : now - job.started_at,
        result_expires_at: now + resultTtlMs,
        locked_by: null,
        locked_until: null,
      })
      .where('id', '=', job.id)
      .where('status', '=', job.status)
      .where('attempts', '=', job.attempts);
    // A queued row is unheld by definition; an active one only once its lease ran out.
    if (job.status === 'queued') q = q.where('locked_by', 'is', null);
    else q = q.where('locked_until', '=', job.locked_until);
    return q.returningAll().executeTakeFirst();
  }

  /**
   * Asks the worker running a job to stop it (see `cancelRequestedOf`); false if the job is not
   * running. A second request keeps the first one's time.
   */
  async requestCancel(jobId: string): Promise<boolean> {
    const r = await this.db
      .updateTable('jobs')
      .set({ cancel_requested_at: sql`coalesce(cancel_requested_at, ${Date.now()})` })
      .where('id', '=', jobId)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The jobs this worker runs whose owners asked to cancel them. */
  async cancelRequestedOf(workerId: string): Promise<string[]> {
    const rows = await this.workerDb
      .selectFrom('jobs')
      .select('id')
      .where('status', '=', 'active')
      .where('locked_by', '=', workerId)
      .where('cancel_requested_at', 'is not', null)
      .execute();
    return rows.map((r) => r.id);
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

  /**
   * Drops results past their expiry, items included (the summary stays listed), `batch` jobs at a
   * time and at most `maxBatches` batches per call (the sweeper's next run takes the rest): every
   * statement stays short however many results expire at once. The jobs are found through the
   * partial index of unexpired results. Answers how many results were dropped.
   */
  async expireResults(now: number, batch = 200, maxBatches = 25): Promise<number> {
    let dropped = 0;
    for (let i = 0; i < maxBatches; i++) {
      const due = await this.db
        .selectFrom('jobs')
        .select('id')
        .where('result', 'is not', null)
        .where('result_expires_at', '<', now)
        .orderBy('result_expires_at')
        .limit(batch)
        .execute();
      if (due.length === 0) break;
      const ids = due.map((j) => j.id);
      for (const id of ids) await deleteItems(this.db, id);
      const r = await this.db
        .updateTable('jobs')
        .set({ result: null })
        .where('id', 'in', ids)
        .where('result_expires_at', '<', now)
        .executeTakeFirst();
      dropped += Number(r.numUpdatedRows);
      if (due.length < batch) break;
    }
    return dropped;
  }

  /** The worker side, for the raw statements: its pool (prepared statements) and handle. */
  private onWorker(): PgTarget {
    return { pool: this.pools?.worker, db: this.workerDb };
  }
}
