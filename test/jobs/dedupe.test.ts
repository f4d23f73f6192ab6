// A kind's dedupe key: identical requests while a job waits or runs share that job and its single
// hold, even when they arrive at the same moment (the database's unique index decides the race).
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { echoKind } from '../support/test-kinds.js';

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe(`dedupe keys (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('twenty identical submits at once make one job and one hold; a different input makes another', async () => {
    t = await createTestApp();
    t.services.jobs.registry.register(echoKind('deduped', { dedupeKey: (i) => `v:${i.value}` }));
    const { accountId } = await t.register();
    const submit = (value: string) =>
      t!.services.jobs.service.submit({
        accountId,
        kind: 'deduped',
        input: { value, estimate: 3, sleepMs: 60_000 },
        webhookUrl: null,
        idempotencyKey: null,
      });
    const answers = await Promise.all(Array.from({ length: 20 }, () => submit('same')));
    const ids = new Set(answers.map((a) => a.jobId));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    const other = await submit('other');
    expect(ids.has(other.jobId)).toBe(false);
    // Two jobs, 3 credits held each: nothing held twice.
    expect(await t.services.ledger.balance(accountId)).toBe(100 - 6);
  });
});
