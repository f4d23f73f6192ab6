// Serialises work on one account across processes: a no-op write to its row holds the row lock until
// the transaction ends. Used where a check and a write must not interleave (ledger entries, per-account
// limits counted before an insert).
import { sql } from 'kysely';
import { AppError } from '../errors.js';
import type { Tx } from './db.js';

/** Locks the account row until `tx` ends; answers its balance. */
export async function lockAccountRow(tx: Tx, accountId: string): Promise<number> {
  const locked = await tx
    .updateTable('accounts')
    .set({ balance: sql`balance` })
    .where('id', '=', accountId)
    .returning('balance')
    .executeTakeFirst();
  if (!locked) throw new AppError('not_found', 'account not found');
  return locked.balance;
}
