// Running jobs (worker side): claim, run the handler under a renewed lease (or a first attempt straight
// from its queue message), then hand its end to endings.ts — or put it back with backoff. The sweeper
// (sweeper.ts) recovers jobs of workers that died; failures.ts says which failures are worth a retry.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ledger } from '../billing/ledger.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import { BATCHES_IN_FLIGHT, MicroBatcher } from '../store/micro-batch.js';
import type { JobRow } from '../store/schema.js';
import { Attempt, type AttemptHost } from './attempt.js';
import { CancelWatch } from './cancel-watch.js';
import { type AttemptOutcome, JobEndings } from './endings.js';
import { classify } from './failures.js';
import type { FreshJob, JobConsumer, JobQueue } from './queue.js';
import type { Claim, EndedJob, JobRecords } from './records.js';
import type { JobRegistry } from './registry.js';
import { JobSweeper } from './sweeper.js';

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

/**
 * The `seq` of a job's top-up hold (`ctx.holdMore`, once per job): its ledger reference is
 * `hold:<job>:2`, beside the acceptance hold's `hold:<job>:1` (JobService.submit). A fixed number, not
 * a count, so a top-up asked again (a retried attempt) finds its reference used and holds nothing more.
 */
const TOP_UP_HOLD_SEQ = 2;

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
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
    cancel_requested_at: null,
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
  private readonly endings: JobEndings;
  private readonly sweeper: JobSweeper;
  private readonly cancels: CancelWatch;
  /**
   * Claims by id arriving together (the distributed queue delivers one id per message) go to the
   * database as one statement on PostgreSQL. A job id twice among them goes to its first caller. If
   * the batch fails (a neighbour's fault or a blip), each claim runs again alone, a lone one too.
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
    {
      alone: (claim) =>
        this.records.claimManyById([claim], this.workerId, this.settings.leaseMs).then((rows) => rows[0]),
      retryLone: true,
    },
  );

  constructor(
    db: Db,
    private readonly records: JobRecords,
    private readonly registry: JobRegistry,
    ledger: Ledger,
    private readonly queue: JobQueue,
    private readonly settings: RunnerSettings,
    private readonly log: Logger,
  ) {
    // Lease waits listen for shutdown; hundreds may wait at once.
    setMaxListeners(0, this.shutdown.signal);
    this.endings = new JobEndings(db, records, ledger, this.workerId, settings.resultTtlMs, registry);
    this.sweeper = new JobSweeper(db, records, queue, this.endings, settings, log);
    this.attemptHost = {
      renewEveryMs: Math.max(100, Math.floor(settings.leaseMs / 3)),
      claim: (jobId, startedAt) => this.claim(jobId, startedAt),
      renew: (jobId) => records.heartbeat(jobId, this.workerId, settings.leaseMs),
      hold: (job, credits) =>
        db.transaction().execute(async (tx) => {
          await ledger.hold(
            job.account_id,
            job.id,
            credits,
            TOP_UP_HOLD_SEQ,
            `Additional hold for ${job.kind} job`,
            job.kind,
            tx,
          );
          await records.addHeld(job.id, credits, tx);
        }),
      warn: (obj, msg) => log.warn(obj, msg),
    };
    this.cancels = new CancelWatch({
      workerId: this.workerId,
      attempts: () => this.running,
      requested: (workerId) => records.cancelRequestedOf(workerId),
      warn: (obj, msg) => log.warn(obj, msg),
    });
    this.cancels.start();
  }

  /**
   * Stops this process's run of a job whose owner just cancelled it (the API calls it when it runs
   * in the same process; other workers find the request in the database within CANCEL_WATCH_MS).
   */
  cancelHere(jobId: string): boolean {
    return this.cancels.cancelHere(jobId);
  }

  /** Called with each job once its end is recorded (processing.ts wakes the webhook sender). */
  set onEnded(hook: (job: EndedJob) => void) {
    this.endings.onEnded = hook;
  }
  get onEnded(): (job: EndedJob) => void {
    return this.endings.onEnded;
  }

  claimDue(kind: string, limit: number) {
    return this.records.claimDue(kind, limit, this.workerId, this.settings.leaseMs);
  }

  async runById(jobId: string, fresh?: FreshJob): Promise<void> {
    if (fresh) return this.run(freshRow(jobId, fresh), true);
    for (let tries = 0; tries < 20 && !this.shutdown.signal.aborted; tries++) {
      // The claim judges "due" by a clock read after this one: a row due by the time we look again
      // may still have been early for the claim, and must be tried again, not dropped.
      const askedAt = Date.now();
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
      if (row.status === 'queued' && row.run_at > askedAt) {
        await this.pause(Math.max(0, row.run_at - Date.now()) + 10);
        continue;
      }
      return; // completed, failed, or out of attempts: nothing to do
    }
  }

  /** A claim in the shared batch (alone if the batch fails). */
  private claim(jobId: string, startedAt?: number): Promise<JobRow | undefined> {
    return this.claims.add({ id: jobId, startedAt });
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
    if (claimedOrFresh.status === 'active' && claimedOrFresh.cancel_requested_at !== null) {
      // Cancelled while it waited for a retry (or its worker died): it does not run again.
      await this.end(claimedOrFresh, { ok: 'cancelled', result: undefined, cost: 0 });
      return;
    }
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
      // Cancelled before it ended: what it returned is what it did by then, kept and billed.
      const end = this.end(
        { ...attempt.job, held: attempt.held },
        { ok: attempt.cancelled ? 'cancelled' : true, result, cost: kind.cost(input, result) },
      );
      await (detachEnd ? this.detach(end) : end);
    } catch (err) {
      await attempt.handlerFailed();
      if (attempt.lost) return;
      const job = attempt.job;
      if (attempt.cancelled) {
        const end = this.end({ ...job, held: attempt.held }, { ok: 'cancelled', result: undefined, cost: 0 });
        await (detachEnd ? this.detach(end) : end);
        return;
      }
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

  private end(job: JobRow, outcome: AttemptOutcome): Promise<void> {
    return this.endings.end(job, outcome);
  }

  /** Stops looking for cancel requests (the process is stopping). */
  close(): void {
    this.cancels.stop();
  }

  /** Recovers jobs of dead workers, re-sends lost messages, drops expired results (see sweeper.ts). */
  sweep(now = Date.now()): Promise<void> {
    return this.sweeper.sweep(now);
  }

  /** Aborts running handlers so they can be retried elsewhere (used on forced shutdown). */
  abortAll(): void {
    this.cancels.stop();
    this.shutdown.abort();
    const reason = new AppError('service_unavailable', 'worker shutting down');
    for (const attempt of this.running) attempt.abort(reason);
  }
}
