// Events recorded in one millisecond (a check's new videos, a pause and a resume) are listed in the
// order they happened, newest first, and a user's pause and resume in one millisecond are both kept.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp({
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
  });
  ({ apiKey: key } = await t.register());
});
afterAll(() => t.close());

it('keeps the order of events recorded in the same millisecond', async () => {
  const created = await t.call(key, {
    method: 'POST',
    url: '/v1/monitors',
    payload: { kind: 'page', target: 'https://example.com/', every: '1h' },
  });
  expect(created.statusCode, created.body).toBe(201);
  const monitor = (await t.services.monitors.records.get(created.json().id))!;
  const { db } = t.services.monitors.records;
  const now = Date.now();
  const names = Array.from({ length: 30 }, (_, i) => `v${String(i).padStart(2, '0')}`);
  await db.transaction().execute((tx) =>
    t.services.monitors.records.addEvents(
      tx,
      monitor,
      names.map((n) => ({ type: 'video.new', dedupeKey: `video:${n}`, data: { videoId: n } })),
      now,
    ),
  );
  // A second write in the same millisecond comes after the first.
  await db
    .transaction()
    .execute((tx) =>
      t.services.monitors.records.addEvents(
        tx,
        monitor,
        [{ type: 'check.failed', dedupeKey: 'x', data: {} }],
        now,
      ),
    );
  const res = await t.call(key, { method: 'GET', url: `/v1/monitors/${monitor.id}/events?limit=100` });
  const events = res.json().events as Array<{ type: string; data: { videoId?: string } }>;
  expect(events.map((e) => e.data.videoId ?? e.type)).toEqual(['check.failed', ...[...names].reverse()]);
});

it('keeps a pause and a resume made in the same millisecond, newest first', async () => {
  const created = await t.call(key, {
    method: 'POST',
    url: '/v1/monitors',
    payload: { kind: 'page', target: 'https://example.com/a', every: '1h' },
  });
  const id = created.json().id;
  for (let i = 0; i < 5; i++) {
    await t.call(key, { method: 'PATCH', url: `/v1/monitors/${id}`, payload: { paused: true } });
    await t.call(key, { method: 'PATCH', url: `/v1/monitors/${id}`, payload: { paused: false } });
  }
  const res = await t.call(key, { method: 'GET', url: `/v1/monitors/${id}/events?limit=100` });
  const types = (res.json().events as Array<{ type: string }>).map((e) => e.type);
  expect(types).toEqual(Array.from({ length: 5 }, () => ['monitor.resumed', 'monitor.paused']).flat());
});
