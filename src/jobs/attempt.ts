// One run of a job on this worker, and the context its handler gets: the abort signal (made when
// the handler first looks at it), the time limit, the lease (renewed while the row is held) and,
// for a first attempt run straight from its queue message, the claim deferred until the job has
// run `claimAfterMs`, fails or asks for a hold. The state lives on the object, not in closures made
// per run: a worker runs thousands of short jobs a second.
import { AppError } from '../errors.js';
import type { JobRow } from '../store/schema.js';
import type { JobContext } from './types.js';

/** What an attempt needs from its runner. */
export interface AttemptHost {
  readonly renewEveryMs: number;
  /** Claims the job by id for this worker (its run began at `startedAt`); undefined if it cannot. */
  claim(jobId: string, startedAt: number): Promise<JobRow | undefined>;
  /** Extends the lease; false if this worker no longer holds the job. */
  renew(jobId: string): Promise<boolean>;
  /** Holds more credits for a job this worker holds, in one transaction with its row. */
  hold(job: JobRow, credits: number): Promise<void>;
  warn(obj: object, msg: string): void;
}

export class Attempt implements JobContext {
  /** The row as this worker holds it: `active` under its lease, or `queued` until claimed. */
  job: JobRow;
  /** Credits held for the job now. */
  held: number;
  /** The row is not this worker's any more: the run's outcome must not be recorded. */
  lost = false;
  /** Its owner cancelled the job: it ends `cancelled`, not completed, failed or retried. */
  cancelled = false;
  private controller: AbortController | undefined;
  private abortReason: unknown;
  private claiming: Promise<boolean> | null = null;
  private claimTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly timeout: NodeJS.Timeout;
  private extraHolds = 0;
  private closed = false;

  constructor(
    private readonly host: AttemptHost,
    job: JobRow,
    timeoutMs: number,
    claimAfterMs: number,
  ) {
    this.job = job.status === 'queued' ? { ...job, started_at: Date.now() } : job;
    this.held = job.held;
    this.timeout = setTimeout(timedOut, timeoutMs, this);
    if (this.job.status === 'queued') this.claimTimer = setTimeout(claimLate, claimAfterMs, this);
    else this.renewLease();
  }

  get jobId(): string {
    return this.job.id;
  }

  get accountId(): string {
    return this.job.account_id;
  }

  /** 1 on the first run (a queued row's attempt is counted when it is claimed or ended). */
  get attempt(): number {
    return this.job.status === 'queued' ? this.job.attempts + 1 : this.job.attempts;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  async holdMore(credits: number): Promise<void> {
    if (credits <= 0) return;
    if (this.extraHolds++ > 0) throw new Error('holdMore may be called once per job');
    if (this.job.status === 'queued' && !(await this.claimNow())) {
      throw new Error('job taken by another worker');
    }
    await this.host.hold(this.job, credits);
    this.held += credits;
  }

  /** Stops the run because its owner cancelled the job. */
  cancel(): void {
    this.cancelled = true;
    this.abort(new AppError('conflict', 'the job was cancelled'));
  }

  abort(reason: unknown): void {
    this.abortReason ??= reason;
    this.controller?.abort(reason);
  }

  /** Claims a queued row now (once); true when the row is this worker's. */
  claimNow(): Promise<boolean> {
    this.claiming ??= this.host.claim(this.job.id, this.job.started_at ?? Date.now()).then(
      (row) => {
        if (!row) return this.lose('job taken by another worker');
        this.job = row;
        this.renewLease();
        return true;
      },
      (err) => {
        this.host.warn({ err, jobId: this.job.id, kind: this.job.kind }, 'claiming a running job failed');
        return this.lose('claim failed');
      },
    );
    return this.claiming;
  }

  /** The handler returned: a claim not yet begun is not needed; one under way is waited for. */
  async handlerDone(): Promise<void> {
    clearTimeout(this.claimTimer);
    if (this.claiming) await this.claiming;
  }

  /** The handler failed: a failure is recorded (or retried) on a row this worker holds. */
  async handlerFailed(): Promise<void> {
    clearTimeout(this.claimTimer);
    await (this.job.status === 'queued' ? this.claimNow() : this.claiming);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timeout);
    clearTimeout(this.claimTimer);
    clearInterval(this.heartbeat);
  }

  private lose(why: string): false {
    this.lost = true;
    this.abort(new Error(why));
    return false;
  }

  private renewLease(): void {
    if (!this.closed) this.heartbeat = setInterval(renewLease, this.host.renewEveryMs, this);
  }

  /** One lease renewal (heartbeat tick). */
  renew(): void {
    this.host.renew(this.job.id).then(
      (held) => held || this.lose('lease lost'),
      (err) => this.host.warn({ err, jobId: this.job.id, kind: this.job.kind }, 'lease renewal failed'),
    );
  }
}

// Timer callbacks take the attempt as their argument: no closure per run.
function timedOut(a: Attempt) {
  a.abort(new AppError('upstream_error', 'job timed out'));
}

function claimLate(a: Attempt) {
  void a.claimNow();
}

function renewLease(a: Attempt) {
  a.renew();
}
