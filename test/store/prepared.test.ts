// PreparedQuery: a query compiled once per database and run again with other values answers as its
// Kysely builder would, on both databases, and refuses a build that writes an argument into SQL text.
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
});
