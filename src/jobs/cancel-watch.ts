// How a running job learns that its owner cancelled it. The API marks the row
// (`cancel_requested_at`); every worker looks, twice a second and only while it holds claimed jobs,
// for requests on the jobs it holds (one indexed read of the active rows it leases), and stops
// those attempts. When the API runs in the same process as the worker, the request reaches the
// attempt at once (`cancelHere`). Either way the attempt's handler sees its signal abort, and the
// runner ends the job `cancelled` under its lease: a cancel racing the job's own end leaves exactly
// one of the two.
import type { Attempt } from './attempt.js';

/** How often a worker looks for cancel requests on the jobs it holds. */
export const CANCEL_WATCH_MS = 500;

export interface CancelWatchHost {
  readonly workerId: string;
  /** The attempts this worker runs now. */
  attempts(): Iterable<Attempt>;
  /** The jobs this worker holds whose owners asked to cancel them. */
  requested(workerId: string): Promise<string[]>;
  warn(obj: object, msg: string): void;
}

export class CancelWatch {
  private timer: NodeJS.Timeout | undefined;
  private looking = false;

  constructor(
    private readonly host: CancelWatchHost,
    private readonly everyMs = CANCEL_WATCH_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.look(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops this process's attempts of a job whose cancel was just recorded; true if it ran here. */
  cancelHere(jobId: string): boolean {
    let found = false;
    for (const attempt of this.host.attempts()) {
      if (attempt.jobId !== jobId) continue;
      found = true;
      if (!attempt.cancelled) attempt.cancel();
    }
    return found;
  }

  /** One look at the database, only when this worker holds claimed jobs (rows it leases). */
  async look(): Promise<void> {
    if (this.looking) return;
    let holds = false;
    for (const attempt of this.host.attempts()) {
      if (attempt.job.status === 'active' && !attempt.cancelled) {
        holds = true;
        break;
      }
    }
    if (!holds) return;
    this.looking = true;
    try {
      for (const jobId of await this.host.requested(this.host.workerId)) this.cancelHere(jobId);
    } catch (err) {
      this.host.warn({ err }, 'looking for cancelled jobs failed; looking again shortly');
    } finally {
      this.looking = false;
    }
  }
}
