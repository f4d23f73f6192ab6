// The ledger's transaction types, its statements, each compiled once (they run several times per
// paid request) and typed by their parameters, and the refusal its debits answer. The entry, balance
// and sums statements are run by ledger-entries.ts alone, the one writer of entries; the request-hold
// ones by ledger.ts.
import { sql } from 'kysely';
import { AppError } from '../errors.js';
import type { Tx } from '../store/db.js';
import { PreparedQuery } from '../store/prepared.js';
import { creditsText } from './prices.js';

export type TransactionType = 'grant' | 'purchase' | 'settled' | 'hold' | 'release' | 'clawback';
export const transactionTypes: readonly TransactionType[] = [
  'grant',
  'purchase',
  'settled',
  'hold',
  'release',
  'clawback',
];

export const insufficientCredits = (needed: number, balance: number) =>
  new AppError(
    'insufficient_credits',
    `This request needs ${creditsText(needed)} and the balance is ${creditsText(balance)}. Buy more: GET /v1/credits/packages, then POST /v1/credits/purchase.`,
    `needed=${needed} balance=${balance}`,
  );

/** The reference of a request's or job's settled entry: one per id, so it is never charged twice. */
export const settledReference = (id: string) => `settled:${id}`;

/** An entry's row, as the ledger writes it. */
export interface EntryRow {
  id: string;
  account_id: string;
  amount: number;
  type: TransactionType;
  description: string;
  job_id: string | null;
  reference: string | null;
  /** 1 when the entry was capped (a clawback larger than the balance). */
  flagged: 0 | 1;
  created_at: number;
  operation: string;
}

/** The entries of one account inserted in one statement: one prepared form per row count. */
const insertEntriesOf = new Map<number, PreparedQuery<readonly EntryRow[], { id: string }>>();

/**
 * Inserts `rows` in one statement; answers the ids of the rows written (a row whose reference was
 * used before, or earlier in `rows`, is not).
 */
export function insertEntries(tx: Tx, rows: readonly EntryRow[]): Promise<Array<{ id: string }>> {
  let query = insertEntriesOf.get(rows.length);
  if (!query) {
    const count = rows.length;
    query = new PreparedQuery((db, entries: readonly EntryRow[]) =>
      db
        .insertInto('credit_transactions')
        .values(
          Array.from({ length: count }, (_, r) => {
            const e = entries[r]!;
            return {
              id: e.id,
              account_id: e.account_id,
              amount: e.amount,
              type: e.type,
              description: e.description,
              job_id: e.job_id,
              reference: e.reference,
              flagged: e.flagged,
              created_at: e.created_at,
              operation: e.operation,
            };
          }),
        )
        .onConflict((oc) => oc.column('reference').doNothing())
        .returning('id'),
    );
    insertEntriesOf.set(count, query);
  }
  return query.execute(tx, rows);
}

/** Moves the balance by `amount` unless that takes it below zero; answers the balance after, if moved. */
export const moveBalance = new PreparedQuery((db, p: { accountId: string; amount: number }) =>
  db
    .updateTable('accounts')
    .set({ balance: sql`balance + ${p.amount}` })
    .where('id', '=', p.accountId)
    .where(sql<boolean>`balance + ${p.amount} >= 0`)
    .returning('balance'),
);

/** A synchronous request's open hold, noted for the sweeper (ledger.ts: holdRequest). */
export interface RequestHold {
  request_id: string;
  account_id: string;
  amount: number;
  operation: string;
  created_at: number;
}

export const openRequestHold = new PreparedQuery((db, hold: RequestHold) =>
  db.insertInto('request_holds').values({
    request_id: hold.request_id,
    account_id: hold.account_id,
    amount: hold.amount,
    operation: hold.operation,
    created_at: hold.created_at,
  }),
);

export const closeRequestHold = new PreparedQuery((db, p: { requestId: string }) =>
  db.deleteFrom('request_holds').where('request_id', '=', p.requestId).returning(['amount', 'operation']),
);

/** What `entries` entries of one type and operation add to their hour's, day's and all-time sums. */
export interface SumsDelta {
  accountId: string;
  /** Where the entries' hour, day and all time start (periodStart). */
  hour: number;
  day: number;
  all: number;
  type: TransactionType;
  operation: string;
  amount: number;
  entries: number;
}

/** Entries of one type and operation join their hour's, day's and all-time sums, in one statement. */
export const addToSums = new PreparedQuery((db, d: SumsDelta) =>
  db
    .insertInto('ledger_sums')
    .values(
      (
        [
          ['hour', d.hour],
          ['day', d.day],
          ['all', d.all],
        ] as const
      ).map(([period, start]) => ({
        account_id: d.accountId,
        period,
        start,
        type: d.type,
        operation: d.operation,
        amount: d.amount,
        entries: d.entries,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['account_id', 'period', 'start', 'type', 'operation']).doUpdateSet({
        amount: sql`ledger_sums.amount + excluded.amount`,
        entries: sql`ledger_sums.entries + excluded.entries`,
      }),
    ),
);
