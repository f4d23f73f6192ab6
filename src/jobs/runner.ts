import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
// Running jobs (worker side): claim, run the handler under a renewed lease, then end the job and its
// billing in one transaction — or put it back with backoff. Also the sweeper that recovers jobs of
// workers that died.

import type { Ledger } from '../billing/ledger.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db, Tx } from '../store/db.js';
import { GroupCommit } from '../store/group-commit.js';
import type { JobRow } from '../store/schema.js';
import { Attempt, type AttemptHost } from './attempt.js';
import { BATCHES_IN_FLIGHT, MicroBatcher } from './micro-batch.js';
import type { FreshJob, JobConsumer, JobQueue } from './queue.js';
import type { Claim, EndedJob, FinishItem, JobOutcome, JobRecords } from './records.js';
import type { JobRegistry } from './registry.js';
import { enqueueWebhook } from './webhooks.js';

export interface RunnerSettings {
  leaseMs: number;
  backoffBaseMs: number;
  resultTtlMs: number;
  /**
   * How long a first attempt run straight from its queue message (nothing held, no webhook) may
   * go before its row is claimed and shows `active` (default 100 ms). Shorter jobs write their
   * row once, at the end.
   */
  claimAfterMs?: number;
  /** A queued job due for this long is re-sent to the queue, which may have lost it (default 10 s). */
  resendAfterMs?: number;
}

const CLAIM_AFTER_MS = 100;

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const RETRYABLE_CODES = new Set([
  'upstream_error',
  'provider_unavailable',
  'rate_limited',
  'service_unavailable',
]);

