import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
    .addColumn('password_hash', 'varchar(512)', (c) => c.notNull())
    .addColumn('webhook_secret', 'varchar(128)', (c) => c.notNull())
    .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('accounts_balance_non_negative', sql`balance >= 0`)
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
    .addColumn('key_hash', 'varchar(128)', (c) => c.notNull().unique())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'kind']).execute();

  await db.schema
    .createTable('credit_transactions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('type', 'varchar(32)', (c) => c.notNull())
    .addColumn('description', 'varchar(1000)', (c) => c.notNull())
    .addColumn('job_id', 'varchar(128)')
    .addColumn('reference', 'varchar(300)', (c) => c.unique())
    .addColumn('flagged', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('credit_transactions_account')
    .on('credit_transactions')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema.createIndex('credit_transactions_job').on('credit_transactions').column('job_id').execute();

  await db.schema
    .createTable('checkouts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
    .addColumn('package_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('credits', 'bigint', (c) => c.notNull())
    .addColumn('price_usd', 'varchar(16)', (c) => c.notNull())
    .addColumn('provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('provider_ref', 'varchar(300)', (c) => c.unique())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  await db.schema.createIndex('checkouts_account').on('checkouts').column('account_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['checkouts', 'credit_transactions', 'api_keys', 'accounts']) {
    await db.schema.dropTable(t).execute();
  }
}
