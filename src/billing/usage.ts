// Reads the caller's credit history (GET /v1/account/usage). Only reads: the ledger writes.
import type { Db } from '../store/db.js';

export interface UsageQuery {
  limit: number;
  offset: number;
  type?: string;
}

export class CreditHistory {
  constructor(private readonly db: Db) {}

  /** One page of the account's transactions, newest first, and how many there are in all. */
  async list(accountId: string, q: UsageQuery) {
    let base = this.db.selectFrom('credit_transactions').where('account_id', '=', accountId);
    if (q.type) base = base.where('type', '=', q.type);
    const [rows, count] = await Promise.all([
      base
        .select(['id', 'amount', 'type', 'description', 'job_id', 'created_at'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit)
        .offset(q.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    ]);
    return { transactions: rows, total: Number(count?.n ?? 0) };
  }
}
