// Cache hits charged together: the hits that reach the ledger in one turn of the event loop share a
// transaction, each account's in three statements whatever their number (its entries, its balance,
// its sums). A hit's answer costs little, and a transaction per hit made the ledger most of its cost.
// Each hit still gets its own settled entry (job_id = its request id) and the answer it would have had
// alone, in arrival order. Part of the ledger (ledger.ts calls it from chargeRequest): with it, the only
// writer of credit_transactions and balances; the entries are written by ledger-entries.ts, the writer
// of single entries too, which keeps the ledger's invariants.
import type { Db, Tx } from '../store/db.js';
import { BATCHES_IN_FLIGHT, MicroBatcher } from '../store/micro-batch.js';
import { writeEntries } from './ledger-entries.js';
import { settledReference } from './ledger-sql.js';

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

/** Most cache hits charged in one transaction. */
const MAX_PAID_ANSWERS_PER_COMMIT = 64;

export class PaidAnswers {
  /**
   * A batch is charged in one transaction. When an account's balance does not cover its whole share
   * (a 402 for the share), or anything else fails, the batch is rolled back and each charge runs
   * alone, in arrival order: the ones the balance covers pass, the others get 402. A charge alone
   * that fails is not rerun: its 402 is its answer.
   */
  private readonly batches = new MicroBatcher<PaidAnswer, PaidAnswerCharged>(
    (batch) => this.db.transaction().execute((tx) => this.write(tx, batch)),
    MAX_PAID_ANSWERS_PER_COMMIT,
    BATCHES_IN_FLIGHT,
    {
      alone: (paid) =>
        this.db
          .transaction()
          .execute((tx) => this.write(tx, [paid]))
          .then((r) => r[0]!),
    },
  );

  constructor(private readonly db: Db) {}

  /** Charges one hit with the others of this turn; answers the balance right after it, or throws (402). */
  async charge(paid: PaidAnswer): Promise<number> {
    const charged = await this.batches.add(paid);
    if ('refused' in charged) throw charged.refused;
    return charged.balance;
  }

  /**
   * Writes paid answers inside `tx`, each account's entries together (ledger-entries.ts: one statement
   * per table). A share the balance does not cover throws 402, for the share.
   */
  private async write(tx: Tx, batch: PaidAnswer[]): Promise<PaidAnswerCharged[]> {
    const results: PaidAnswerCharged[] = new Array(batch.length);
    // Accounts in one order on every process: two batches locking the same rows never deadlock.
    const byAccount = [...groupIndexes(batch, (p) => p.accountId)].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [accountId, indexes] of byAccount) {
      const written = await writeEntries(
        tx,
        accountId,
        indexes.map((i) => {
          const { amount, description, operation, requestId } = batch[i]!;
          return {
            amount: -amount,
            type: 'settled' as const,
            description,
            operation,
            jobId: requestId,
            reference: settledReference(requestId),
          };
        }),
      );
      // An entry not written was charged before, or earlier in this batch: that charge fails.
      for (const [k, i] of indexes.entries()) {
        const entry = written[k];
        results[i] = entry
          ? { balance: entry.balance }
          : { refused: new Error(`ledger: request ${batch[i]!.requestId} was already charged`) };
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
