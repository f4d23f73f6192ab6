// SQL of the jobs table: the truth the API reads. Every state change is a guarded UPDATE so that
// two workers can never both move the same job.
import { CompiledQuery, type Insertable, sql } from 'kysely';
import type pg from 'pg';
import type { Db, Dialect, PgPools, Tx } from '../store/db.js';
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

/** A job to claim by id; `startedAt` when its worker began the attempt before claiming it. */
export interface Claim {
  id: string;
  startedAt?: number;
}

interface Statement {
  name: string;
  text: string;
}

// PostgreSQL statements of the engine's hot path: a batch of rows as one JSON parameter. Those that
// change rows by id write their state guards as `status || ''`: the rows must be found through the
// primary key. Left indexable, the planner (without statistics, as on a fresh table) walks
// jobs_claim's 'queued' or 'active' range instead, which under load holds every backlog row, or the
// dead entries of every job since the last vacuum.

/** $1: fresh job rows (JSON array of objects keyed by column). */
const INSERT_MANY: Statement = {
  name: 'unfurl_jobs_insert_many',
  text: `insert into jobs (id, account_id, kind, status, input, max_attempts, held, webhook_url, dedupe_key,
      run_at, created_at)
    select id, account_id, kind, status, input, max_attempts, coalesce(held, 0), webhook_url, dedupe_key,
      run_at, created_at
    from json_populate_recordset(null::jobs, $1::json)`,
};

/**
 * `claimManyById`. $1: [{id, started_at}], $2: worker id, $3: lease end, $4: now. Takes rows that
 * are due, or whose lease ran out, with attempts left; answers the claimed rows.
 */
const CLAIM_MANY: Statement = {
  name: 'unfurl_jobs_claim_many',
  text: `update jobs as j set status = 'active', attempts = j.attempts + 1, locked_by = $2,
      locked_until = $3, started_at = coalesce(j.started_at, v.started_at)
    from json_to_recordset($1::json) as v(id text, started_at bigint)
    where j.id = v.id and j.attempts < j.max_attempts
      and ((j.status || '' = 'queued' and j.run_at <= $4)
        or (j.status || '' = 'active' and j.locked_until < $4))
    returning j.*`,
};

/**
 * `finishMany`. $1: [{id, status, result, error, error_code, cost, started_at, held_as, attempts}],
 * $2: now, $3: result expiry, $4: worker id. Each row is guarded as `finish` guards it: held by
 * this worker (`held_as` active), or still queued at the attempt count its worker started from.
 */
const FINISH_MANY: Statement = {
  name: 'unfurl_jobs_finish_many',
  text: `update jobs as j set
      status = v.status, result = v.result, error = v.error, error_code = v.error_code, cost = v.cost,
      completed_at = $2, duration_ms = $2 - coalesce(j.started_at, v.started_at),
      started_at = coalesce(j.started_at, v.started_at),
      attempts = j.attempts + (case when v.held_as = 'queued' then 1 else 0 end),
      result_expires_at = $3, locked_by = null, locked_until = null
    from json_to_recordset($1::json) as v(id text, status text, result text, error text,
      error_code text, cost bigint, started_at bigint, held_as text, attempts int)
    where j.id = v.id and j.status || '' = v.held_as
      and ((v.held_as = 'active' and j.locked_by = $4)
        or (v.held_as = 'queued' and j.attempts = v.attempts and j.locked_by is null))
    returning j.id, j.kind, j.status, j.webhook_url`,
};

/** What a claim writes: this worker's lease, one more attempt, the first attempt's start kept. */
function claimed(workerId: string, lockedUntil: number, startedAt: number) {
  return {
    status: 'active' as const,
    attempts: sql<number>`attempts + 1`,
    locked_by: workerId,
    locked_until: lockedUntil,
    started_at: sql<number>`coalesce(started_at, ${startedAt})`,
  };
}

/** Each claimed id once (its first claim wins), with the start time to record. */
function startTimes(claims: readonly Claim[], now: number): Map<string, number> {
  const starts = new Map<string, number>();
  for (const c of claims) if (!starts.has(c.id)) starts.set(c.id, c.startedAt ?? now);
  return starts;
}

