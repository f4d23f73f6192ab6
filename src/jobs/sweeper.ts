// The sweeper (worker side): recovers jobs whose worker died — back to the queue while attempts
// remain, else failed with everything held released, or cancelled if their owner asked — re-sends queued jobs a queue lost, and drops
// expired results, files and idempotency keys.
import { expireFiles } from '../files/store.js';
import type { Db } from '../store/db.js';
import type { JobEndings } from './endings.js';
import type { JobQueue } from './queue.js';
import { foldJobCountDeltas } from './records/counts.js';
import type { JobRecords } from './records.js';

const FOLD_BATCH = 5000;

interface Logger {
  warn(obj: object, msg: string): void;
}

export class JobSweeper {
  constructor(
    private readonly db: Db,
    private readonly records: JobRecords,
    private readonly queue: JobQueue,
    private readonly endings: JobEndings,
    private readonly settings: { resultTtlMs: number; resendAfterMs?: number },
    private readonly log: Logger,
  ) {}

  /**
   * Recovers jobs whose worker died: back to the queue while attempts remain, else failed with
   * everything held released. Also re-sends long-overdue queued jobs (a queue that lost them)
   * and drops expired results.
   */
  async sweep(now = Date.now()): Promise<void> {
    for (const job of await this.records.expiredLeases(now)) {
      if (job.cancel_requested_at !== null) {
        // Its owner cancelled it and its worker died before stopping it: it ends here, not again.
        await this.endings.endWith(job, 0, (tx) =>
          this.records.cancelUnheld(tx, job, this.settings.resultTtlMs),
        );
        continue;
      }
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
      await this.endings.endWith(job, 0, (tx) =>
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
    // Files made by requests and jobs (screenshots) expire on their own time, like results.
    await expireFiles(this.db, now);
    // Several batches per sweep: a busy minute's deltas are folded in the next sweep or two.
    for (let i = 0; i < 20; i++) if ((await foldJobCountDeltas(this.db, FOLD_BATCH)) < FOLD_BATCH) break;
    await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', now - 24 * 3600_000)
      .execute();
  }
}
