// The job engine's hot path on PostgreSQL runs raw prepared statements (a batch as one JSON
// parameter: insert, claim by id, finish), each with a portable Kysely twin that SQLite runs. Both
// must leave a job in the same state: the same sequence — accept, claim, finish (completed and
// failed), and a claim or finish a guard must refuse — is run through each, and the rows compared
// column by column (ids and clock times aside). `JobRecords` built as 'sqlite' selects the Kysely
// twins, which run on PostgreSQL as well.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { JobRecords } from '../../src/jobs/records.js';
import type { JobRow } from '../../src/store/schema.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { usingPostgres } from '../support/env.js';
import { closeTestApp } from '../support/teardown.js';

const LEASE_MS = 30_000;
const TTL_MS = 60_000;

let t: TestApp;
let raw: JobRecords;
let twin: JobRecords;

beforeAll(async () => {
  t = await createTestApp();
  const { db, workerDb, pools } = t.services.store;
  raw = new JobRecords(db, workerDb, 'pg', pools);
  twin = new JobRecords(db, workerDb, 'sqlite');
});
afterAll(async () => closeTestApp(t));

function newJob(accountId: string, kind: string) {
  const now = Date.now();
  return {
    id: newId('job'),
    account_id: accountId,
    kind,
    status: 'queued' as const,
    input: JSON.stringify({ n: 1 }),
    max_attempts: 3,
    held: 0,
    webhook_url: null,
    dedupe_key: null,
    run_at: now - 1000,
    created_at: now - 1000,
  };
}

/** The state of a row, without what differs by nature between two jobs (ids, clock times). */
function state(row: JobRow | undefined) {
  expect(row).toBeDefined();
  const {
    id: _id,
    created_at,
    run_at,
    started_at,
    completed_at,
    locked_until,
    result_expires_at,
    duration_ms,
    ...rest
  } = row!;
  return {
    ...rest,
    run_at: run_at === created_at,
    started: started_at !== null,
    completed: completed_at !== null,
    leased: locked_until !== null,
    expires: result_expires_at !== null,
    timed: duration_ms !== null && duration_ms >= 0,
  };
}

/** Runs one scenario through `records` and answers the states it went through. */
async function scenario(records: JobRecords, accountId: string) {
  const ok = newJob(accountId, 'twin');
  const bad = newJob(accountId, 'twin');
  await records.insertMany([ok, bad]);
  const accepted = await Promise.all([records.get(ok.id), records.get(bad.id)]);
  const claimed = await records.claimManyById(
    [{ id: ok.id }, { id: bad.id }, { id: ok.id }],
    'worker-a',
    LEASE_MS,
  );
  // Claimed already, so another worker's claim takes nothing.
  const again = await records.claimManyById([{ id: ok.id }], 'worker-b', LEASE_MS);
  // Another worker's finish of a job it does not hold changes nothing.
  const foreign = await records.finishMany(
    [
      {
        job: claimed.find((r) => r.id === ok.id)!,
        outcome: { status: 'completed', result: { x: 1 }, cost: 0 },
      },
    ],
    'worker-b',
    TTL_MS,
  );
  const ended = await records.finishMany(
    [
      {
        job: claimed.find((r) => r.id === ok.id)!,
        outcome: { status: 'completed', result: { x: 1 }, cost: 0 },
      },
      {
        job: claimed.find((r) => r.id === bad.id)!,
        outcome: { status: 'failed', error: 'it broke', errorCode: 'upstream_error', cost: 0 },
      },
    ],
    'worker-a',
    TTL_MS,
  );
  const final = await Promise.all([records.get(ok.id), records.get(bad.id)]);
  return {
    accepted: accepted.map(state),
    claimed: claimed.map((r) => state(r)).sort((a, b) => a.status.localeCompare(b.status)),
    claimedCount: claimed.length,
    again: again.length,
    foreign: foreign.length,
    ended: ended
      .map((e) => ({ kind: e.kind, status: e.status, webhook_url: e.webhook_url }))
      .sort((a, b) => a.status.localeCompare(b.status)),
    final: final.map(state),
  };
}

describe.runIf(usingPostgres)('raw PostgreSQL statements and their Kysely twins', () => {
  it('take a job through accept, claim and finish to the same state', async () => {
    const { accountId } = await t.register();
    const viaRaw = await scenario(raw, accountId);
    const viaTwin = await scenario(twin, accountId);
    expect(viaRaw.claimedCount).toBe(2);
    expect(viaRaw.final.map((s) => s.status)).toEqual(['completed', 'failed']);
    expect(viaRaw).toEqual(viaTwin);
  });
});