/** Whether a failure is worth another attempt, and what to tell the caller. */
export function classify(err: unknown): { retryable: boolean; code: string; message: string } {
  if (err instanceof AppError) {
    return {
      retryable: err.retryable ?? RETRYABLE_CODES.has(err.code),
      code: err.code,
      message: err.message,
    };
  }
  if ((err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError') {
    return { retryable: true, code: 'upstream_error', message: 'timed out' };
  }
  // Unknown faults (network resets, bugs) get the remaining attempts; their text stays in our logs.
  return { retryable: true, code: 'internal_error', message: 'internal error while running the job' };
}

/** A fresh job's row as accepted (what `JobService.submit` recorded), from its queue message. */
function freshRow(id: string, fresh: FreshJob): JobRow {
  return {
    id,
    account_id: fresh.accountId,
    kind: fresh.kind,
    status: 'queued',
    input: fresh.input,
    result: null,
    error: null,
    error_code: null,
    attempts: 0,
    max_attempts: fresh.maxAttempts,
    held: 0,
    cost: null,
    webhook_url: null,
    dedupe_key: null,
    run_at: fresh.createdAt,
    locked_by: null,
    locked_until: null,
    created_at: fresh.createdAt,
    started_at: null,
    completed_at: null,
    duration_ms: null,
    result_expires_at: null,
  };
}

export class JobRunner implements JobConsumer {
  readonly workerId = newId('job').replace('job_', `w_${process.pid}_`);
  private readonly shutdown = new AbortController();
  /** Job endings handed on by `run(job, true)`, not yet committed, and who waits for them. */
  private pendingEnds = 0;
  private readonly settleWaiters: Array<() => void> = [];
  /** The attempts running now (aborted when shutdown is forced). */
  private readonly running = new Set<Attempt>();
  private readonly attemptHost: AttemptHost;
  onEnded: (job: EndedJob) => void = () => {};
  /** SQLite: endings share commits (one writer, a cost per commit). PostgreSQL: one each. */
  private readonly endings: GroupCommit | null;
  /**
   * Claims by id arriving together (the distributed queue delivers one id per message) go to the
   * database as one statement on PostgreSQL. A job id twice among them goes to its first caller.
   */
  private readonly claims = new MicroBatcher<Claim, JobRow | undefined>(
    async (batch) => {
      const rows = await this.records.claimManyById(batch, this.workerId, this.settings.leaseMs);
      const claimed = new Map(rows.map((r) => [r.id, r]));
      return batch.map((c) => {
        const row = claimed.get(c.id);
        claimed.delete(c.id);
        return row;
      });
    },
    256,
    BATCHES_IN_FLIGHT,
  );
  /**
   * Endings that touch nothing but the job row (nothing held, no webhook; billed or webhook endings
   * keep their own transaction) arriving together: one statement on PostgreSQL.
   */
  private readonly plainEnds = new MicroBatcher<FinishItem, EndedJob | undefined>(
    async (batch) => {
      const rows = await this.records.finishMany(batch, this.workerId, this.settings.resultTtlMs);
      const ended = new Map(rows.map((r) => [r.id, r]));
      return batch.map((e) => ended.get(e.job.id));
    },
    256,
    BATCHES_IN_FLIGHT,
  );

  constructor(
    private readonly db: Db,
    private readonly records: JobRecords,
    private readonly registry: JobRegistry,
    private readonly ledger: Ledger,
    private readonly queue: JobQueue,
    private readonly settings: RunnerSettings,
    private readonly log: Logger,
  ) {
    // Lease waits listen for shutdown; hundreds may wait at once.
    setMaxListeners(0, this.shutdown.signal);
    this.endings = records.dialect === 'sqlite' ? new GroupCommit(db) : null;
    this.attemptHost = {
      renewEveryMs: Math.max(100, Math.floor(settings.leaseMs / 3)),
      claim: (jobId, startedAt) => this.claim(jobId, startedAt),
      renew: (jobId) => records.heartbeat(jobId, this.workerId, settings.leaseMs),
      hold: (job, credits) =>
        db.transaction().execute(async (tx) => {
          await ledger.hold(job.account_id, job.id, credits, 2, `Additional hold for ${job.kind} job`, tx);
          await records.addHeld(job.id, credits, tx);
        }),
      warn: (obj, msg) => log.warn(obj, msg),
    };
  }

  claimDue(kind: string, limit: number) {
    return this.records.claimDue(kind, limit, this.workerId, this.settings.leaseMs);
  }

  async runById(jobId: string, fresh?: FreshJob): Promise<void> {
    if (fresh) return this.run(freshRow(jobId, fresh), true);
    for (let tries = 0; tries < 20 && !this.shutdown.signal.aborted; tries++) {
      const job = await this.claim(jobId);
      // The queue's message is done once the job ran: its end is recorded meanwhile (see run).
      if (job) return this.run(job, true);
      const row = await this.records.get(jobId);
      if (!row) return;
      // This worker runs it already (the same id delivered twice): the running one ends it.
      if (row.status === 'active' && row.locked_by === this.workerId) return;
      // Another worker holds it: wait its lease out, in case that worker is dead.
      if (row.status === 'active' && row.locked_until) {
        await this.pause(Math.max(50, row.locked_until - Date.now() + 50));
        continue;
      }
      if (row.status === 'queued' && row.run_at > Date.now()) {
        await this.pause(row.run_at - Date.now() + 10);
        continue;
      }
      return; // completed, failed, or out of attempts: nothing to do
    }
  }

  /** A claim in the shared batch; if the batch fails (a neighbour's fault or a blip), alone. */
  private claim(jobId: string, startedAt?: number): Promise<JobRow | undefined> {
    const claim = { id: jobId, startedAt };
    return this.claims
      .add(claim)
      .catch(() =>
        this.records.claimManyById([claim], this.workerId, this.settings.leaseMs).then((rows) => rows[0]),
      );
  }

  /** Tracks a handed-on ending for `settle()`; a failure to record it is logged. */
  private detach(end: Promise<void>): void {
    this.pendingEnds++;
    end.then(this.endRecorded, this.endNotRecorded);
  }

  private readonly endRecorded = () => {
    if (--this.pendingEnds === 0) for (const wake of this.settleWaiters.splice(0)) wake();
  };

  private readonly endNotRecorded = (err: unknown) => {
    this.log.error({ err }, 'recording a job end failed; its lease will run out and it runs again');
    this.endRecorded();
  };

  /** Waits until every ending handed on by `run(job, true)` has committed (or failed). */
  async settle(): Promise<void> {
    if (this.pendingEnds > 0) await new Promise<void>((resolve) => this.settleWaiters.push(resolve));
  }

  /** Waits, but no longer than until shutdown begins. */
  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.shutdown.signal }).catch(() => undefined);
  }

  /**
   * Runs a job to its end: a claimed one (`active` under this worker's lease), or a first attempt
   * straight from its queue message (`queued`, nothing held, no webhook), which is claimed only if
   * it runs longer than `claimAfterMs`, fails, or asks for a hold; until then its queue message is
   * its lease, and its end is its row's only write, guarded so that it lands only if nobody else
   * touched the row.
   *
   * With `detachEnd` (the distributed queue) it answers once the handler is done and its ending is
   * handed on, not committed: the queue completes its message while the end commits, one round
   * trip fewer per job. Nothing is lost if this process dies in between: the row is still
   * `queued`, or `active` under a lease, and a job's end and its billing commit together, so it
   * runs again and is billed once. `settle()` waits for handed-on endings.
   */
  async run(claimedOrFresh: JobRow, detachEnd = false): Promise<void> {
    const kind = this.registry.get(claimedOrFresh.kind);
    if (!kind) {
      const message = `no handler for ${claimedOrFresh.kind}`;
      await this.end(claimedOrFresh, { ok: false, code: 'internal_error', message });
      return;
    }
    const attempt = new Attempt(
      this.attemptHost,
      claimedOrFresh,
      kind.timeoutMs ?? 10 * 60_000,
      this.settings.claimAfterMs ?? CLAIM_AFTER_MS,
    );
    this.running.add(attempt);
    const input = JSON.parse(claimedOrFresh.input) as unknown;
    try {
      const result = await kind.run(attempt, input);
      await attempt.handlerDone();
      if (attempt.lost) return;
      const end = this.end(
        { ...attempt.job, held: attempt.held },
        { ok: true, result, cost: kind.cost(input, result) },
      );
      await (detachEnd ? this.detach(end) : end);
    } catch (err) {
      await attempt.handlerFailed();
      if (attempt.lost) return;
      const job = attempt.job;
      const c = classify(err);
      const fields = { jobId: job.id, kind: job.kind, attempt: job.attempts, code: c.code };
      if (c.code === 'internal_error') this.log.error({ ...fields, err }, 'job attempt failed');
      else this.log.info({ ...fields, retryable: c.retryable, message: c.message }, 'job attempt failed');
      if (c.retryable && this.shutdown.signal.aborted) {
        // Cut short by our own shutdown, not by the job: that attempt does not count.
        await this.retry(job, 'interrupted by a worker shutdown', 0, true);
      } else if (c.retryable && job.attempts < job.max_attempts) {
        await this.retry(job, c.message);
      } else {
        const end = this.end({ ...job, held: attempt.held }, { ok: false, code: c.code, message: c.message });
        await (detachEnd ? this.detach(end) : end);
      }
    } finally {
      attempt.close();
      this.running.delete(attempt);
    }
  }

  private async retry(job: JobRow, message: string, delayMs?: number, refundAttempt = false) {
    const backoff =
      delayMs ?? this.settings.backoffBaseMs * 2 ** (job.attempts - 1) * (0.8 + Math.random() * 0.4);
    const runAt = Date.now() + Math.round(backoff);
    if (await this.records.requeue(job, this.workerId, runAt, message, refundAttempt)) {
      this.log.info({ jobId: job.id, kind: job.kind, attempt: job.attempts, runAt }, 'job will be retried');
      await this.queue.enqueue({
        id: job.id,
        kind: job.kind,
        runAt,
        attempt: refundAttempt ? job.attempts - 1 : job.attempts,
        // The message for this attempt number may still be the one being processed right now.
        ...(refundAttempt && { nonce: String(Date.now()) }),
      });
    }
  }

  /** One transaction: the job's final state, its billing (release + settled) and its webhook. */
  private async end(
    job: JobRow,
    outcome: { ok: true; result: unknown; cost: number } | { ok: false; code: string; message: string },
  ): Promise<void> {
    const final = (charged: number): JobOutcome =>
      outcome.ok
        ? { status: 'completed', result: outcome.result, cost: charged }
        : { status: 'failed', error: outcome.message, errorCode: outcome.code, cost: 0 };
    if (!this.endings && job.held === 0 && !job.webhook_url) {
      // Nothing to settle, nothing to send: the row change alone ends the job, batched.
      const item = { job, outcome: final(0) };
      const ended = await this.plainEnds
        .add(item)
        .catch(() =>
          this.records.finish(this.db, job, this.workerId, item.outcome, this.settings.resultTtlMs),
        );
      if (ended) this.onEnded(ended);
      return;
    }
    await this.endWith(job, outcome.ok ? outcome.cost : 0, (tx, charged) =>
      this.records.finish(tx, job, this.workerId, final(charged), this.settings.resultTtlMs),
    );
  }

  /**
   * Runs `finish` (the guarded status change) and, only if it took effect, settles the job's credits
   * — the real cost capped at what was held — and queues its webhook, all in one transaction.
   * `job.held` must be what is held now. A job with nothing held and no webhook needs no transaction.
   */
  private async endWith(
    job: JobRow,
    cost: number,
    finish: (db: Db | Tx, charged: number) => Promise<JobRow | undefined>,
  ) {
    const charged = Math.min(Math.max(0, Math.ceil(cost)), job.held);
    const inTx = async (db: Db | Tx) => {
      const ended = await finish(db, charged);
      if (!ended) return undefined;
      if (job.held > 0)
        await this.ledger.settleJob(job.account_id, job.id, charged, `${job.kind} job`, db as Tx);
      await enqueueWebhook(db as Tx, ended);
      return ended;
    };
    const ended = this.endings
      ? await this.endings.run(inTx)
      : job.held === 0 && !job.webhook_url
        ? await finish(this.db, 0)
        : await this.db.transaction().execute(inTx);
    if (ended) this.onEnded(ended);
  }

  /**
   * Recovers jobs whose worker died: back to the queue while attempts remain, else failed with
   * everything held released. Also re-sends long-overdue queued jobs (a queue that lost them)
   * and drops expired results.
   */
  async sweep(now = Date.now()): Promise<void> {
    for (const job of await this.records.expiredLeases(now)) {
      if (job.attempts < job.max_attempts) {
        if (await this.records.requeueLost(job)) {
          this.log.warn(
            { jobId: job.id, kind: job.kind, attempts: job.attempts },
            'lost job returned to the queue',
          );
          await this.queue.enqueue({ id: job.id, kind: job.kind, runAt: Date.now(), attempt: job.attempts });
        }
        continue;
      }
      await this.endWith(job, 0, (tx) =>
        this.records.failUnheld(
          tx,
          job,
          'The job was interrupted too many times',
          'internal_error',
          this.settings.resultTtlMs,
        ),
      );
    }
    if (this.queue.name === 'bullmq') {
      for (const j of await this.records.overdueQueued(now - (this.settings.resendAfterMs ?? 10_000))) {
        await this.queue.enqueue({ id: j.id, kind: j.kind, runAt: j.run_at, attempt: j.attempts });
      }
    }
    await this.records.expireResults(now);
    await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', now - 24 * 3600_000)
      .execute();
  }

  /** Aborts running handlers so they can be retried elsewhere (used on forced shutdown). */
  abortAll(): void {
    this.shutdown.abort();
    const reason = new AppError('service_unavailable', 'worker shutting down');
    for (const attempt of this.running) attempt.abort(reason);
  }
}
