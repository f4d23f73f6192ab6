// The queue port. The jobs table is the truth; a queue only tells workers which job to run next.
import type { JobRow } from '../store/schema.js';

export interface QueuedJob {
  id: string;
  kind: string;
  /** Unix ms when the job becomes due. */
  runAt: number;
  /** Attempts made so far (distinguishes a retry's queue entry from the first one). */
  attempt: number;
  /** Makes the queue entry distinct from an earlier one of the same attempt. */
  nonce?: string;
  /**
   * A just-accepted job with nothing held and no webhook, as recorded: a worker can start it from
   * the message alone and write its row once, at the end (see JobRunner.runById).
   */
  fresh?: FreshJob;
}

/** What a worker needs to run a first attempt without reading the job's row. */
export interface FreshJob {
  kind: string;
  accountId: string;
  /** The input as recorded (JSON text). */
  input: string;
  maxAttempts: number;
  createdAt: number;
}

/** What the queue calls back into: the runner. */
export interface JobConsumer {
  /** Claims up to `limit` due jobs of a kind from SQL, oldest first (embedded queue). */
  claimDue(kind: string, limit: number): Promise<JobRow[]>;
  /** Runs a claimed job to its end (completed, failed, or back to queued). */
  run(job: JobRow): Promise<void>;
  /**
   * Claims a job by id, waiting out a dead worker's lease, then runs it (distributed queue). With
   * `fresh`, a first attempt starts at once and is claimed only if it runs long enough to be seen.
   */
  runById(jobId: string, fresh?: FreshJob): Promise<void>;
}

export interface JobQueue {
  readonly name: 'embedded' | 'bullmq';
  /** Makes a committed job visible to workers. */
  enqueue(job: QueuedJob): Promise<void>;
  /** Starts consuming jobs of these kinds with per-kind concurrency. */
  start(kinds: ReadonlyArray<{ kind: string; concurrency: number }>, consumer: JobConsumer): Promise<void>;
  /** Stops taking jobs and waits for the running ones to end. */
  drain(): Promise<void>;
  close(): Promise<void>;
}
