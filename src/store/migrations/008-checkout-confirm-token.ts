import type { Kysely } from 'kysely';

// A test-mode checkout's confirm token: embedded in its page's form and required by the confirm, so
// a confirm must come from someone who read the page (never a blind cross-site post or a bare POST).
// Checkouts opened before have none and cannot be confirmed: a new purchase gets one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('checkouts').addColumn('confirm_token', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('checkouts').dropColumn('confirm_token').execute();
}
