import { type Kysely, PostgresAdapter } from 'kysely';

// Files a request or a job produced (screenshots, …), kept where job results are kept: the bytes in
// the row (BLOB on SQLite, bytea on PostgreSQL), served to their owner until `expires_at`, then
// deleted by the sweeper (found through the index on that time). `job_id` names the job that made
// the file, when a job did.
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('files')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('account_id', 'varchar(64)', (c) => c.notNull().references('accounts.id'))
    .addColumn('job_id', 'varchar(64)')
    .addColumn('content_type', 'varchar(100)', (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('data', pg ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('files_expiry').on('files').columns(['expires_at']).execute();
  await db.schema.createIndex('files_job').on('files').columns(['job_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('files').execute();
}
