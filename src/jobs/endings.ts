// Ending jobs: the final state of a job (completed, failed or cancelled), its billing (release +
// settled) and its webhook in one transaction. Endings that touch nothing but the job row are
// batched into one statement on PostgreSQL; on SQLite endings share commits (one writer, a cost per
// commit).
import type { Ledger } from '../billing/ledger.js';
import type { Db, Tx } from '../store/db.js';
import { GroupCommit } from '../store/group-commit.js';
import { BATCHES_IN_FLIGHT, MicroBatcher } from '../store/micro-batch.js';
import type { JobRow } from '../store/schema.js';
import type { EndedJob, FinishItem, JobOutcome, JobRecords } from './records.js';
import type { KnownKinds } from './views.js';
import { enqueueWebhook } from './webhooks.js';

export type AttemptOutcome =
  | { ok: true; result: unknown; cost: number }
  | { ok: false; code: string; message: string }
  /** Stopped at its owner's request: what it had done by then (if anything) is kept and billed. */
  | { ok: 'cancelled'; result: unknown; cost: number };

/** The row change that ends a job with `outcome`, `charged` being what it is billed. */
function finalState(outcome: AttemptOutcome, charged: number): JobOutcome {
  if (outcome.ok === true) return { status: 'completed', result: outcome.result, cost: charged };
  if (outcome.ok === 'cancelled') return { status: 'cancelled', result: outcome.result, cost: charged };
  return { status: 'failed', error: outcome.message, errorCode: outcome.code, cost: 0 };
}

export class JobEndings {
  onEnded: (job: EndedJob) => void = () => {};
  /** SQLite: endings share commits (one writer, a cost per commit). PostgreSQL: one each. */
  private readonly endings: GroupCommit | null;
  /**
   * Endings that touch nothing but the job row (nothing held, no webhook; billed or webhook endings
   * keep their own transaction) arriving together: one statement on PostgreSQL.
   */
  private readonly plainEnds = new MicroBatcher<FinishItem, EndedJob | undefined>(
    async (batch) => {
      const rows = await this.records.finishMany(batch, this.workerId, this.resultTtlMs);
      const ended = new Map(rows.map((r) => [r.id, r]));
      return batch.map((e) => ended.get(e.job.id));
    },
    256,
    BATCHES_IN_FLIGHT,
    // A failed batch: each ending alone, a lone one too (its failure may have been a blip).
    {
      alone: (item) => this.records.finish(this.db, item.job, this.workerId, item.outcome, this.resultTtlMs),
      retryLone: true,
    },
  );

  constructor(
    private readonly db: Db,
    private readonly records: JobRecords,
    private readonly ledger: Ledger,
    private readonly workerId: string,
    private readonly resultTtlMs: number,
    /** The kinds (their poll answers are the webhooks' data). */
    private readonly kinds: KnownKinds,
  ) {
    this.endings = records.dialect === 'sqlite' ? new GroupCommit(db) : null;
  }

  /** One transaction: the job's final state, its billing (release + settled) and its webhook. */
  async end(job: JobRow, outcome: AttemptOutcome): Promise<void> {
    const final = (charged: number) => finalState(outcome, charged);
    if (!this.endings && job.held === 0 && !job.webhook_url) {
      // Nothing to settle, nothing to send: the row change alone ends the job, batched.
      const item = { job, outcome: final(0) };
      const ended = await this.plainEnds.add(item);
      if (ended) this.onEnded(ended);
      return;
    }
    await this.endWith(job, outcome.ok === false ? 0 : outcome.cost, (tx, charged) =>
      this.records.finish(tx, job, this.workerId, final(charged), this.resultTtlMs),
    );
  }

  /**
   * Runs `finish` (the guarded status change) and, only if it took effect, settles the job's credits
   * — the real cost capped at what was held — and queues its webhook, all in one transaction.
   * `job.held` must be what is held now. A job with nothing held and no webhook needs no transaction.
   * The final row, or undefined when the guarded change found the job moved on.
   */
  async endWith(
    job: JobRow,
    cost: number,
    finish: (db: Db | Tx, charged: number) => Promise<JobRow | undefined>,
  ): Promise<JobRow | undefined> {
    const charged = Math.min(Math.max(0, Math.ceil(cost)), job.held);
    const inTx = async (db: Db | Tx) => {
      const ended = await finish(db, charged);
      if (!ended) return undefined;
      if (job.held > 0)
        await this.ledger.settleJob(job.account_id, job.id, charged, `${job.kind} job`, job.kind, db as Tx);
      await enqueueWebhook(db as Tx, ended, this.kinds);
      return ended;
    };
    const ended = this.endings
      ? await this.endings.run(inTx)
      : job.held === 0 && !job.webhook_url
        ? await finish(this.db, 0)
        : await this.db.transaction().execute(inTx);
    if (ended) this.onEnded(ended);
    return ended;
  }
}
