// What every kind of check is given and answers: the check job runs one, then records its state
// and events in one transaction (check-job.ts).
import type { NewMonitorEvent } from '../records.js';

export interface CheckContext {
  readonly accountId: string;
  readonly jobId: string;
  readonly signal: AbortSignal;
}

export interface CheckOutcome<S> {
  /** What the next check compares with. */
  state: S;
  /** What it found (none for the baseline). */
  events: Omit<NewMonitorEvent, 'jobId'>[];
  /** Credits its requests cost (transcripts are billed apart, each at its price). */
  cost: number;
  /** The first check: it only set the baseline. */
  baseline: boolean;
}
