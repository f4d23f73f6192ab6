// `unfurl admin credits grant|clawback`, run as the real built binary in a child process against
// the same database the in-process test app serves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, uniqueEmail } from '../support/app.js';
import { ensureBuilt, runCli } from '../support/cli.js';

let t: TestApp;
beforeAll(async () => {
  await ensureBuilt();
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** The variables that point the CLI at the test app's database (and queue prefix, Redis). */
const cliEnv = () => {
  const env: Record<string, string> = {};
  for (const name of [
    'UNFURL_DATA_DIR',
    'DATABASE_URL',
    'REDIS_URL',
    'UNFURL_QUEUE_PREFIX',
    'UNFURL_CHECKOUT',
  ]) {
    const v = t.env.env[name];
    if (v) env[name] = v;
  }
  return env;
};

const admin = (...args: string[]) => runCli(['admin', 'credits', ...args], cliEnv());

const balance = async (key: string) =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;

const rows = (accountId: string, type: string) =>
  t.services.store.db
    .selectFrom('credit_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('type', '=', type)
    .execute();

describe('unfurl admin credits grant', () => {
  it('raises the balance and writes a grant transaction', async () => {
    const { email, apiKey, accountId } = await t.register();
    const r = await admin('grant', '--email', email, '--amount', '250', '--reason', 'support ticket 42');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ accountId, granted: 250, balance: 350 });
    expect(await balance(apiKey)).toBe(350);

    const usage = (await t.call(apiKey, { method: 'GET', url: '/v1/account/usage?type=grant' })).json();
    expect(usage.total).toBe(2);
    expect(usage.transactions[0]).toMatchObject({ amount: 250, type: 'grant', job_id: null });
    expect(usage.transactions[0].description).toContain('support ticket 42');
  });

  it('finds the account whatever the case of the e-mail given, with or without a trailing dot', async () => {
    const { email, apiKey } = await t.register();
    const r = await admin('grant', '--email', `  ${email.toUpperCase()}. `, '--amount', '5', '--reason', 'x');
    expect(r.code).toBe(0);
    expect(await balance(apiKey)).toBe(105);
  });
});

describe('unfurl admin credits clawback', () => {
  it('lowers the balance and writes a clawback transaction, not flagged', async () => {
    const { email, apiKey, accountId } = await t.register();
    const r = await admin('clawback', '--email', email, '--amount', '30', '--reason', 'refund ch_123');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ accountId, clawedBack: 30, capped: false, balance: 70 });
    expect(r.stderr).toBe('');
    expect(await balance(apiKey)).toBe(70);
    const usage = (await t.call(apiKey, { method: 'GET', url: '/v1/account/usage?type=clawback' })).json();
    expect(usage.total).toBe(1);
    expect(usage.transactions[0]).toMatchObject({ amount: -30, type: 'clawback' });
    expect(usage.transactions[0].description).toContain('refund ch_123');
    const [row] = await rows(accountId, 'clawback');
    expect(Number(row!.flagged)).toBe(0);
  });

  it('caps a clawback bigger than the balance at the balance and flags it', async () => {
    const { email, apiKey, accountId } = await t.register();
    const r = await admin('clawback', '--email', email, '--amount', '1000', '--reason', 'dispute dp_9');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ accountId, clawedBack: 100, capped: true, balance: 0 });
    expect(r.stderr).toMatch(/only 100 of 1000/);
    expect(await balance(apiKey)).toBe(0);
    const [row] = await rows(accountId, 'clawback');
    expect(Number(row!.amount)).toBe(-100);
    expect(Number(row!.flagged)).toBe(1);
    expect(row!.description).toMatch(/capped: 1000 requested, 100 available/);

    // A second clawback on an empty balance takes nothing and the balance stays at 0.
    const again = await admin('clawback', '--email', email, '--amount', '5', '--reason', 'again');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ clawedBack: 0, capped: true, balance: 0 });
    expect(await balance(apiKey)).toBe(0);
    // The balance still equals the sum of the ledger.
    const sum = await t.services.store.db
      .selectFrom('credit_transactions')
      .select((eb) => eb.fn.sum<number>('amount').as('total'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(Number(sum.total)).toBe(0);
  });

  it('grant and clawback together keep balance = sum of transactions', async () => {
    const { email, apiKey, accountId } = await t.register();
    expect((await admin('grant', '--email', email, '--amount', '40', '--reason', 'a')).code).toBe(0);
    expect((await admin('clawback', '--email', email, '--amount', '15', '--reason', 'b')).code).toBe(0);
    expect(await balance(apiKey)).toBe(125);
    const all = await t.services.store.db
      .selectFrom('credit_transactions')
      .select(['amount', 'type'])
      .where('account_id', '=', accountId)
      .execute();
    expect(all.map((x) => [x.type, Number(x.amount)]).sort()).toEqual([
      ['clawback', -15],
      ['grant', 100],
      ['grant', 40],
    ]);
  });
});

describe('unfurl admin: bad input', () => {
  // Independent child processes: run them side by side (each start costs about a second of CPU).
  it.concurrent.for([
    [['grant']],
    [['grant', '--email', 'a@b.co', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', '10']],
    [['grant', '--email', 'a@b.co', '--amount', '10', '--reason', '   ']],
    [['grant', '--amount', '10', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', '0', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', '-5', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', '2.5', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', 'ten', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', '1e3', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', '0x10', '--reason', 'r']],
    [['clawback', '--email', 'a@b.co', '--amount', '99999999999999999999', '--reason', 'r']],
    [['grant', '--email', 'a@b.co', '--amount', '10', '--reason', 'r', '--bogus', 'x']],
    [['grant', '--email', 'a@b.co', '--amount', '10', '--reason', 'r', 'stray']],
    [['grant', '--email', 'a@b.co', '--reason', 'r', '--amount']],
    [['refund', '--email', 'a@b.co', '--amount', '10', '--reason', 'r']],
    [[]],
  ])('exits 2 with usage for %j', async ([args], { expect }) => {
    const r = await admin(...args!);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage:');
    expect(r.stderr).toContain('unfurl admin credits grant');
    expect(r.stdout).toBe('');
  });

  it('a bad argument changes nothing', async () => {
    const { email, apiKey } = await t.register();
    const r = await admin('grant', '--email', email, '--amount', '10abc', '--reason', 'r');
    expect(r.code).toBe(2);
    expect(await balance(apiKey)).toBe(100);
  });

  it('exits 1 for an unknown e-mail, naming it', async () => {
    // A malformed address has no account either (not a crash).
    for (const email of [uniqueEmail('nobody'), 'not-an-email']) {
      for (const action of ['grant', 'clawback']) {
        const r = await admin(action, '--email', email, '--amount', '10', '--reason', 'r');
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(email);
        expect(r.stdout).toBe('');
      }
    }
  });
});
