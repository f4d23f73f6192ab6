// The ledger's transaction types, its statements, each compiled once (they run several times per
// paid request), and the refusal its debits answer. Used by ledger.ts and ledger-paid-answers.ts, the
// two writers of credit_transactions and balances.
import { sql } from 'kysely';
import { AppError } from '../errors.js';
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

/** The columns of an entry, in the order its placeholders come. */
const ENTRY_COLUMNS = 10;

/** An entry's row from its ten placeholders. */
const entryRow = ([
  id,
  accountId,
  amount,
  type,
  description,
  jobId,
  ref,
  flagged,
  at,
  operation,
]: string[]) => ({
  id: id!,
  account_id: accountId!,
  amount: amount as unknown as number,
  type: type as TransactionType,
  description: description!,
  job_id: jobId!,
  reference: ref!,
  flagged: flagged as unknown as number,
  created_at: at as unknown as number,
  operation: operation!,
});

/** One entry (id, account, amount, type, description, job id, reference, flagged, created at, operation). */
export const insertEntry = new PreparedQuery(ENTRY_COLUMNS, (db, ...columns) =>
  db
    .insertInto('credit_transactions')
    .values(entryRow(columns))
    .onConflict((oc) => oc.column('reference').doNothing())
    .returning('id'),
);

export const moveBalance = new PreparedQuery(2, (db, amount, accountId) =>
  db
    .updateTable('accounts')
    .set({ balance: sql`balance + ${amount}` })
    .where('id', '=', accountId!)
    .where(sql<boolean>`balance + ${amount} >= 0`)
    .returning('balance'),
);

export const openRequestHold = new PreparedQuery(5, (db, requestId, accountId, amount, operation, at) =>
  db.insertInto('request_holds').values({
    request_id: requestId!,
    account_id: accountId!,
    amount: amount as unknown as number,
    operation: operation!,
    created_at: at as unknown as number,
  }),
);

export const closeRequestHold = new PreparedQuery(1, (db, requestId) =>
  db.deleteFrom('request_holds').where('request_id', '=', requestId!).returning(['amount', 'operation']),
);

/** `entries` entries of one type and operation join their hour's, day's and all-time sums, in one statement. */
export const addToSums = new PreparedQuery(
  8,
  (db, accountId, hour, day, all, type, operation, amount, entries) =>
    db
      .insertInto('ledger_sums')
      .values(
        (
          [
            ['hour', hour],
            ['day', day],
            ['all', all],
          ] as const
        ).map(([period, start]) => ({
          account_id: accountId!,
          period,
          start: start as unknown as number,
          type: type as TransactionType,
          operation: operation!,
          amount: amount as unknown as number,
          entries: entries as unknown as number,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['account_id', 'period', 'start', 'type', 'operation']).doUpdateSet({
          amount: sql`ledger_sums.amount + excluded.amount`,
          entries: sql`ledger_sums.entries + excluded.entries`,
        }),
      ),
);

/** The batch's entries of one account inserted in one statement: one prepared form per row count. */
const insertEntriesOf = new Map<number, PreparedQuery<{ reference: string | null }, unknown[]>>();
export function insertEntries(rows: number) {
  let query = insertEntriesOf.get(rows);
  if (!query) {
    query = new PreparedQuery(rows * ENTRY_COLUMNS, (db, ...columns) =>
      db
        .insertInto('credit_transactions')
        .values(
          Array.from({ length: rows }, (_, r) =>
            entryRow(columns.slice(r * ENTRY_COLUMNS, (r + 1) * ENTRY_COLUMNS)),
          ),
        )
        .onConflict((oc) => oc.column('reference').doNothing())
        .returning('reference'),
    );
    insertEntriesOf.set(rows, query);
  }
  return query;
}
