// The one writer of ledger entries: every entry of credit_transactions, every change of a balance and
// of the ledger sums is written here, for one entry (ledger.ts: grants, purchases, holds, releases,
// settlements, clawbacks) or many of one account at once (ledger-paid-answers.ts: cache hits charged
// together), by the same three statements. Whatever it answers, it keeps the ledger's invariants:
// - the balance always equals the sum of the account's entries: entries and their balance move are
//   written together in the caller's transaction, or neither is;
// - a balance never goes below zero: a debit it does not cover is refused (402) and nothing is written;
// - an entry with a reference is written at most once;
// - ledger_sums (amount and entries per type and operation, for the entry's UTC hour, UTC day and all
//   time) always equal the entries.
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Tx } from '../store/db.js';
import { periodStart } from '../store/rollups.js';
import {
  addToSums,
  type EntryRow,
  insertEntries,
  insufficientCredits,
  moveBalance,
  type TransactionType,
} from './ledger-sql.js';

/** An entry to write; the writer gives it its id and its time. */
export interface NewEntry {
  amount: number;
  type: TransactionType;
  description: string;
  /** What the credits are for (a job's kind, a request's operation); '' for grants, purchases, clawbacks. */
  operation: string;
  jobId: string | null;
  /** Unique when set: an entry whose reference was already used is not written. */
  reference?: string | null;
  /** The entry was capped (a clawback larger than the balance). */
  flagged?: boolean;
}

/** A written entry: its id, and the account's balance right after it. */
export interface WrittenEntry {
  id: string;
  balance: number;
}

/**
 * Writes `entries` of one account inside `tx`, in three statements whatever their number: the entries,
 * the balance, the sums (one statement per type and operation). Answers, for each entry in order, its
 * id and the balance right after it, or null when its reference was already used (before, or by an
 * earlier one of `entries`): that entry is not written and moves nothing. When the balance does not
 * cover the written entries together, none is written and it throws 402 (insufficient_credits, for
 * their total); a missing account throws not_found.
 */
export async function writeEntries(
  tx: Tx,
  accountId: string,
  entries: readonly NewEntry[],
): Promise<Array<WrittenEntry | null>> {
  const createdAt = Date.now();
  const rows: EntryRow[] = entries.map((e) => ({
    id: newId('txn'),
    account_id: accountId,
    amount: e.amount,
    type: e.type,
    description: e.description.slice(0, 1000),
    job_id: e.jobId,
    reference: e.reference ?? null,
    flagged: e.flagged ? 1 : 0,
    created_at: createdAt,
    operation: e.operation,
  }));
  const inserted = await insertEntries(tx, rows);
  if (inserted.length === 0) return rows.map(() => null);
  const insertedIds = new Set(inserted.map((r) => r.id));
  const written = rows.filter((r) => insertedIds.has(r.id));
  const total = written.reduce((sum, r) => sum + r.amount, 0);
  const moved = await moveBalance.executeTakeFirst(tx, { accountId, amount: total });
  if (!moved) return refuse(tx, accountId, written, total);
  // The balance after each entry, in order: from the balance before them all.
  let balance = moved.balance - total;
  const results = rows.map((r) => {
    if (!insertedIds.has(r.id)) return null;
    balance += r.amount;
    return { id: r.id, balance };
  });
  // After the balance update: the account row is locked, so one transaction at a time per account
  // touches its sums rows (no lock waits beyond the ones the balance already has).
  const hour = periodStart('hour', createdAt);
  const day = periodStart('day', createdAt);
  const all = periodStart('all', createdAt);
  for (const group of byTypeAndOperation(written)) {
    const amount = group.reduce((sum, r) => sum + r.amount, 0);
    const { type, operation } = group[0]!;
    await addToSums.execute(tx, {
      accountId,
      hour,
      day,
      all,
      type,
      operation,
      amount,
      entries: group.length,
    });
  }
  return results;
}

/**
 * The balance does not cover the entries just inserted: they are deleted again, so nothing of them
 * stays in `tx` even if the caller went on with it, and the refusal names the balance.
 */
async function refuse(
  tx: Tx,
  accountId: string,
  written: readonly EntryRow[],
  total: number,
): Promise<never> {
  await tx
    .deleteFrom('credit_transactions')
    .where(
      'id',
      'in',
      written.map((r) => r.id),
    )
    .execute();
  const account = await tx
    .selectFrom('accounts')
    .select('balance')
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) throw new AppError('not_found', 'account not found');
  throw insufficientCredits(-total, account.balance);
}

/** Entries grouped by type and operation, in order of first appearance. */
function byTypeAndOperation(rows: readonly EntryRow[]): EntryRow[][] {
  if (rows.length === 1) return [[rows[0]!]];
  const groups = new Map<string, EntryRow[]>();
  for (const r of rows) {
    const key = `${r.type}\u0000${r.operation}`;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()];
}
