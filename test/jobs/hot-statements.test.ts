// The job engine's hot path on PostgreSQL runs raw prepared statements (a batch as one JSON
// parameter: insert, claim by id, finish — src/jobs/records/hot-statements.ts), each with a
// portable Kysely twin that SQLite runs. Both must leave a job in the same state: the same
// sequence is run through each and the rows compared column by column, ids aside and clock times
// named (the time a test set, set from the clock, a live lease, completed + TTL). Every guard of
// every raw statement is exercised: a claim refused (not due, out of attempts, ended, held by a
// live lease) or taken over (a lapsed lease), a finish refused (another worker's, a job requeued
// meanwhile, a fresh job someone touched meanwhile, an ended job). `JobRecords` built as 'sqlite'
// selects the Kysely twins, which run on PostgreSQL as well.

import type { Insertable, Updateable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, randomBase62 } from '../../src/ids.js';
import { type FinishItem, JobRecords } from '../../src/jobs/records.js';
import type { JobRow, JobsTable } from '../../src/store/schema.js';
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

/** Times a scenario sets itself, by name: a row's time equal to one of them shows as its name. */
type Marks = Record<string, number>;

function marksFrom(base: number): Marks {
  return {
    created: base - 1000,
    began: base - 500,
    old: base - 5000,
    past: base - 100,
    later: base + 600_000,
  };
}

function newJob(accountId: string, marks: Marks, overrides: Partial<Insertable<JobsTable>> = {}) {
  return {
    id: newId('job'),
    account_id: accountId,
    kind: 'twin',
    status: 'queued' as const,
    // Quotes, a backslash, a line break and non-ASCII must travel through the JSON parameter intact.
    input: JSON.stringify({ n: 1, text: 'naïve "quoted" \\ line\nbreak' }),
    max_attempts: 3,
    held: 0,
    webhook_url: null,
    dedupe_key: null,
    run_at: marks.created!,
    created_at: marks.created!,
    ...overrides,
  };
}

/** A time as the scenario knows it: the mark it equals, a live lease, else set from the clock. */
function when(time: number | null, marks: Marks, now: number): string | null {
  if (time === null) return null;
  const mark = Object.keys(marks).find((k) => marks[k] === time);
  if (mark) return mark;
  return time > now + LEASE_MS / 2 ? 'live lease' : 'clock';
}

/** The state of a row, without what differs by nature between two jobs (ids, clock times). */
function state(row: JobRow | undefined, marks: Marks) {
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
  const now = Date.now();
  return {
    ...rest,
    created_at: when(created_at, marks, now),
    run_at: when(run_at, marks, now),
    started_at: when(started_at, marks, now),
    completed_at: when(completed_at, marks, now),
    locked_until: when(locked_until, marks, now),
    duration_ms:
      duration_ms !== null && duration_ms === (completed_at ?? 0) - (started_at ?? 0)
        ? 'completed - started'
        : duration_ms,
    result_expires_at:
      result_expires_at !== null && result_expires_at === (completed_at ?? 0) + TTL_MS
        ? 'completed + ttl'
        : when(result_expires_at, marks, now),
  };
}

