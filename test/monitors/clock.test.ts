// The embedded clock, driven by hand over real SQLite services (no job processing, no timer): a
// monitor whose tick is ten intervals overdue gets ONE tick in a pass, and its next tick is the first
// anchor-aligned one after now; a tick that throws leaves the schedule where it was, so the next pass
// takes the same tick again; a second pass at the same moment ticks nothing. And the service's tick:
// the same tick delivered twice queues one check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONITOR_CHECK_KIND } from '../../src/monitors/check-job.js';
import { EmbeddedClock, type Ticks } from '../../src/monitors/clock.js';
import { createTestApp, type TestApp } from '../support/app.js';

const EVERY_MS = 60_000;

let t: TestApp;
let accountId: string;
let clock: EmbeddedClock;
const warnings: Array<{ obj: object; msg: string }> = [];

beforeAll(async () => {
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    UNFURL_WEBHOOK_RETRY_BASE_MS: '50',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
  });
  ({ accountId } = await t.register());
  // The clock of an embedded deployment, on this app's monitors; its timer is never started.
  clock = new EmbeddedClock(t.services.monitors.records, 60_000, {
    warn: (obj, msg) => warnings.push({ obj, msg }),
    error: (obj, msg) => warnings.push({ obj, msg }),
  });
});

afterAll(async () => {
  await t.close();
});

/** Ticks that are only recorded (for one monitor: others may be due at the same `now`). */
function recording(monitorId: string) {
  const calls: string[] = [];
  const ticks: Ticks = {
    async tick(id, tick) {
      if (id === monitorId) calls.push(tick);
    },
  };
  return { calls, ticks };
}

const checkJobs = (monitorId: string) =>
  t.services.store.db
    .selectFrom('jobs')
    .select(['id', 'status', 'input'])
    .where('kind', '=', MONITOR_CHECK_KIND)
    .where('dedupe_key', '=', `monitor:${monitorId}`)
    .orderBy('created_at')
    .execute();

/** Cancels the monitor's live check (nothing runs them here), so the next tick's check is a new job. */
async function cancelLive(monitorId: string) {
  for (const job of await checkJobs(monitorId)) {
    if (job.status === 'queued' || job.status === 'active')
      await t.services.jobs.service.cancel(accountId, job.id);
  }
}

/** A page monitor ticking every minute, whose schedule was anchored `ago` ms before `now` and is due at `dueAt`. */
async function overdueMonitor(now: number, ago: number, dueAt: number) {
  const row = await t.services.monitors.service.create(accountId, {
    kind: 'page',
    target: 'http://127.0.0.1:9/page',
    every: '1m',
  });
  await cancelLive(row.id);
  const { records } = t.services.monitors;
  await records.update(records.db, row.id, { anchor_at: now - ago, next_check_at: dueAt });
  return row.id;
}

const nextCheckAt = async (id: string) => Number((await t.services.monitors.records.get(id))!.next_check_at);

