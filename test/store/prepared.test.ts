// PreparedQuery: a query compiled once per database and run again with other values (a typed
// parameters object, read at any depth) answers as its Kysely builder would, on both databases, and
// refuses a build that writes a parameter into SQL text or a call that leaves one out.
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
  it('answers each call with its own parameters, constants of the query kept', async () => {
    const a = await t.register();
    const b = await t.register();
    const byIdAndFloor = new PreparedQuery((db, p: { id: string; email: string }) =>
      db
        .selectFrom('accounts')
        .select(['id', 'balance'])
        .where('id', '=', p.id)
        .where('balance', '>=', 0)
        .where('email', '<>', p.email),
    );
    const db = t.services.store.db;
    expect(await byIdAndFloor.execute(db, { id: a.accountId, email: 'nobody@example.com' })).toEqual([
      { id: a.accountId, balance: 100 },
    ]);
    expect(await byIdAndFloor.executeTakeFirst(db, { email: 'nobody@example.com', id: b.accountId })).toEqual(
      {
        id: b.accountId,
        balance: 100,
      },
    );
    expect(await byIdAndFloor.execute(db, { id: 'acc_none', email: 'nobody@example.com' })).toEqual([]);
    // A call that leaves a parameter out is a bug, not a query with NULL there.
    const partial = JSON.parse(JSON.stringify({ id: a.accountId }));
    await expect(byIdAndFloor.execute(db, partial)).rejects.toThrow(/no value for parameter email/);
  });

  it('reads parameters at any depth: one row per element of a list', async () => {
    const a = await t.register();
    const b = await t.register();
    const twoAccounts = new PreparedQuery((db, ids: ReadonlyArray<{ id: string }>) =>
      db.selectFrom('accounts').select('id').where('id', 'in', [ids[0]!.id, ids[1]!.id]).orderBy('id'),
    );
    const db = t.services.store.db;
    expect(await twoAccounts.execute(db, [{ id: a.accountId }, { id: b.accountId }])).toEqual(
      [{ id: a.accountId }, { id: b.accountId }].sort((x, y) => (x.id < y.id ? -1 : 1)),
    );
    expect(await twoAccounts.execute(db, [{ id: b.accountId }, { id: 'acc_none' }])).toEqual([
      { id: b.accountId },
    ]);
  });

  it('refuses a parameter written into the SQL text instead of passed as a value', async () => {
    const unsafe = new PreparedQuery((db, p: { id: string }) =>
      db
        .selectFrom('accounts')
        .select('id')
        .where(sql.raw(`id = '${p.id}'`) as never),
    );
    await expect(unsafe.execute(t.services.store.db, { id: 'acc_x' })).rejects.toThrow(
      /parameter id was written into the SQL text/,
    );
  });

  it('a select outside a transaction neither waits for one in progress nor sees its writes; inside, it does', async () => {
    const { accountId } = await t.register();
    const balanceOf = new PreparedQuery((db, p: { id: string }) =>
      db.selectFrom('accounts').select('balance').where('id', '=', p.id),
    );
    const addToBalance = new PreparedQuery((db, p: { amount: number; id: string }) =>
      db
        .updateTable('accounts')
        .set({ balance: sql`balance + ${p.amount}` })
        .where('id', '=', p.id)
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
      await addToBalance.execute(tx, { amount: 5, id: accountId });
      inside = await balanceOf.executeTakeFirst(tx, { id: accountId });
      await held;
    });
    // Let the transaction take the connection and write before the plain read.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const outside = balanceOf.executeTakeFirst(db, { id: accountId }).then((row) => ({ row, open }));
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
    expect(await balanceOf.executeTakeFirst(db, { id: accountId })).toEqual({ balance: 105 });
    expect(await addToBalance.execute(db, { amount: -5, id: accountId })).toEqual([{ balance: 100 }]);
    expect(await balanceOf.executeTakeFirst(db, { id: accountId })).toEqual({ balance: 100 });
  });
});