/** Rows (or ended jobs) by the scenario's name for them, in name order. */
function byName<R extends { id: string }>(rows: R[], jobs: Record<string, { id: string }>) {
  const names = new Map(Object.entries(jobs).map(([name, j]) => [j.id, name]));
  return rows
    .map((r) => ({ name: names.get(r.id) ?? r.id, row: r }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Every job of the scenario as it is now, by name. */
async function current(records: JobRecords, jobs: Record<string, { id: string }>, marks: Marks) {
  const rows = await Promise.all(Object.values(jobs).map((j) => records.get(j.id)));
  return Object.fromEntries(Object.keys(jobs).map((name, i) => [name, state(rows[i], marks)]));
}

/** Puts a row in a state the scenario needs (what another worker or the sweeper would have done). */
function setRow(jobId: string, values: Updateable<JobsTable>) {
  return t.services.store.db.updateTable('jobs').set(values).where('id', '=', jobId).execute();
}

/** Runs one scenario through `records` and answers the states it went through. */
async function scenario(records: JobRecords, accountId: string) {
  const marks = marksFrom(Date.now());
  const ok = newJob(accountId, marks);
  const bad = newJob(accountId, marks);
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
    accepted: accepted.map((r) => state(r, marks)),
    claimed: claimed.map((r) => state(r, marks)).sort((a, b) => a.status.localeCompare(b.status)),
    claimedCount: claimed.length,
    again: again.length,
    foreign: foreign.length,
    ended: ended
      .map((e) => ({ kind: e.kind, status: e.status, webhook_url: e.webhook_url }))
      .sort((a, b) => a.status.localeCompare(b.status)),
    final: final.map((r) => state(r, marks)),
  };
}

/** Accepting: rows with and without `held`, with a webhook and dedupe key, and inside a transaction. */
async function insertScenario(records: JobRecords, accountId: string) {
  const marks = marksFrom(Date.now());
  // A live job's dedupe key is unique per account and kind: each run has its own.
  const dedupeKey = `same-input-${randomBase62(8)}`;
  const { held: _omitted, ...noHeld } = newJob(accountId, marks);
  const jobs = {
    plain: newJob(accountId, marks),
    noHeld,
    holding: newJob(accountId, marks, {
      held: 4,
      max_attempts: 5,
      webhook_url: 'https://example.com/hook?a=1&b=ü',
      dedupe_key: dedupeKey,
      run_at: marks.later!,
    }),
    inTransaction: newJob(accountId, marks, { held: 1 }),
  };
  await records.insertMany([jobs.plain, jobs.noHeld, jobs.holding]);
  await t.services.store.db.transaction().execute((tx) => records.insertMany([jobs.inTransaction], tx));
  const accepted = await current(records, jobs, marks);
  if (accepted.holding!.dedupe_key === dedupeKey) accepted.holding!.dedupe_key = "this run's key";
  return { accepted };
}

/** Claiming by id: what is taken, what each guard refuses, and the start time each claim records. */
async function claimScenario(records: JobRecords, accountId: string) {
  const marks = marksFrom(Date.now());
  const jobs = {
    due: newJob(accountId, marks),
    twice: newJob(accountId, marks),
    unstarted: newJob(accountId, marks),
    notDue: newJob(accountId, marks, { run_at: marks.later! }),
    spent: newJob(accountId, marks),
    lapsed: newJob(accountId, marks),
    held: newJob(accountId, marks),
    ended: newJob(accountId, marks),
  };
  await records.insertMany(Object.values(jobs));
  await setRow(jobs.spent.id, { attempts: 3, error: 'failed three times', run_at: marks.past! });
  // A dead worker's job: its lease ran out, its first attempt's start stays.
  await setRow(jobs.lapsed.id, {
    status: 'active',
    attempts: 1,
    locked_by: 'worker-dead',
    locked_until: marks.past!,
    started_at: marks.old!,
  });
  await setRow(jobs.ended.id, {
    status: 'completed',
    attempts: 1,
    started_at: marks.old!,
    completed_at: marks.past!,
  });
  const heldByB = await records.claimManyById([{ id: jobs.held.id }], 'worker-b', LEASE_MS);
  const claimed = await records.claimManyById(
    [
      { id: jobs.due.id, startedAt: marks.began! },
      { id: jobs.twice.id, startedAt: marks.began! },
      { id: jobs.twice.id, startedAt: marks.old! }, // the first claim of an id wins
      { id: jobs.unstarted.id },
      { id: jobs.notDue.id },
      { id: jobs.spent.id },
      { id: jobs.lapsed.id, startedAt: marks.began! },
      { id: jobs.held.id },
      { id: jobs.ended.id },
      { id: newId('job') },
    ],
    'worker-a',
    LEASE_MS,
  );
  return {
    heldByB: byName(heldByB, jobs).map((r) => r.name),
    claimed: byName(claimed, jobs).map((r) => ({ name: r.name, state: state(r.row, marks) })),
    now: await current(records, jobs, marks),
  };
}

/** Ending: jobs held under a lease and fresh jobs held as queued, with every guard refusing once. */
async function finishScenario(records: JobRecords, accountId: string) {
  const marks = marksFrom(Date.now());
  const jobs = {
    done: newJob(accountId, marks, { webhook_url: 'https://example.com/done' }),
    broke: newJob(accountId, marks),
    requeued: newJob(accountId, marks),
    endedLocked: newJob(accountId, marks),
    fresh: newJob(accountId, marks),
    freshRetried: newJob(accountId, marks),
    freshTaken: newJob(accountId, marks),
    freshLocked: newJob(accountId, marks),
    freshEnded: newJob(accountId, marks),
  };
  await records.insertMany(Object.values(jobs));
  // A fresh job as its worker holds it: the accepted row, its attempt's start set (see attempt.ts).
  const asAccepted = async (id: string) => ({ ...(await records.get(id))!, started_at: marks.began! });
  const freshHeld = {
    fresh: await asAccepted(jobs.fresh.id),
    freshRetried: await asAccepted(jobs.freshRetried.id),
    freshTaken: await asAccepted(jobs.freshTaken.id),
    freshLocked: await asAccepted(jobs.freshLocked.id),
    freshEnded: await asAccepted(jobs.freshEnded.id),
  };
  const leased = await records.claimManyById(
    [{ id: jobs.done.id }, { id: jobs.broke.id }, { id: jobs.requeued.id }, { id: jobs.endedLocked.id }],
    'worker-a',
    LEASE_MS,
  );
  const held = Object.fromEntries(byName(leased, jobs).map((r) => [r.name, r.row]));
  // Meanwhile: the sweeper put one back in the queue; one ended with this worker's lock left on it;
  // another worker ran a fresh one once and it waits for a retry; another holds one; one carries a
  // lock without being active; one was failed at the attempt count its worker holds. (The odd
  // states are there for the guards that only they reach.)
  await records.requeue(held.requeued!, 'worker-a', marks.later!, 'lease lost');
  await setRow(jobs.endedLocked.id, {
    status: 'failed',
    error: 'ended elsewhere',
    completed_at: marks.past!,
  });
  await setRow(jobs.freshRetried.id, { attempts: 1, error: 'first attempt failed' });
  await records.claimManyById([{ id: jobs.freshTaken.id }], 'worker-b', LEASE_MS);
  await setRow(jobs.freshLocked.id, { locked_by: 'worker-odd' });
  const unheld = (await records.get(jobs.freshEnded.id))!;
  await records.failUnheld(t.services.store.db, unheld, 'gave up', 'timeout', TTL_MS);

  const completed = {
    status: 'completed' as const,
    result: { text: 'ünïcode "quoted"\n', n: [1, 2] },
    cost: 3,
  };
  const failed = { status: 'failed' as const, error: 'it broke', errorCode: 'upstream_error', cost: 0 };
  const foreign = await records.finishMany([{ job: held.done!, outcome: completed }], 'worker-b', TTL_MS);
  const batch: FinishItem[] = [
    { job: held.done!, outcome: completed },
    { job: held.broke!, outcome: failed },
    { job: held.requeued!, outcome: completed },
    { job: held.endedLocked!, outcome: completed },
    { job: freshHeld.fresh, outcome: { status: 'completed', cost: 1 } },
    { job: freshHeld.freshRetried, outcome: completed },
    { job: freshHeld.freshTaken, outcome: failed },
    { job: freshHeld.freshLocked, outcome: completed },
    { job: freshHeld.freshEnded, outcome: completed },
  ];
  const ended = await records.finishMany(batch, 'worker-a', TTL_MS);
  const again = await records.finishMany([{ job: held.done!, outcome: failed }], 'worker-a', TTL_MS);
  const named = (rows: { id: string; kind: string; status: string; webhook_url: string | null }[]) =>
    byName(rows, jobs).map(({ name, row }) => ({
      name,
      kind: row.kind,
      status: row.status,
      hook: row.webhook_url,
    }));
  return {
    foreign: named(foreign),
    ended: named(ended),
    again: named(again),
    final: await current(records, jobs, marks),
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

  it('insert: the same accepted rows, held or not, through the pool or inside a transaction', async () => {
    const { accountId } = await t.register();
    const viaRaw = await insertScenario(raw, accountId);
    const viaTwin = await insertScenario(twin, accountId);
    const { accepted } = viaRaw;
    expect(Object.values(accepted).map((s) => [s.status, s.attempts, s.held])).toEqual([
      ['queued', 0, 0],
      ['queued', 0, 0],
      ['queued', 0, 4],
      ['queued', 0, 1],
    ]);
    expect(accepted.holding).toMatchObject({
      max_attempts: 5,
      webhook_url: 'https://example.com/hook?a=1&b=ü',
      dedupe_key: "this run's key",
      run_at: 'later',
    });
    expect(JSON.parse(accepted.plain!.input)).toEqual({ n: 1, text: 'naïve "quoted" \\ line\nbreak' });
    expect(viaRaw).toEqual(viaTwin);
  });

  it('claim by id: the same jobs taken and refused, the same start times kept', async () => {
    const { accountId } = await t.register();
    const viaRaw = await claimScenario(raw, accountId);
    const viaTwin = await claimScenario(twin, accountId);
    expect(viaRaw.heldByB).toEqual(['held']);
    expect(viaRaw.claimed.map((c) => c.name)).toEqual(['due', 'lapsed', 'twice', 'unstarted']);
    expect(viaRaw.now).toMatchObject({
      due: {
        status: 'active',
        attempts: 1,
        locked_by: 'worker-a',
        started_at: 'began',
        locked_until: 'live lease',
      },
      twice: { status: 'active', attempts: 1, started_at: 'began' },
      unstarted: { status: 'active', attempts: 1, started_at: 'clock' },
      lapsed: { status: 'active', attempts: 2, locked_by: 'worker-a', started_at: 'old' },
      notDue: { status: 'queued', attempts: 0, locked_by: null },
      spent: { status: 'queued', attempts: 3, locked_by: null },
      held: { status: 'active', attempts: 1, locked_by: 'worker-b' },
      ended: { status: 'completed', attempts: 1, locked_by: null },
    });
    expect(viaRaw).toEqual(viaTwin);
  });

  it('finish: the same jobs ended and left alone, under a lease or fresh from the queue', async () => {
    const { accountId } = await t.register();
    const viaRaw = await finishScenario(raw, accountId);
    const viaTwin = await finishScenario(twin, accountId);
    expect(viaRaw.foreign).toEqual([]);
    expect(viaRaw.again).toEqual([]);
    expect(viaRaw.ended).toEqual([
      { name: 'broke', kind: 'twin', status: 'failed', hook: null },
      { name: 'done', kind: 'twin', status: 'completed', hook: 'https://example.com/done' },
      { name: 'fresh', kind: 'twin', status: 'completed', hook: null },
    ]);
    const { final } = viaRaw;
    expect(final.done).toMatchObject({ status: 'completed', cost: 3, attempts: 1, locked_by: null });
    expect(JSON.parse(final.done!.result!)).toEqual({ text: 'ünïcode "quoted"\n', n: [1, 2] });
    expect(final.done).toMatchObject({
      duration_ms: 'completed - started',
      result_expires_at: 'completed + ttl',
    });
    expect(final.broke).toMatchObject({
      status: 'failed',
      result: null,
      error: 'it broke',
      error_code: 'upstream_error',
    });
    expect(final.fresh).toMatchObject({
      status: 'completed',
      attempts: 1,
      started_at: 'began',
      result: null,
    });
    expect(final.requeued).toMatchObject({ status: 'queued', run_at: 'later', error: 'lease lost' });
    expect(final.endedLocked).toMatchObject({
      status: 'failed',
      error: 'ended elsewhere',
      locked_by: 'worker-a',
    });
    expect(final.freshRetried).toMatchObject({ status: 'queued', attempts: 1, completed_at: null });
    expect(final.freshTaken).toMatchObject({ status: 'active', locked_by: 'worker-b' });
    expect(final.freshLocked).toMatchObject({ status: 'queued', attempts: 0, locked_by: 'worker-odd' });
    expect(final.freshEnded).toMatchObject({ status: 'failed', attempts: 0, error: 'gave up', cost: 0 });
    expect(viaRaw).toEqual(viaTwin);
  });
});
