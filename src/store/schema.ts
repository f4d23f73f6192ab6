// Row types of every table, as Kysely sees them. Times are integer Unix milliseconds.
import type { Generated, Insertable, Selectable } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string;
  webhook_secret: string;
  balance: number;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  /** 'api' for keys listed under /v1/keys, 'session' for login tokens. */
  kind: 'api' | 'session';
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  expires_at: number | null;
}

export interface CreditTransactionsTable {
  id: string;
  account_id: string;
  amount: number;
  type: string;
  description: string;
  job_id: string | null;
  /** Unique when set: makes a purchase, release or settlement happen at most once. */
  reference: string | null;
  /** 1 when the entry was capped (a clawback larger than the balance). */
  flagged: Generated<number>;
  created_at: number;
}

export interface CheckoutsTable {
  id: string;
  account_id: string;
  package_id: string;
  credits: number;
  price_usd: string;
  provider: 'stripe' | 'test';
  provider_ref: string | null;
  status: 'open' | 'completed';
  created_at: number;
  completed_at: number | null;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  credit_transactions: CreditTransactionsTable;
  checkouts: CheckoutsTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type CreditTransactionRow = Selectable<CreditTransactionsTable>;
export type NewCreditTransaction = Insertable<CreditTransactionsTable>;
export type CheckoutRow = Selectable<CheckoutsTable>;
