// The job engine's hot path on PostgreSQL: accepting, claiming by id and ending a batch of jobs in
// one statement each, the batch as one JSON parameter, run as a named prepared statement. Each raw
// statement sits beside its Kysely twin (`pg` and `kysely` forms of one object): SQLite runs the
// twin, and test/jobs/hot-statements.test.ts runs both on PostgreSQL and checks that they leave a
// job in the same state, guards included. Change one form, change the other.
//
// The raw statements that change rows by id write their state guards as `status || ''`: the rows
// must be found through the primary key. Left indexable, the planner (without statistics, as on a
// fresh table) walks jobs_claim's 'queued' or 'active' range instead, which under load holds every
// backlog row, or the dead entries of every job since the last vacuum.
import { CompiledQuery, type Insertable, sql } from 'kysely';
import type pg from 'pg';
import type { Db, Tx } from '../../store/db.js';
import type { JobRow, JobsTable } from '../../store/schema.js';

/** How a held job ends (what `finish` writes). */
export interface JobOutcome {
  status: 'completed' | 'failed' | 'cancelled';
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

/** What is known of a job that ended (all a batched ending returns). */
export type EndedJob = Pick<JobRow, 'id' | 'kind' | 'status' | 'webhook_url'>;

export interface FinishItem {
  job: JobRow;
  outcome: JobOutcome;
}

interface Statement {
  name: string;
  text: string;
}

/** Where a raw statement runs: on `pool` as a prepared statement if given, else through `db`. */
export interface PgTarget {
  pool: pg.Pool | undefined;
  db: Db | Tx;
}

/**
 * Runs a raw statement: on a pool, as a named prepared statement (parsed and planned once per
 * connection, not once per batch); else (inside a transaction) through `db`.
 */
async function runRaw<R>(statement: Statement, values: unknown[], { pool, db }: PgTarget): Promise<R[]> {
  if (pool) return (await pool.query<R & pg.QueryResultRow>({ ...statement, values })).rows as R[];
  return (await db.executeQuery<R>(CompiledQuery.raw(statement.text, values))).rows;
}

/** Columns a just-accepted job leaves empty (the PostgreSQL insert writes none of them). */
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

/** Whether every row is a fresh job (nothing run yet): the only rows `insertJobs.pg` takes. */
export function allFresh(rows: ReadonlyArray<Insertable<JobsTable>>): boolean {
  return rows.every((r) =>
    UNSET_ON_NEW_JOB.every((c) => r[c] === null || r[c] === undefined || (c === 'attempts' && r[c] === 0)),
  );
}

/** Records new jobs in one statement. */
export const insertJobs = {
  /** $1: fresh job rows (JSON array of objects keyed by column): one statement whatever the batch size. */
  raw: {
    name: 'unfurl_jobs_insert_many',
    text: `insert into jobs (id, account_id, kind, status, input, max_attempts, held, webhook_url, dedupe_key,
      run_at, created_at)
    select id, account_id, kind, status, input, max_attempts, coalesce(held, 0), webhook_url, dedupe_key,
      run_at, created_at
    from json_populate_recordset(null::jobs, $1::json)`,
  } satisfies Statement,

  async pg(target: PgTarget, rows: ReadonlyArray<Insertable<JobsTable>>): Promise<void> {
    await runRaw(insertJobs.raw, [JSON.stringify(rows)], target);
  },

  async kysely(db: Db | Tx, rows: ReadonlyArray<Insertable<JobsTable>>): Promise<void> {
    await db.insertInto('jobs').values(rows).execute();
  },
};

/** What a claim writes: this worker's lease, one more attempt, the first attempt's start kept. */
export function claimed(workerId: string, lockedUntil: number, startedAt: number) {
  return {
    status: 'active' as const,
    attempts: sql<number>`attempts + 1`,
    locked_by: workerId,
    locked_until: lockedUntil,
    started_at: sql<number>`coalesce(started_at, ${startedAt})`,
  };
}

/** Each claimed id once (its first claim wins), with the start time to record. */
export function startTimes(claims: readonly Claim[], now: number): Map<string, number> {
  const starts = new Map<string, number>();
  for (const c of claims) if (!starts.has(c.id)) starts.set(c.id, c.startedAt ?? now);
  return starts;
}

/**
 * Claims jobs by id (`starts`: id → start time): takes the rows that are due, or whose lease ran
 * out, with attempts left; answers the claimed rows.
 */
export const claimJobsById = {
  /** $1: [{id, started_at}], $2: worker id, $3: lease end, $4: now. */
  raw: {
    name: 'unfurl_jobs_claim_many',
    text: `update jobs as j set status = 'active', attempts = j.attempts + 1, locked_by = $2,
      locked_until = $3, started_at = coalesce(j.started_at, v.started_at)
    from json_to_recordset($1::json) as v(id text, started_at bigint)
    where j.id = v.id and j.attempts < j.max_attempts
      and ((j.status || '' = 'queued' and j.run_at <= $4)
        or (j.status || '' = 'active' and j.locked_until < $4))
    returning j.*`,
  } satisfies Statement,

  pg(
    target: PgTarget,
    starts: ReadonlyMap<string, number>,
    workerId: string,
    lockedUntil: number,
    now: number,
  ): Promise<JobRow[]> {
    const claimsJson = JSON.stringify([...starts].map(([id, startedAt]) => ({ id, started_at: startedAt })));
    return runRaw<JobRow>(claimJobsById.raw, [claimsJson, workerId, lockedUntil, now], target);
  },

  /** One guarded UPDATE per job. */
  kysely(
    db: Db,
    starts: ReadonlyMap<string, number>,
    workerId: string,
    lockedUntil: number,
    now: number,
  ): Promise<JobRow[]> {
    return Promise.all(
      [...starts].map(([id, startedAt]) =>
        db
          .updateTable('jobs')
          .set(claimed(workerId, lockedUntil, startedAt))
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
  },
};

/**
 * Ends a job as completed or failed; the final row, or undefined if this worker lost it. `job` is
 * the row as this worker holds it: `active` under its lease, or `queued` for a first attempt run
 * straight from its queue message (ended only if nobody touched the row meanwhile; the attempt is
 * counted and its start recorded here). The Kysely form of `finishJobs`, one job at a time.
 */
export function finishJob(
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

/** Ends many jobs, each under `finishJob`'s guard; the rows that ended. */
export const finishJobs = {
  /**
   * $1: [{id, status, result, error, error_code, cost, started_at, held_as, attempts}], $2: now,
   * $3: result expiry, $4: worker id. Each row is guarded as `finishJob` guards it: held by this
   * worker (`held_as` active), or still queued at the attempt count its worker started from.
   */
  raw: {
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
  } satisfies Statement,

  pg(
    target: PgTarget,
    ends: readonly FinishItem[],
    workerId: string,
    resultTtlMs: number,
  ): Promise<EndedJob[]> {
    const now = Date.now();
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
    return runRaw<EndedJob>(finishJobs.raw, [endsJson, now, now + resultTtlMs, workerId], target);
  },

  /** `finishJob` for each job. */
  async kysely(
    db: Db,
    ends: readonly FinishItem[],
    workerId: string,
    resultTtlMs: number,
  ): Promise<EndedJob[]> {
    const rows = await Promise.all(ends.map((e) => finishJob(db, e.job, workerId, e.outcome, resultTtlMs)));
    return rows.filter((r): r is JobRow => r !== undefined);
  },
};
