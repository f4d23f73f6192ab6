import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
// Running jobs (worker side): claim, run the handler under a renewed lease, then end the job and its
// billing in one transaction — or put it back with backoff. Also the sweeper that recovers jobs of
// workers that died.

import type { Ledger } from '../billing/ledger.js';
import { AppError } from '../errors.js';
import type { Db, Tx } from '../store/db.js';
import { GroupCommit } from '../store/group-commit.js';
import { newId } from '../store/ids.js';
import type { JobRow } from '../store/schema.js';
import { MicroBatcher } from './micro-batch.js';
import type { JobConsumer, JobQueue } from './queue.js';
import type { FinishItem, JobOutcome, JobRecords } from './records.js';
import type { JobRegistry } from './registry.js';
import { type JobContext, JobError } from './types.js';
import { enqueueWebhook } from './webhooks.js';

export interface RunnerSettings {
  leaseMs: number;
  backoffBaseMs: number;
  resultTtlMs: number;
}

/** One of the worker's batched row changes: claim a job by id, or end a held one. */
type WorkerWrite = { claim: string; end?: undefined } | { end: FinishItem; claim?: undefined };

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
  if (err instanceof JobError) return { retryable: err.retryable, code: err.code, message: err.message };
  if (err instanceof AppError) {
    return { retryable: RETRYABLE_CODES.has(err.code), code: err.code, message: err.message };
  }
  if ((err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError') {
    return { retryable: true, code: 'upstream_error', message: 'timed out' };
  }
  // Unknown faults (network resets, bugs) get the remaining attempts; their text stays in our logs.
  return { retryable: true, code: 'internal_error', message: 'internal error while running the job' };
}

