// The append-only credit ledger: the only code that writes credit_transactions or changes a balance
// (with ledger-paid-answers.ts, which charges cache hits together). Both write entries through one
// writer, ledger-entries.ts, which keeps the invariants: each entry moves the cached balance in the
// same transaction, so the balance always equals the sum of the account's entries and a debit that
// would take it below zero is refused; each entry also adds itself to the account's sums (ledger_sums:
// amount and entries per type and operation, for its UTC hour, its UTC day and all time) in that
// transaction, so a summary or a count read from them always equals the entries, and costs the same
// however long the history is. ledger-sql.ts holds the statements.
import { sql } from 'kysely';
import { AppError } from '../errors.js';
import { creditsSpent } from '../metrics.js';
import { lockAccountRow } from '../store/account-lock.js';
import type { Db, Dialect, Tx } from '../store/db.js';
import { GroupCommit } from '../store/group-commit.js';
import { type NewEntry, type WrittenEntry, writeEntries } from './ledger-entries.js';
import { PaidAnswers } from './ledger-paid-answers.js';
import { closeRequestHold, openRequestHold, settledReference } from './ledger-sql.js';

export { type TransactionType, transactionTypes } from './ledger-sql.js';

/** An entry of one account. */
interface Entry extends NewEntry {
  accountId: string;
}

/**
 * A synchronous request still holding credits after this long belongs to a process that died: the
 * sweeper gives them back. Far above any request's own time limits (fetch, render, queue waits).
 */
export const REQUEST_HOLD_MAX_AGE_MS = 15 * 60_000;

/**
 * The sum of a job's hold and release entries, read through the partial index of those entries
 * (migration 011). The type test is written out, not bound: a planner uses a partial index only where
 * the query states the index's own predicate.
 */
export const heldForQuery = (db: Db | Tx, jobId: string) =>
  db
    .selectFrom('credit_transactions')
    .select((eb) => eb.fn.sum<number>('amount').as('total'))
    .where('job_id', '=', jobId)
    .where(sql<boolean>`type in ('hold', 'release')`);

export class Ledger {
  /**
   * SQLite has one writer and pays per commit: the holds and endings of concurrent requests share
   * commits there (a piece that fails reruns alone, so one request's 402 never undoes another's).
   */
  private readonly requestCommits: GroupCommit | null;

  /** Cache hits arriving together, charged in shared transactions. */
  private readonly paidAnswers: PaidAnswers;

  constructor(
    private readonly db: Db,
    dialect: Dialect = 'pg',
  ) {
    this.requestCommits = dialect === 'sqlite' ? new GroupCommit(db) : null;
    this.paidAnswers = new PaidAnswers(db);
  }