describe('the embedded clock', () => {
  it('gives a monitor ten intervals overdue one tick, then its first anchor-aligned tick after now', async () => {
    const now = Date.now();
    const anchor = now - 10 * EVERY_MS - 20_000;
    const id = await overdueMonitor(now, 10 * EVERY_MS + 20_000, anchor + EVERY_MS);
    const { calls, ticks } = recording(id);

    expect(await clock.pass(ticks, now)).toBeGreaterThanOrEqual(1);
    expect(calls).toEqual([String(anchor + EVERY_MS)]);
    const next = await nextCheckAt(id);
    expect(next).toBe(anchor + 11 * EVERY_MS);
    expect(next).toBeGreaterThan(now);
    expect(next - now).toBeLessThanOrEqual(EVERY_MS);
    expect((next - anchor) % EVERY_MS).toBe(0);

    // Nothing more is due until then.
    await clock.pass(ticks, now + 1_000);
    await clock.pass(ticks, next - 1);
    expect(calls).toHaveLength(1);
    await clock.pass(ticks, next);
    expect(calls).toEqual([String(anchor + EVERY_MS), String(next)]);
    expect(await nextCheckAt(id)).toBe(next + EVERY_MS);
  });

  it('with the real service, the overdue monitor gets one check for its one tick', async () => {
    const now = Date.now();
    const anchor = now - 10 * EVERY_MS - 5_000;
    const id = await overdueMonitor(now, 10 * EVERY_MS + 5_000, anchor);
    const before = (await checkJobs(id)).length;
    const ticksBefore = Number((await t.services.monitors.records.get(id))!.ticks);

    await clock.pass(t.services.monitors.service, now);
    const jobs = (await checkJobs(id)).slice(before);
    expect(jobs).toHaveLength(1);
    expect(JSON.parse(jobs[0]!.input)).toMatchObject({ monitorId: id, tick: String(anchor) });
    expect(Number((await t.services.monitors.records.get(id))!.ticks)).toBe(ticksBefore + 1);
    expect(await nextCheckAt(id)).toBe(anchor + 11 * EVERY_MS);
    await cancelLive(id);
  });

  it('leaves a tick that throws where it was, and takes it again on the next pass', async () => {
    const now = Date.now();
    const dueAt = now - 3 * EVERY_MS;
    const id = await overdueMonitor(now, 3 * EVERY_MS, dueAt);
    const thrown: string[] = [];
    const failing: Ticks = {
      async tick(monitorId, tick) {
        if (monitorId !== id) return;
        thrown.push(tick);
        throw new Error('the queue is unreachable');
      },
    };
    warnings.length = 0;
    await clock.pass(failing, now);
    expect(thrown).toEqual([String(dueAt)]);
    expect(await nextCheckAt(id)).toBe(dueAt);
    expect(warnings.some((w) => (w.obj as { monitor?: string }).monitor === id)).toBe(true);

    // The next pass takes the same tick (same name: its check is queued once whichever pass wins).
    const { calls, ticks } = recording(id);
    await clock.pass(ticks, now + 100);
    expect(calls).toEqual([String(dueAt)]);
    expect(await nextCheckAt(id)).toBe(dueAt + 4 * EVERY_MS);
  });

  it('ticks once in two passes at the same moment', async () => {
    const now = Date.now();
    const dueAt = now - 1_000;
    const id = await overdueMonitor(now, 1_000, dueAt);
    const { calls, ticks } = recording(id);
    await clock.pass(ticks, now);
    await clock.pass(ticks, now);
    expect(calls).toEqual([String(dueAt)]);
    expect(await nextCheckAt(id)).toBe(dueAt + EVERY_MS);
  });

  it('queues one check when two passes take the same tick at once (real service)', async () => {
    const now = Date.now();
    const dueAt = now - 2_000;
    const id = await overdueMonitor(now, 2_000, dueAt);
    const before = (await checkJobs(id)).length;
    await Promise.all([
      clock.pass(t.services.monitors.service, now),
      clock.pass(t.services.monitors.service, now),
    ]);
    const jobs = (await checkJobs(id)).slice(before);
    expect(jobs).toHaveLength(1);
    expect(JSON.parse(jobs[0]!.input).tick).toBe(String(dueAt));
    expect(await nextCheckAt(id)).toBe(dueAt + EVERY_MS);
    await cancelLive(id);
  });
});

describe('MonitorService.tick', () => {
  it('queues one check for a tick delivered twice, even after the first check ended', async () => {
    const { service } = t.services.monitors;
    const row = await service.create(accountId, {
      kind: 'page',
      target: 'http://127.0.0.1:9/tick',
      every: '1m',
    });
    await cancelLive(row.id);
    const before = (await checkJobs(row.id)).length;

    await service.tick(row.id, '1700000000000');
    let jobs = (await checkJobs(row.id)).slice(before);
    expect(jobs).toHaveLength(1);
    expect(JSON.parse(jobs[0]!.input).tick).toBe('1700000000000');
    // The check ends (here: cancelled), so no live check can absorb the second delivery.
    await cancelLive(row.id);

    await service.tick(row.id, '1700000000000');
    jobs = (await checkJobs(row.id)).slice(before);
    expect(jobs).toHaveLength(1);

    // Another tick is another check.
    await service.tick(row.id, '1700000060000');
    jobs = (await checkJobs(row.id)).slice(before);
    expect(jobs.map((j) => JSON.parse(j.input).tick)).toEqual(['1700000000000', '1700000060000']);
    await cancelLive(row.id);
  });
});
