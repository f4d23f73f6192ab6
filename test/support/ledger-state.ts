// Ledger views shared by the billing tests: an account drained to a chosen balance, and how many
// holds, releases and settlements it has, with its request holds still open.
import type { TestApp } from './app.js';

/** A fresh account whose free credits are drained to `target`. */
export async function accountWithBalance(t: TestApp, target: number) {
  const account = await t.register();
  const current = await t.services.ledger.balance(account.accountId);
  await t.services.ledger.clawback(account.accountId, current - target, 'test: drain free credits');
  return account;
}

/** The account's hold, release and settled entries counted, and its request holds still open. */
export async function requestLedgerState(t: TestApp, accountId: string) {
  const { db } = t.services.store;
  const rows = await db
    .selectFrom('credit_transactions')
    .select('type')
    .where('account_id', '=', accountId)
    .where('type', 'in', ['hold', 'release', 'settled'])
    .execute();
  const open = await db
    .selectFrom('request_holds')
    .select('request_id')
    .where('account_id', '=', accountId)
    .execute();
  const count = (type: string) => rows.filter((r) => r.type === type).length;
  return { holds: count('hold'), releases: count('release'), settled: count('settled'), open: open.length };
}
