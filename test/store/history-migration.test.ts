// Migration 009 on a database that already has a history: it names the operation of the entries
// written before operations were recorded, builds the ledger sums and job counts from the rows, and
// from then on the ledger keeps them in step (the same checks as the summary property test).
import { type MigrationProvider, Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../../src/billing/ledger.js';
import { openStore, type Store } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations/index.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { createTestEnv, type TestEnv } from '../support/env.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let env: TestEnv;
let store: Store;
beforeAll(async () => {
  env = await createTestEnv();
  store = openStore(env.config);
});
afterAll(async () => {
  await store?.close();
  await env?.dispose();
});

const upTo = (last: string): MigrationProvider => ({
  getMigrations: async () => Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= last)),
});

describe('migration 009 over an existing history', () => {
  it('backfills operations, ledger sums and job counts, then the ledger keeps them', async () => {
    const before = new Migrator({ db: store.db, provider: upTo('008-checkout-confirm-token') });
    const { error } = await before.migrateToLatest();
    expect(error).toBeUndefined();

    // A history written by the code before 009: no operation column yet, rows across days.
    const db = store.db.withoutPlugins();
    const t0 = Date.UTC(2026, 0, 10, 9, 30);
    await db
      .insertInto('accounts')
      .values({
        id: 'acc_old',
        email: 'old@example.com',
        password_hash: 'x',
        webhook_secret: 'x',
        balance: 96,
        created_at: t0,
      })
      .execute();
    await db
      .insertInto('jobs')
      .values(
        ['completed', 'completed', 'failed'].map((status, i) => ({
          id: `job_old_${i}`,
          account_id: 'acc_old',
          kind: 'crawl',
          status: status as 'completed' | 'failed',
          input: '{}',
          max_attempts: 1,
          run_at: t0,
          created_at: t0 + i,
        })),
      )
      .execute();
    const entry = (
      id: string,
      amount: number,
      type: string,
      description: string,
      jobId: string | null,
      at: number,
    ) => ({
      id,
      account_id: 'acc_old',
      amount,
      type,
      description,
      job_id: jobId,
      reference: null,
      flagged: 0,
      created_at: at,
    });
    await db
      .insertInto('credit_transactions')
      .values([
        entry('txn_1', 100, 'grant', 'Free credits at registration', null, t0),
        entry('txn_2', -1, 'hold', 'Scrape', 'req_1', t0 + HOUR),
        entry('txn_3', 1, 'release', 'Release: Scrape', 'req_1', t0 + HOUR + 5),
        entry('txn_4', -1, 'settled', 'Scrape', 'req_1', t0 + HOUR + 5),
        entry('txn_5', -5, 'hold', 'Hold for crawl job', 'job_old_0', t0 + DAY),
        entry('txn_6', 5, 'release', 'Release: crawl job', 'job_old_0', t0 + DAY + 10),
        entry('txn_7', -3, 'settled', 'crawl job', 'job_old_0', t0 + DAY + 10),
        entry('txn_8', -1, 'settled', 'Some older request', 'req_2', t0 + 2 * DAY),
        entry('txn_9', 1, 'release', 'Release: Some older request', 'req_2', t0 + 2 * DAY),
        entry('txn_10', -1, 'hold', 'Some older request', 'req_2', t0 + 2 * DAY),
      ])
      .execute();

    // Every migration after 008 runs, this one first.
    expect((await migrateToLatest(store))[0]).toBe('009-history-at-scale');

    const ops = await store.db
      .selectFrom('credit_transactions')
      .select(['id', 'operation'])
      .orderBy('id')
      .execute();
    expect(Object.fromEntries(ops.map((o) => [o.id, o.operation]))).toEqual({
      txn_1: '',
      txn_10: 'request',
      txn_2: 'scrape',
      txn_3: 'scrape',
      txn_4: 'scrape',
      txn_5: 'crawl',
      txn_6: 'crawl',
      txn_7: 'crawl',
      txn_8: 'request',
      txn_9: 'request',
    });
    const sums = async (period: string) =>
      (
        await store.db
          .selectFrom('ledger_sums')
          .select(['start', 'type', 'operation', 'amount', 'entries'])
          .where('account_id', '=', 'acc_old')
          .where('period', '=', period as 'day')
          .orderBy('start')
          .orderBy('type')
          .execute()
      ).map((r) => [Number(r.start), r.type, r.operation, Number(r.amount), Number(r.entries)]);
    const day = (d: number) => Date.UTC(2026, 0, 10 + d);
    expect(await sums('day')).toEqual([
      [day(0), 'grant', '', 100, 1],
      [day(0), 'hold', 'scrape', -1, 1],
      [day(0), 'release', 'scrape', 1, 1],
      [day(0), 'settled', 'scrape', -1, 1],
      [day(1), 'hold', 'crawl', -5, 1],
      [day(1), 'release', 'crawl', 5, 1],
      [day(1), 'settled', 'crawl', -3, 1],
      [day(2), 'hold', 'request', -1, 1],
      [day(2), 'release', 'request', 1, 1],
      [day(2), 'settled', 'request', -1, 1],
    ]);
    expect((await sums('hour')).map((r) => r[0])).toContain(Date.UTC(2026, 0, 10, 10));
    const counts = await store.db
      .selectFrom('job_counts')
      .select(['status', 'n'])
      .where('account_id', '=', 'acc_old')
      .orderBy('status')
      .execute();
    expect(counts.map((c) => [c.status, Number(c.n)])).toEqual([
      ['completed', 2],
      ['failed', 1],
    ]);

    // From here the ledger adds to the same rows.
    await new Ledger(store.db).grant('acc_old', 4, 'Operator grant: after the migration');
    const all = await store.db
      .selectFrom('ledger_sums')
      .select(['entries', 'amount'])
      .where('account_id', '=', 'acc_old')
      .where('period', '=', 'all')
      .where('type', '=', 'grant')
      .executeTakeFirstOrThrow();
    expect([Number(all.entries), Number(all.amount)]).toEqual([2, 104]);
  });
});
