// The append-only credit ledger: the only code that writes credit_transactions or changes a balance.
// Each entry moves the cached balance in the same transaction, so the balance always equals the
// sum of the account's entries and a debit that would take it below zero is refused.
import { sql } from 'kysely';
import { AppError } from '../errors.js';
import { creditsSpent } from '../metrics.js';
import type { Db, Tx } from '../store/db.js';
import { newId } from '../store/ids.js';

export type TransactionType = 'grant' | 'purchase' | 'settled' | 'hold' | 'release' | 'clawback';
export const transactionTypes: readonly TransactionType[] = [
  'grant',
  'purchase',
  'settled',
  'hold',
  'release',
  'clawback',
];

interface Entry {
  accountId: string;
  amount: number;
  type: TransactionType;
  description: string;
  jobId: string | null;
  reference?: string | null;
  flagged?: boolean;
}

export const insufficientCredits = (needed: number, balance: number) =>
  new AppError(
    'insufficient_credits',
    `This request needs ${needed} credits and the balance is ${balance}. Buy more: GET /v1/credits/packages, then POST /v1/credits/purchase.`,
    `needed=${needed} balance=${balance}`,
  );

export class Ledger {
  constructor(private readonly db: Db) {}

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
   * Writes one entry inside `tx`. Returns the new balance, or null when the entry's reference was
   * already used (the entry happened before) or a debit would take the balance below zero.
   */
  private async post(
    tx: Tx,
    e: Entry,
  ): Promise<{ balance: number; id: string } | 'duplicate' | 'insufficient'> {
    const id = newId('txn');
    const inserted = await tx
      .insertInto('credit_transactions')
      .values({
        id,
        account_id: e.accountId,
        amount: e.amount,
        type: e.type,
        description: e.description.slice(0, 1000),
        job_id: e.jobId,
        reference: e.reference ?? null,
        flagged: e.flagged ? 1 : 0,
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.column('reference').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return 'duplicate';
    const updated = await tx
      .updateTable('accounts')
      .set({ balance: sql`balance + ${e.amount}` })
      .where('id', '=', e.accountId)
      .where(sql<boolean>`balance + ${e.amount} >= 0`)
      .returning('balance')
      .executeTakeFirst();
    if (!updated) return 'insufficient';
    return { balance: updated.balance, id };
  }

  /** Runs `post` in its own transaction; an 'insufficient' result rolls the inserted row back. */
  private async postAlone(e: Entry, tx?: Tx) {
    if (tx) return this.postIn(tx, e);
    return this.db.transaction().execute((t) => this.postIn(t, e));
  }

  private async postIn(tx: Tx, e: Entry) {
    const r = await this.post(tx, e);
    if (r === 'insufficient') {
      throw insufficientCredits(-e.amount, await this.balance(e.accountId, tx));
    }
    return r;
  }

  /** Free credits: at registration and by operators. */
  async grant(accountId: string, amount: number, description: string, tx?: Tx): Promise<number> {
    positive(amount);
    const r = await this.postAlone({ accountId, amount, type: 'grant', description, jobId: null }, tx);
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
        jobId: checkoutId,
        reference: `purchase:${checkoutId}`,
      },
      tx,
    );
    return r !== 'duplicate';
  }

  /** Charges a finished synchronous request; throws 402 if the balance does not cover it. */
  async settleRequest(accountId: string, cost: number, requestId: string, description: string) {
    if (cost === 0) return { balance: await this.balance(accountId) };
    positive(cost);
    const r = await this.postAlone({
      accountId,
      amount: -cost,
      type: 'settled',
      description,
      jobId: requestId,
      reference: `settled:${requestId}`,
    });
    if (r === 'duplicate') return { balance: await this.balance(accountId) };
    creditsSpent.labels('request').inc(cost);
    return { balance: r.balance };
  }

  /**
   * Reserves credits for a job. `seq` numbers the holds of one job (1 on acceptance, 2 for the
   * top-up once its real size is known) so a retried hold is not taken twice. A job whose holds were
   * already released (it ended) takes no more: such a hold would never be given back.
   */
  async hold(accountId: string, jobId: string, amount: number, seq: number, description: string, tx?: Tx) {
    positive(amount);
    const run = async (t: Tx) => {
      // Serialises with settleJob on the account row: either the job ends first and this sees its
      // release, or this hold commits first and settleJob releases it with the rest.
      await this.lockAccount(t, accountId);
      const ended = await t
        .selectFrom('credit_transactions')
        .select('id')
        .where('reference', '=', `release:${jobId}`)
        .executeTakeFirst();
      if (ended) throw new AppError('conflict', `Job ${jobId} has ended; no more credits can be held for it`);
      const r = await this.postIn(t, {
        accountId,
        amount: -amount,
        type: 'hold',
        description,
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
  async settleJob(accountId: string, jobId: string, cost: number, description: string, tx?: Tx) {
    let charged = 0;
    const run = async (t: Tx) => {
      // Lock first, then read the holds: a hold committed meanwhile is seen and released too.
      await this.lockAccount(t, accountId);
      const held = await this.heldFor(jobId, t);
      const release = await this.post(t, {
        accountId,
        amount: held,
        type: 'release',
        description: `Release: ${description}`,
        jobId,
        reference: `release:${jobId}`,
      });
      if (release === 'duplicate') return false;
      const charge = Math.min(Math.max(0, Math.floor(cost)), held);
      if (charge > 0) {
        const settled = await this.post(t, {
          accountId,
          amount: -charge,
          type: 'settled',
          description,
          jobId,
          reference: `settled:${jobId}`,
        });
        if (settled === 'insufficient')
          throw new Error(`ledger invariant: settle of ${jobId} exceeds release`);
        charged = charge;
      }
      return true;
    };
    const done = await (tx ? run(tx) : this.db.transaction().execute(run));
    // Counted once the entry is written (with a caller's tx: once written inside it).
    if (charged > 0) creditsSpent.labels('job').inc(charged);
    return done;
  }

  /**
   * Locks the account row until the transaction ends (a no-op write); answers its balance. Public so
   * that other per-account limits (the key cap) serialise on the same row without writing credits.
   */
  async lockAccount(tx: Tx, accountId: string): Promise<number> {
    const locked = await tx
      .updateTable('accounts')
      .set({ balance: sql`balance` })
      .where('id', '=', accountId)
      .returning('balance')
      .executeTakeFirst();
    if (!locked) throw new AppError('not_found', 'account not found');
    return locked.balance;
  }

  /** Credits currently held for a job (positive number; 0 once the job's holds are released). */
  async heldFor(jobId: string, db: Db | Tx = this.db): Promise<number> {
    const row = await db
      .selectFrom('credit_transactions')
      .select((eb) => eb.fn.sum<number>('amount').as('total'))
      .where('job_id', '=', jobId)
      .where('type', 'in', ['hold', 'release'])
      .executeTakeFirst();
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
      const balance = await this.lockAccount(tx, accountId);
      const taken = Math.min(amount, balance);
      const capped = taken < amount;
      const r = await this.post(tx, {
        accountId,
        amount: -taken,
        type: 'clawback',
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