  private inRequestTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.requestCommits ? this.requestCommits.run(work) : this.db.transaction().execute(work);
  }

  async balance(accountId: string, db: Db | Tx = this.db): Promise<number> {
    const row = await db
      .selectFrom('accounts')
      .select('balance')
      .where('id', '=', accountId)
      .executeTakeFirst();
    if (!row) throw new AppError('not_found', 'account not found');
    return row.balance;
  }

  /**
   * Writes one entry inside `tx` (ledger-entries.ts). Answers its id and the balance after it, or
   * 'duplicate' when its reference was already used (the entry happened before); a debit the balance
   * does not cover writes nothing and throws 402.
   */
  private async post(tx: Tx, { accountId, ...entry }: Entry): Promise<WrittenEntry | 'duplicate'> {
    const [written] = await writeEntries(tx, accountId, [entry]);
    return written ?? 'duplicate';
  }

  /** Runs `post` inside `tx`, or in a transaction of its own. */
  private async postAlone(e: Entry, tx?: Tx) {
    if (tx) return this.post(tx, e);
    return this.db.transaction().execute((t) => this.post(t, e));
  }

  /** Free credits: at registration and by operators. */
  async grant(accountId: string, amount: number, description: string, tx?: Tx): Promise<number> {
    positive(amount);
    const r = await this.postAlone(
      { accountId, amount, type: 'grant', description, operation: '', jobId: null },
      tx,
    );
    return r === 'duplicate' ? this.balance(accountId, tx) : r.balance;
  }

  /** Credits a completed checkout; false when that checkout was already credited. */
  async purchase(accountId: string, amount: number, checkoutId: string, description: string, tx?: Tx) {
    positive(amount);
    const r = await this.postAlone(
      {
        accountId,
        amount,
        type: 'purchase',
        description,
        operation: '',
        jobId: checkoutId,
        reference: `purchase:${checkoutId}`,
      },
      tx,
    );
    return r !== 'duplicate';
  }

  /**
   * Reserves the price of a synchronous request before its work starts; 402 when the balance does not
   * cover it. The open hold is also noted in `request_holds`, so a process that dies mid-request leaves
   * a trace the sweeper can give back. Answers the balance left once the price is reserved.
   */
  async holdRequest(
    accountId: string,
    requestId: string,
    amount: number,
    description: string,
    operation: string,
  ) {
    positive(amount);
    return this.inRequestTransaction(async (tx) => {
      const r = await this.post(tx, {
        accountId,
        amount: -amount,
        type: 'hold',
        description,
        operation,
        jobId: requestId,
        reference: `hold:${requestId}:1`,
      });
      if (r === 'duplicate') throw new Error(`ledger: request ${requestId} already holds credits`);
      await openRequestHold.execute(tx, {
        request_id: requestId,
        account_id: accountId,
        amount,
        operation,
        created_at: Date.now(),
      });
      return r.balance;
    });
  }

  /**
   * Ends a request's hold in one transaction: releases it and settles `cost` (0 for a failed request:
   * then only the release). Answers the balance after, or null when the hold was already given back
   * (the sweeper took it for a dead request): then nothing is charged.
   */
  async endRequest(accountId: string, requestId: string, cost: number, description: string) {
    const ended = await this.inRequestTransaction(async (tx) => {
      const open = await closeRequestHold.executeTakeFirst(tx, { requestId });
      if (!open) return null;
      const label = { description, operation: open.operation ?? 'request' };
      return this.releaseAndSettle(tx, accountId, requestId, Number(open.amount), cost, label);
    });
    if (ended && ended.charged > 0) creditsSpent.labels('request').inc(ended.charged);
    return ended ? ended.balance : null;
  }

  /**
   * Charges a request whose answer is already known (a cache hit: no upstream work, so nothing to
   * hold): one settled entry, the balance and the sums moved, in a transaction shared with the other
   * hits of this turn of the event loop; 402 when the balance does not cover it. Answers the balance
   * right after this charge.
   */
  async chargeRequest(
    accountId: string,
    requestId: string,
    amount: number,
    description: string,
    operation: string,
  ): Promise<number> {
    positive(amount);
    const balance = await this.paidAnswers.charge({ accountId, requestId, amount, description, operation });
    creditsSpent.labels('request').inc(amount);
    return balance;
  }

  /**
   * Gives back the holds of requests older than `maxAgeMs` (their process died before ending them).
   * Answers how many were released. Safe to run on many processes at once.
   */
  async releaseStaleRequestHolds(maxAgeMs: number, now = Date.now()): Promise<number> {
    const stale = await this.db
      .selectFrom('request_holds')
      .select(['request_id', 'account_id'])
      .where('created_at', '<', now - maxAgeMs)
      .limit(500)
      .execute();
    let released = 0;
    for (const hold of stale) {
      const ended = await this.endRequest(
        hold.account_id,
        hold.request_id,
        0,
        'Request did not finish (its process stopped)',
      );
      if (ended !== null) released++;
    }
    return released;
  }

  /** Releases `held` and settles min(cost, held) for a request or job, inside `tx`. */
  private async releaseAndSettle(
    tx: Tx,
    accountId: string,
    id: string,
    held: number,
    cost: number,
    { description, operation }: { description: string; operation: string },
  ): Promise<{ balance: number; charged: number } | null> {
    const release = await this.post(tx, {
      accountId,
      amount: held,
      type: 'release',
      description: `Release: ${description}`,
      operation,
      jobId: id,
      reference: `release:${id}`,
    });
    if (release === 'duplicate') return null;
    const charge = Math.min(Math.max(0, Math.floor(cost)), held);
    if (charge === 0) return { balance: release.balance, charged: 0 };
    const settled = await this.post(tx, {
      accountId,
      amount: -charge,
      type: 'settled',
      description,
      operation,
      jobId: id,
      reference: settledReference(id),
    });
    if (settled === 'duplicate') throw new Error(`ledger invariant: settle of ${id} exceeds release`);
    return { balance: settled.balance, charged: charge };
  }

  /**
   * Reserves credits for a job. `seq` numbers the holds of one job (1 on acceptance, 2 for the
   * top-up once its real size is known) so a retried hold is not taken twice. A job whose holds were
   * already released (it ended) takes no more: such a hold would never be given back.
   */
  async hold(
    accountId: string,
    jobId: string,
    amount: number,
    seq: number,
    description: string,
    operation: string,
    tx?: Tx,
  ) {
    positive(amount);
    const run = async (t: Tx) => {
      // Serialises with settleJob on the account row: either the job ends first and this sees its
      // release, or this hold commits first and settleJob releases it with the rest.
      await lockAccountRow(t, accountId);
      const ended = await t
        .selectFrom('credit_transactions')
        .select('id')
        .where('reference', '=', `release:${jobId}`)
        .executeTakeFirst();
      if (ended) throw new AppError('conflict', `Job ${jobId} has ended; no more credits can be held for it`);
      const r = await this.post(t, {
        accountId,
        amount: -amount,
        type: 'hold',
        description,
        operation,
        jobId,
        reference: `hold:${jobId}:${seq}`,
      });
      return r === 'duplicate' ? this.balance(accountId, t) : r.balance;
    };
    return tx ? run(tx) : this.db.transaction().execute(run);
  }

  /**
   * Ends a job's billing in one transaction: releases everything held and settles the real cost
   * (capped at what was held). Returns false when the job was already settled.
   */
  async settleJob(
    accountId: string,
    jobId: string,
    cost: number,
    description: string,
    operation: string,
    tx?: Tx,
  ) {
    let charged = 0;
    const run = async (t: Tx) => {
      // Lock first, then read the holds: a hold committed meanwhile is seen and released too.
      await lockAccountRow(t, accountId);
      const held = await this.heldFor(jobId, t);
      const ended = await this.releaseAndSettle(t, accountId, jobId, held, cost, { description, operation });
      if (!ended) return false;
      charged = ended.charged;
      return true;
    };
    const done = await (tx ? run(tx) : this.db.transaction().execute(run));
    // Counted once the entry is written (with a caller's tx: once written inside it).
    if (charged > 0) creditsSpent.labels('job').inc(charged);
    return done;
  }

  /** Credits currently held for a job (positive number; 0 once the job's holds are released). */
  async heldFor(jobId: string, db: Db | Tx = this.db): Promise<number> {
    const row = await heldForQuery(db, jobId).executeTakeFirst();
    return 0 - Number(row?.total ?? 0);
  }

  /**
   * Takes credits back. A clawback larger than the balance is capped at the balance and flagged,
   * so the balance never goes negative. Returns what was taken.
   */
  async clawback(accountId: string, amount: number, description: string, reference?: string) {
    positive(amount);
    return this.db.transaction().execute(async (tx) => {
      // Lock the account row first so the cap is computed on the balance we then debit.
      const balance = await lockAccountRow(tx, accountId);
      const taken = Math.min(amount, balance);
      const capped = taken < amount;
      const r = await this.post(tx, {
        accountId,
        amount: -taken,
        type: 'clawback',
        operation: '',
        description: capped
          ? `${description} (capped: ${amount} requested, ${taken} available)`
          : description,
        jobId: null,
        reference: reference ?? null,
        flagged: capped,
      });
      if (r === 'duplicate') return { taken: 0, capped: false, duplicate: true };
      return { taken, capped, duplicate: false };
    });
  }
}

function positive(n: number) {
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`ledger amounts are positive integers, got ${n}`);
}