export class JobRunner implements JobConsumer {
  readonly workerId = newId('job').replace('job_', `w_${process.pid}_`);
  private readonly shutdown = new AbortController();
  /** Job endings handed on by `run(job, true)`, not yet committed. */
  private readonly pendingEnds = new Set<Promise<void>>();
  /** Aborts of the running jobs, called when shutdown is forced. */
  private readonly onShutdown = new Set<() => void>();
  onEnded: (job: JobRow) => void = () => {};
  /** SQLite: endings share commits (one writer, a cost per commit). PostgreSQL: one each. */
  private readonly endings: GroupCommit | null;
  /**
   * The worker's own row changes arriving together — claims by id (the distributed queue delivers
   * one id per message) and endings that touch nothing but the job row (nothing held, no webhook;
   * billed or webhook endings keep their own transaction) — go to the database as one statement
   * on PostgreSQL. A job id twice among the claims is given to its first caller only.
   */
  private readonly writes = new MicroBatcher<WorkerWrite, JobRow | undefined>(async (batch) => {
    const ends = batch.flatMap((w) => (w.end ? [w.end] : []));
    const ending = new Set(ends.map((e) => e.job.id));
    // A job ending here cannot be claimed too (a late duplicate delivery): that claim gets nothing.
    const claimIds = batch.flatMap((w) => (w.claim && !ending.has(w.claim) ? [w.claim] : []));
    const { ended, claimed } = await this.records.finishAndClaim(
      ends,
      claimIds,
      this.workerId,
      this.settings.leaseMs,
      this.settings.resultTtlMs,
    );
    const endedById = new Map(ended.map((r) => [r.id, r]));
    const claimedById = new Map(claimed.map((r) => [r.id, r]));
    return batch.map((w) => {
      if (w.end) return endedById.get(w.end.job.id);
      const row = claimedById.get(w.claim!);
      claimedById.delete(w.claim!);
      return row;
    });
  }, 256);

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
  }

  claimDue(kind: string, limit: number) {
    return this.records.claimDue(kind, limit, this.workerId, this.settings.leaseMs);
  }

  async runById(jobId: string): Promise<void> {
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
  private claim(jobId: string): Promise<JobRow | undefined> {
    return this.writes
      .add({ claim: jobId })
      .catch(() => this.records.claimById(jobId, this.workerId, this.settings.leaseMs));
  }

  /** Awaits a job's ending, or (detached) tracks it for `settle()` and logs its failure. */
  private async ending(end: Promise<void>, detach: boolean): Promise<void> {
    if (!detach) return end;
    const tracked: Promise<void> = end
      .catch((err) =>
        this.log.error({ err }, 'recording a job end failed; its lease will run out and it runs again'),
      )
      .finally(() => this.pendingEnds.delete(tracked));
    this.pendingEnds.add(tracked);
  }

  /** Waits until every ending handed on by `run(job, true)` has committed (or failed). */
  async settle(): Promise<void> {
    while (this.pendingEnds.size > 0) await Promise.allSettled([...this.pendingEnds]);
  }

  /** Waits, but no longer than until shutdown begins. */
  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.shutdown.signal }).catch(() => undefined);
  }

  /**
   * Runs a claimed job to its end. With `detachEnd` (the distributed queue) it answers once the
   * handler is done and its ending is handed on, not committed: the queue completes its message
   * while the end commits, one round trip fewer per job. Nothing is lost if this process dies in
   * between: the row is still `active` under a lease, and a job's end and its billing commit
   * together, so it runs again and is billed once. `settle()` waits for handed-on endings.
   */
  async run(job: JobRow, detachEnd = false): Promise<void> {
    const kind = this.registry.get(job.kind);
    if (!kind) {
      await this.end(job, { ok: false, code: 'internal_error', message: `no handler for ${job.kind}` });
      return;
    }
    const controller = new AbortController();
    const timeoutMs = kind.timeoutMs ?? 10 * 60_000;
    const timeout = setTimeout(
      () => controller.abort(new AppError('upstream_error', 'job timed out')),
      timeoutMs,
    );
    const onShutdown = () => controller.abort(new AppError('service_unavailable', 'worker shutting down'));
    // A plain set, not an event listener: adding and removing one per job is the cheaper way.
    this.onShutdown.add(onShutdown);
    let leaseLost = false;
    const heartbeat = setInterval(
      () =>
        void this.records.heartbeat(job.id, this.workerId, this.settings.leaseMs).then(
          (held) => {
            if (!held) {
              leaseLost = true;
              controller.abort(new Error('lease lost'));
            }
          },
          (err) => this.log.warn({ err, jobId: job.id, kind: job.kind }, 'lease renewal failed'),
        ),
      Math.max(100, Math.floor(this.settings.leaseMs / 3)),
    );
    let extraHolds = 0;
    let held = job.held;
    const ctx: JobContext = {
      jobId: job.id,
      accountId: job.account_id,
      attempt: job.attempts,
      signal: controller.signal,
      holdMore: async (credits) => {
        if (credits <= 0) return;
        if (extraHolds++ > 0) throw new Error('holdMore may be called once per job');
        await this.db.transaction().execute(async (tx) => {
          await this.ledger.hold(
            job.account_id,
            job.id,
            credits,
            2,
            `Additional hold for ${job.kind} job`,
            tx,
          );
          await this.records.addHeld(job.id, credits, tx);
        });
        held += credits;
      },
    };
    const input = JSON.parse(job.input) as unknown;
    try {
      const result = await kind.run(ctx, input);
      if (leaseLost) return;
      await this.ending(
        this.end({ ...job, held }, { ok: true, result, cost: kind.cost(input, result) }),
        detachEnd,
      );
    } catch (err) {
      if (leaseLost) return;
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
        await this.ending(
          this.end({ ...job, held }, { ok: false, code: c.code, message: c.message }),
          detachEnd,
        );
      }
    } finally {
      clearTimeout(timeout);
      clearInterval(heartbeat);
      this.onShutdown.delete(onShutdown);
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
      const ended = await this.writes
        .add({ end: item })
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
      for (const j of await this.records.overdueQueued(now - 10_000)) {
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
    for (const abort of this.onShutdown) abort();
  }
}
