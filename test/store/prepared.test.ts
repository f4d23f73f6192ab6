// PreparedQuery: a query compiled once per database and run again with other values answers as its
// Kysely builder would, on both databases, and refuses a build that writes an argument into SQL text.
// A select outside a transaction reads the last commit without waiting for a transaction in progress
// (embedded, on SQLite's reads connection; on PostgreSQL, on another pooled connection).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedQuery } from '../../src/store/prepared.js';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('PreparedQuery', () => {
  it('answers each call with its own arguments, constants of the query kept', async () => {
    const a = await t.register();
    const b = await t.register();
    const byIdAndFloor = new PreparedQuery(2, (db, id, email) =>
      db
        .selectFrom('accounts')
        .select(['id', 'balance'])
        .where('id', '=', id!)
        .where('balance', '>=', 0)
        .where('email', '<>', email!),
    );
    const db = t.services.store.db;
    expect(await byIdAndFloor.execute(db, a.accountId, 'nobody@example.com')).toEqual([
      { id: a.accountId, balance: 100 },
    ]);
    expect(await byIdAndFloor.executeTakeFirst(db, b.accountId, 'nobody@example.com')).toEqual({
      id: b.accountId,
      balance: 100,
    });
    expect(await byIdAndFloor.execute(db, 'acc_none', 'nobody@example.com')).toEqual([]);
    // A call with more or fewer arguments than the query has places is a bug, not a query.
    await expect(byIdAndFloor.execute(db, a.accountId)).rejects.toThrow(/1 arguments given, 2 expected/);
  });

  it('refuses an argument written into the SQL text instead of passed as a value', async () => {
    const unsafe = new PreparedQuery(1, (db, id) =>
      db
        .selectFrom('accounts')
        .select('id')
        .where(sql.raw(`id = '${id}'`) as never),
    );
    await expect(unsafe.execute(t.services.store.db, 'acc_x')).rejects.toThrow(/argument/);
  });

  it('a select outside a transaction neither waits for one in progress nor sees its writes; inside, it does', async () => {
    const { accountId } = await t.register();
    const balanceOf = new PreparedQuery(1, (db, id) =>
      db.selectFrom('accounts').select('balance').where('id', '=', id!),
    );
    const addToBalance = new PreparedQuery(2, (db, amount, id) =>
      db
        .updateTable('accounts')
        .set({ balance: sql`balance + ${amount}` })
        .where('id', '=', id!)
        .returning('balance'),
    );
    const db = t.services.store.db;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inside: unknown;
    let open = true;
    const transaction = db.transaction().execute(async (tx) => {
      await addToBalance.execute(tx, 5, accountId);
      inside = await balanceOf.executeTakeFirst(tx, accountId);
      await held;
    });
    // Let the transaction take the connection and write before the plain read.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const outside = balanceOf.executeTakeFirst(db, accountId).then((row) => ({ row, open }));
    const answered = await Promise.race([
      outside,
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2000)),
    ]);
    open = false;
    release();
    await transaction;
    expect(inside).toEqual({ balance: 105 });
    expect(answered).toEqual({ row: { balance: 100 }, open: true });
    // Once committed, the next plain read sees it; a write outside a transaction still works.
    expect(await balanceOf.executeTakeFirst(db, accountId)).toEqual({ balance: 105 });
    expect(await addToBalance.execute(db, -5, accountId)).toEqual([{ balance: 100 }]);
    expect(await balanceOf.executeTakeFirst(db, accountId)).toEqual({ balance: 100 });
  });
});
