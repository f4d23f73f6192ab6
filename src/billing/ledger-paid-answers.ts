// Cache hits charged together: the hits that reach the ledger in one turn of the event loop share a
// transaction, each account's in three statements whatever their number (its entries, its balance,
// its sums). A hit's answer costs little, and a transaction per hit made the ledger most of its cost.
// Each hit still gets its own settled entry (job_id = its request id) and the answer it would have had
// alone, in arrival order. Part of the ledger (ledger.ts calls it from chargeRequest): with it, the only
// writer of credit_transactions and balances.
import { newId } from '../ids.js';
import { lockAccountRow } from '../store/account-lock.js';
import type { Db, Tx } from '../store/db.js';
import { BATCHES_IN_FLIGHT, MicroBatcher } from '../store/micro-batch.js';
import { periodStart } from '../store/rollups.js';
import {
  addToSums,
  insertEntries,
  insufficientCredits,
  moveBalance,
  settledReference,
} from './ledger-sql.js';

/** A cache hit's price, charged with the others that arrive in the same turn of the event loop. */
export interface PaidAnswer {
  accountId: string;
  requestId: string;
  amount: number;
  description: string;
  operation: string;
}

/** The balance once a paid answer was charged, or why it was not. */
type PaidAnswerCharged = { balance: number } | { refused: unknown };

/** A batch's total for one account was more than its balance: the batch reruns a charge at a time. */
class ShortOfCredits extends Error {}

/** Most cache hits charged in one transaction. */
const MAX_PAID_ANSWERS_PER_COMMIT = 64;

export class PaidAnswers {
  private readonly batches = new MicroBatcher<PaidAnswer, PaidAnswerCharged>(
    (batch) => this.chargeBatch(batch),
    MAX_PAID_ANSWERS_PER_COMMIT,
    BATCHES_IN_FLIGHT,
  );

  constructor(private readonly db: Db) {}

  /** Charges one hit with the others of this turn; answers the balance right after it, or throws (402). */
  async charge(paid: PaidAnswer): Promise<number> {
    const charged = await this.batches.add(paid);
    if ('refused' in charged) throw charged.refused;
    return charged.balance;
  }

  /**
   * Charges a batch of paid answers in one transaction. When an account's balance does not cover its
   * whole share, or anything else fails, the batch is rolled back and each charge runs alone, in
   * arrival order: the ones the balance covers pass, the others get 402.
   */
  private async chargeBatch(batch: PaidAnswer[]): Promise<PaidAnswerCharged[]> {
    try {
      return await this.db.transaction().execute((tx) => this.write(tx, batch));
    } catch (err) {
      if (batch.length === 1 && !(err instanceof ShortOfCredits)) return [{ refused: err }];
    }
    const alone: PaidAnswerCharged[] = [];
    for (const paid of batch) {
      alone.push(
        await this.db
          .transaction()
          .execute((tx) => this.write(tx, [paid], true))
          .then((r) => r[0]!)
          .catch((refused: unknown) => ({ refused })),
      );
    }
    return alone;
  }

  /**
   * Writes paid answers inside `tx`, each account's in one statement per table. `careful` reads the
   * locked balance first and refuses (402) a charge it does not cover; otherwise a share the balance
   * does not cover throws ShortOfCredits.
   */
  private async write(tx: Tx, batch: PaidAnswer[], careful = false): Promise<PaidAnswerCharged[]> {
    const results: PaidAnswerCharged[] = new Array(batch.length);
    const createdAt = Date.now();
    // Accounts in one order on every process: two batches locking the same rows never deadlock.
    const byAccount = [...groupIndexes(batch, (p) => p.accountId)].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [accountId, indexes] of byAccount) {
      let charging = indexes;
      if (careful) {
        let balance = await lockAccountRow(tx, accountId);
        charging = [];
        for (const i of indexes) {
          const { amount } = batch[i]!;
          if (amount <= balance) {
            balance -= amount;
            charging.push(i);
          } else results[i] = { refused: insufficientCredits(amount, balance) };
        }
        if (charging.length === 0) continue;
      }
      // One flat list of every entry's columns, pushed in place (flatMap builds an array per entry).
      const values: unknown[] = [];
      for (const i of charging) {
        const { amount, description, operation, requestId } = batch[i]!;
        values.push(
          newId('txn'),
          accountId,
          -amount,
          'settled',
          description.slice(0, 1000),
          requestId,
          settledReference(requestId),
          0,
          createdAt,
          operation,
        );
      }
      const inserted = new Set(
        (await insertEntries(charging.length).execute(tx, ...values)).map((row) => row.reference),
      );
      // A reference not inserted was charged before, or earlier in this batch: that charge fails.
      const written: number[] = [];
      for (const i of charging) {
        if (inserted.delete(settledReference(batch[i]!.requestId))) written.push(i);
        else
          results[i] = { refused: new Error(`ledger: request ${batch[i]!.requestId} was already charged`) };
      }
      if (written.length === 0) continue;
      const total = written.reduce((sum, i) => sum + batch[i]!.amount, 0);
      const moved = await moveBalance.executeTakeFirst(tx, -total, accountId);
      if (!moved) {
        if (careful) throw new Error(`ledger invariant: charges of ${accountId} exceed the balance read`);
        throw new ShortOfCredits();
      }
      // Each charge's balance after it, in arrival order.
      let balance = moved.balance + total;
      for (const i of written) {
        balance -= batch[i]!.amount;
        results[i] = { balance };
      }
      for (const [operation, ofOperation] of groupIndexes(written, (i) => batch[i]!.operation)) {
        const amount = ofOperation.reduce((sum, k) => sum + batch[written[k]!]!.amount, 0);
        await addToSums.execute(
          tx,
          accountId,
          periodStart('hour', createdAt),
          periodStart('day', createdAt),
          periodStart('all', createdAt),
          'settled',
          operation,
          -amount,
          ofOperation.length,
        );
      }
    }
    return results;
  }
}

/** The indexes of `items` grouped by `key`, in order. */
function groupIndexes<T>(items: readonly T[], key: (item: T) => string): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const [i, item] of items.entries()) {
    const group = groups.get(key(item));
    if (group) group.push(i);
    else groups.set(key(item), [i]);
  }
  return groups;
}
