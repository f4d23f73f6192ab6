// Accepting jobs (API side): validate, hold the most the job can cost, record it, honour
// Idempotency-Key, then hand it to the queue. One transaction, so a job is never half-accepted.
import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { Ledger } from '../billing/ledger.js';
import type { JobCredits } from '../billing/request-charges.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { lockAccountRow } from '../store/account-lock.js';
import { type Db, isUniqueViolation, type Tx } from '../store/db.js';
import { BATCHES_IN_FLIGHT, MicroBatcher } from '../store/micro-batch.js';
import { ENDED_JOB_STATES, type JobRow, type JobsTable } from '../store/schema.js';
import { JobEndings } from './endings.js';
import { refreshJobGauges } from './gauges.js';
import type { JobQueue, QueuedJob } from './queue.js';
import type { JobListQuery } from './records/reads.js';
import type { JobRecords } from './records.js';
import type { JobRegistry } from './registry.js';
import type { JobKind, PerAccountLimit, ViewOptions } from './types.js';
import { pollAnswer, resultOf } from './views.js';

export interface SubmitRequest {
  accountId: string;
  kind: string;
  input: unknown;
  webhookUrl?: string | null;
  idempotencyKey?: string | null;
}

export interface SubmitResult {
  jobId: string;
  /** False when an existing job answered (idempotent replay or a running duplicate). */
  created: boolean;
  /**
   * A job created with a hold: what it holds and the balance its accepting transaction left. Read
   * there because the job may already have ended (and settled) by the time the caller looks.
   */
  credits?: JobCredits;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export class JobService {
  constructor(
    private readonly db: Db,
    private readonly records: JobRecords,
    private readonly registry: JobRegistry,
    private readonly ledger: Ledger,
    private readonly queue: JobQueue,
    private readonly defaults: {
      maxAttempts: number;
      resultTtlMs: number;
      /**
       * Most live (queued or active) jobs an account may have, by the `key` of each limit group the
       * kinds declare (Config's accountJobLimits).
       */
      perAccount: Readonly<Record<string, number>>;
    },
    private readonly log: { warn(obj: object, msg: string): void } = console,
  ) {}

  /** Queue messages handed on and not yet sent. */
  private unsent = 0;
  /** Who hears of a cancel request on a running job (this process's runner, if it runs jobs). */
  private readonly cancelListeners = new Set<(jobId: string) => void>();
  private endingsOfCancels: JobEndings | undefined;

  private readonly plainInserts = new MicroBatcher<Insertable<JobsTable>>(
    (rows) => this.records.insertMany(rows),
    500,
    BATCHES_IN_FLIGHT,
  );

  async submit(req: SubmitRequest): Promise<SubmitResult> {
    const kind = this.registry.require(req.kind);
    const key = req.idempotencyKey ?? null;
    const requestHash = key
      ? createHash('sha256')
          .update(canonical({ kind: req.kind, input: req.input, webhookUrl: req.webhookUrl ?? null }))
          .digest('hex')
      : '';
    if (key) {
      const replay = await this.replay(req.accountId, key, requestHash);
      if (replay) return replay;
    }
    const dedupeKey = kind.dedupeKey?.(req.input) ?? null;
    if (dedupeKey) {
      const live = await this.records.findLive(req.accountId, req.kind, dedupeKey);
      if (live) return { jobId: live.id, created: false };
    }
    const estimate = Math.max(0, Math.ceil(kind.estimate(req.input)));
    const jobId = newId('job');
    const now = Date.now();
    const row: Insertable<JobsTable> = {
      id: jobId,
      account_id: req.accountId,
      kind: req.kind,
      status: 'queued',
      input: JSON.stringify(req.input),
      result: null,
      error: null,
      error_code: null,
      max_attempts: kind.maxAttempts ?? this.defaults.maxAttempts,
      held: estimate,
      cost: null,
      webhook_url: req.webhookUrl ?? null,
      dedupe_key: dedupeKey,
      run_at: now,
      locked_by: null,
      locked_until: null,
      created_at: now,
      started_at: null,
      completed_at: null,
      duration_ms: null,
      result_expires_at: null,
    };
    let credits: SubmitResult['credits'];
    try {
      if (estimate === 0 && !key && !dedupeKey && !kind.perAccount) {
        // Nothing to hold: the row alone is the job, and concurrent ones share one INSERT.
        await this.plainInserts.add(row);
      } else {
        await this.db.transaction().execute(async (tx) => {
          const fitted = await this.fitToBalance(tx, kind, req.accountId, req.input, estimate);
          const held = fitted.estimate;
          await tx
            .insertInto('jobs')
            .values(fitted.input === req.input ? row : { ...row, input: JSON.stringify(fitted.input), held })
            .execute();
          if (held > 0) {
            const remaining = await this.ledger.hold(
              req.accountId,
              jobId,
              held,
              1,
              `Hold for ${req.kind} job`,
              req.kind,
              tx,
            );
            credits = { held, remaining };
          }
          if (kind.perAccount) await this.checkAccountLimit(tx, req.accountId, kind.perAccount, held > 0);
          if (key) {
            await tx
              .insertInto('idempotency_keys')
              .values({
                account_id: req.accountId,
                key,
                request_hash: requestHash,
                job_id: jobId,
                created_at: now,
              })
              .execute();
          }
        });
      }
    } catch (err) {
      // Two requests raced with the same Idempotency-Key: the loser answers like a replay.
      if (key && isUniqueViolation(err)) {
        const replay = await this.replay(req.accountId, key, requestHash);
        if (replay) return replay;
      }
      // Two identical requests raced while no job ran yet: the loser joins the winner's job.
      if (dedupeKey && isUniqueViolation(err)) {
        const live = await this.records.findLive(req.accountId, req.kind, dedupeKey);
        if (live) return { jobId: live.id, created: false };
      }
      throw err;
    }
    await this.handOn({
      id: jobId,
      kind: req.kind,
      runAt: now,
      attempt: 0,
      // Nothing to settle or send at its end: a worker may run it straight from the message.
      ...(estimate === 0 &&
        !row.webhook_url && {
          fresh: {
            kind: req.kind,
            accountId: req.accountId,
            input: row.input as string,
            maxAttempts: row.max_attempts,
            createdAt: now,
          },
        }),
    });
    return { jobId, created: true, ...(credits && { credits }) };
  }

  /**
   * The job cut to the balance when its kind can do less for less and the balance is short of the
   * estimate (a crawl of fewer pages rather than a 402). The balance is read under the account row's
   * lock, which the hold then takes again, so it cannot move in between and the hold never overdraws.
   */
  private async fitToBalance(
    tx: Tx,
    kind: JobKind,
    accountId: string,
    input: unknown,
    estimate: number,
  ): Promise<{ input: unknown; estimate: number }> {
    if (!kind.fitToBalance || estimate === 0) return { input, estimate };
    const balance = await lockAccountRow(tx, accountId);
    if (balance >= estimate) return { input, estimate };
    const fitted = kind.fitToBalance(input, balance);
    return { input: fitted, estimate: Math.max(0, Math.ceil(kind.estimate(fitted))) };
  }

  /**
   * Refuses (429) a job that would take the account past its live jobs of one limit group. Counted
   * inside the accepting transaction once the account row is locked (the hold locks it), so concurrent
   * submits on any number of processes cannot pass the limit together; the count includes this job.
   */
  private async checkAccountLimit(tx: Tx, accountId: string, group: PerAccountLimit, locked: boolean) {
    const limit = this.defaults.perAccount[group.key];
    if (limit === undefined) throw new Error(`no account job limit named ${group.key} is configured`);
    if (!locked) await lockAccountRow(tx, accountId);
    const kinds = this.registry
      .all()
      .filter((k) => k.perAccount?.key === group.key)
      .map((k) => k.kind);
    const row = await tx
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('kind', 'in', kinds)
      .where('status', 'in', ['queued', 'active'])
      .executeTakeFirst();
    if (Number(row?.n ?? 0) > limit) {
      throw new AppError(
        'rate_limited',
        `This account already has ${limit} ${group.name} queued or running; retry when one has finished`,
        `limit=${limit}`,
        { retryAfterMs: ACCOUNT_LIMIT_RETRY_AFTER_S * 1000 },
      );
    }
  }

  /**
   * Tells the queue about a committed job without making the caller wait for it: a job is accepted
   * once its row is committed, and a queue message that never arrives (Redis down, this process
   * killed) is re-sent by the sweeper (`overdueQueued`). Callers wait only while more than
   * MAX_UNSENT messages are on their way (a queue slower than the submits).
   */
  private async handOn(job: QueuedJob): Promise<void> {
    this.unsent++;
    const sent = this.queue
      .enqueue(job)
      .catch((err) =>
        this.log.warn({ err, jobId: job.id }, 'queue message not sent; the sweeper re-sends it'),
      )
      .finally(() => {
        this.unsent--;
      });
    if (this.unsent > MAX_UNSENT) await sent;
  }

  /** Resolves once every queue message handed on so far was sent (or failed); used at shutdown. */
  async flushed(): Promise<void> {
    while (this.unsent > 0) await new Promise((r) => setTimeout(r, 2));
  }

  private async replay(accountId: string, key: string, requestHash: string): Promise<SubmitResult | null> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'job_id', 'created_at'])
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return null;
    if (row.created_at < Date.now() - IDEMPOTENCY_TTL_MS) {
      await this.db
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .execute();
      return null;
    }
    if (row.request_hash !== requestHash) {
      throw new AppError(
        'conflict',
        'This Idempotency-Key was already used with a different request body',
        'Idempotency-Key',
      );
    }
    return { jobId: row.job_id, created: false };
  }

  /** The job as its owner polls it: its kind's poll answer (its webhooks send the same). */
  pollAnswer(job: JobRow, opts?: ViewOptions): Record<string, unknown> {
    return pollAnswer(this.registry, job, opts);
  }

  /** The job's result as its owner reads it (GET /v1/jobs/{jobId}): its kind's reading of the stored one. */
  resultOf(job: JobRow): unknown {
    return resultOf(this.registry, job);
  }

  /** The caller's job, if it is of one of `kinds`; its result must not have expired. */
  async getReadable(accountId: string, jobId: string, kinds?: readonly string[]) {
    const job = await this.records.getForAccount(accountId, jobId, kinds);
    if (!job) throw new AppError('not_found', 'job not found');
    if (job.result_expires_at !== null && job.result_expires_at < Date.now()) {
      throw new AppError('not_found', 'job result has expired');
    }
    return job;
  }

  /**
   * Cancels a queued or running job of the caller. A queued one ends `cancelled` at once, its hold
   * released and its webhook queued in one transaction (a worker that was about to start it finds it
   * gone). A running one is asked to stop (cancel_requested_at): its worker aborts the attempt and
   * ends it `cancelled` under its lease, billing what it had done (a crawl's pages) and releasing
   * the rest; this waits up to CANCEL_WAIT_MS for that. `stopped` is false when the job still ran
   * then (it stops shortly, or its worker died and the sweeper ends it). A job that ended already,
   * or ends on its own before the worker sees the request, is a 409: it is never both.
   */
  async cancel(accountId: string, jobId: string): Promise<{ job: JobRow; stopped: boolean }> {
    const deadline = Date.now() + CANCEL_WAIT_MS;
    let asked = false;
    for (;;) {
      const job = await this.records.getForAccount(accountId, jobId);
      if (!job) throw new AppError('not_found', 'job not found');
      if (ENDED_JOB_STATES.includes(job.status)) {
        if (asked && job.status === 'cancelled') return { job, stopped: true };
        const what = job.status === 'cancelled' ? 'was already cancelled' : `has already ${job.status}`;
        throw new AppError(
          'conflict',
          `Job ${jobId} ${what}; only a queued or active job can be cancelled`,
          `status=${job.status}`,
        );
      }
      if (job.status === 'queued') {
        const ended = await this.cancelEndings().endWith(job, 0, (tx) =>
          this.records.cancelUnheld(tx, job, this.defaults.resultTtlMs),
        );
        if (ended) return { job: ended, stopped: true };
        continue; // a worker took it meanwhile: look again
      }
      if (!asked) {
        // Not running any more (ended, or back in the queue for a retry): look again.
        if (!(await this.records.requestCancel(job.id))) continue;
        asked = true;
        for (const listener of this.cancelListeners) listener(job.id);
      }
      if (Date.now() >= deadline) return { job, stopped: false };
      await new Promise((r) => setTimeout(r, CANCEL_POLL_MS));
    }
  }

  /** Calls `listener` with each job whose running attempt this process asks to stop; undoes it. */
  onCancelRequested(listener: (jobId: string) => void): () => void {
    this.cancelListeners.add(listener);
    return () => this.cancelListeners.delete(listener);
  }

  private cancelEndings(): JobEndings {
    this.endingsOfCancels ??= new JobEndings(
      this.db,
      this.records,
      this.ledger,
      'api',
      this.defaults.resultTtlMs,
      this.registry,
    );
    return this.endingsOfCancels;
  }

  list(accountId: string, q: JobListQuery) {
    return this.records.list(accountId, q);
  }

  /** Sets the job gauges of /metrics from the jobs table (every process reports the same numbers). */
  refreshGauges(): Promise<void> {
    return refreshJobGauges(this.records, this.registry);
  }
}

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Retry-After of a job refused by a per-account limit: about the time a short job takes. */
const ACCOUNT_LIMIT_RETRY_AFTER_S = 5;

/** How long a cancel waits for the worker of a running job to stop it before answering. */
const CANCEL_WAIT_MS = 3000;
const CANCEL_POLL_MS = 50;

/** Queue messages a process may have on their way before submits wait for them. */
const MAX_UNSENT = 10_000;