/** What is known of a job that ended (all a batched ending returns). */
export type EndedJob = Pick<JobRow, 'id' | 'kind' | 'status' | 'webhook_url'>;

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
    /** PostgreSQL: the pools under `db` and `workerDb`, for prepared statements. */
    private readonly pools?: PgPools,
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

  /**
   * Job counts for the /metrics gauges: all jobs by status, and queued/active ones by kind. Both
   * queries are covered by the (status, run_at) index: counting by status scans the index only, and
   * queued/active jobs are a small range of it.
   */
  async countsForGauges() {
    const byState = await this.db
      .selectFrom('jobs')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    const live = await this.db
      .selectFrom('jobs')
      .select(['kind', 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', 'in', ['queued', 'active'])
      .groupBy(['kind', 'status'])
      .execute();
    const count = <R extends { n: number | string }>(rows: R[]) =>
      rows.map((r) => ({ ...r, n: Number(r.n) }));
    return { byState: count(byState), live: count(live) };
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
   * prepared INSERT … SELECT FROM json_populate_recordset($1): the same statement whatever the
   * batch size, one parameter to send.
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
    await this.hot(INSERT_MANY, [JSON.stringify(rows)], db === this.db ? this.pools?.api : undefined, db);
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
   * claim's `startedAt` is when its worker began the attempt, if earlier than now.
   */
  claimManyById(claims: readonly Claim[], workerId: string, leaseMs: number): Promise<JobRow[]> {
    const now = Date.now();
    const unique = startTimes(claims, now);
    if (unique.size === 0) return Promise.resolve([]);
    if (this.dialect === 'pg') {
      const claimsJson = JSON.stringify(
        [...unique].map(([id, startedAt]) => ({ id, started_at: startedAt })),
      );
      return this.hot<JobRow>(
        CLAIM_MANY,
        [claimsJson, workerId, now + leaseMs, now],
        this.pools?.worker,
        this.workerDb,
      );
    }
    // SQLite claims one job at a time here (the embedded queue claims in claimDue).
    return Promise.all(
      [...unique].map(([id, startedAt]) =>
        this.workerDb
          .updateTable('jobs')
          .set(claimed(workerId, now + leaseMs, startedAt))
          .where('id', '=', id)
          .where(sql<boolean>`attempts < max_attempts`)
          .where((eb) =>
            eb.or([
              eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
              eb.and([eb('status', '=', 'active'), eb('locked_until', '<', now)]),
            ]),
          )
          .returningAll()
          .executeTakeFirst(),
      ),
    ).then((rows) => rows.filter((r): r is JobRow => r !== undefined));
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

  /**
   * Ends a job as completed or failed; the final row, or undefined if this worker lost it. `job` is
   * the row as this worker holds it: `active` under its lease, or `queued` for a first attempt run
   * straight from its queue message (ended only if nobody touched the row meanwhile; the attempt is
   * counted and its start recorded here).
   */
  finish(
    db: Db | Tx,
    job: JobRow,
    workerId: string,
    outcome: JobOutcome,
    resultTtlMs: number,
  ): Promise<JobRow | undefined> {
    const now = Date.now();
    const unclaimed = job.status === 'queued';
    let q = db
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
        ...(unclaimed && { attempts: sql`attempts + 1`, started_at: job.started_at }),
      })
      .where('id', '=', job.id);
    q = unclaimed
      ? q.where('status', '=', 'queued').where('attempts', '=', job.attempts).where('locked_by', 'is', null)
      : q.where('status', '=', 'active').where('locked_by', '=', workerId);
    return q.returningAll().executeTakeFirst();
  }

  /**
   * `finish` for many jobs in one statement (PostgreSQL: one round trip, one commit; each row keeps
   * its own guard, so a job this worker lost is left alone). Only for endings that need nothing
   * else in their transaction: no credits held, no webhook. The rows that ended.
   */
  async finishMany(ends: readonly FinishItem[], workerId: string, resultTtlMs: number): Promise<EndedJob[]> {
    if (ends.length === 0) return [];
    const now = Date.now();
    if (this.dialect !== 'pg') {
      const rows = await Promise.all(
        ends.map((e) => this.finish(this.workerDb, e.job, workerId, e.outcome, resultTtlMs)),
      );
      return rows.filter((r): r is JobRow => r !== undefined);
    }
    const endsJson = JSON.stringify(
      ends.map((e) => ({
        id: e.job.id,
        status: e.outcome.status,
        result: e.outcome.result === undefined ? null : JSON.stringify(e.outcome.result),
        error: e.outcome.error ?? null,
        error_code: e.outcome.errorCode ?? null,
        cost: e.outcome.cost,
        started_at: e.job.started_at ?? now,
        held_as: e.job.status,
        attempts: e.job.attempts,
      })),
    );
    return this.hot<EndedJob>(
      FINISH_MANY,
      [endsJson, now, now + resultTtlMs, workerId],
      this.pools?.worker,
      this.workerDb,
    );
  }

  /**
   * Runs one of the engine's hot statements (PostgreSQL): given a pool, as a named prepared
   * statement (parsed and planned once per connection, not once per batch); else through `db`.
   */
  private async hot<R>(statement: Statement, values: unknown[], pool: pg.Pool | undefined, db: Db | Tx) {
    if (pool) return (await pool.query<R & pg.QueryResultRow>({ ...statement, values })).rows as R[];
    return (await db.executeQuery<R>(CompiledQuery.raw(statement.text, values))).rows;
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
