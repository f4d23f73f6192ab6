import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { quietLogger } from '../support/quiet-logger.js';
import { registerTestKinds, standInKinds, testJobRoutes } from '../support/test-kinds.js';
import { waitForJob } from '../support/wait-for-job.js';

let t: TestApp;
let processing: JobProcessing;

beforeAll(async () => {
  t = await createTestApp(
    {
      UNFURL_JOB_BACKOFF_MS: '50',
      UNFURL_JOB_POLL_MS: '50',
      UNFURL_JOB_SWEEP_MS: '200',
      UNFURL_JOB_LEASE_MS: '2000',
    },
    { extraRoutes: testJobRoutes },
  );
  registerTestKinds(t.services.jobs.registry);
  processing = await startJobProcessing(t.services, quietLogger);
});
afterAll(async () => {
  await processing?.stop();
  await t?.close();
});

const waitFor = (key: string, jobId: string) =>
  waitForJob(t, key, `/v1/jobs/${jobId}`, { timeoutMs: 15_000 });

const submit = (key: string, kind: string, payload: object, headers: Record<string, string> = {}) =>
  t.call(key, { method: 'POST', url: `/v1/test/jobs/${kind}`, payload, headers });

describe(`job lifecycle (${process.env.REDIS_URL ? 'BullMQ' : 'embedded'} queue)`, () => {
  it('runs a job to completed, holds then settles the real cost', async () => {
    const { apiKey } = await t.register();
    const res = await submit(apiKey, 'echo', { value: 'hi', estimate: 10, cost: 4 });
    expect(res.statusCode).toBe(202);
    const { jobId } = res.json();
    expect(jobId).toMatch(/^job_/);
    expect(res.headers['x-credits-held']).toBe('10');
    expect(res.headers['x-credits-remaining']).toBe('90');
    const job = await waitFor(apiKey, jobId);
    expect(job).toMatchObject({ id: jobId, queue: 'echo', status: 'completed', attempts: 1, credits: 4 });
    expect(job.result.value).toBe('hi');
    expect(job.durationMs).toBeGreaterThanOrEqual(0);
    const account = await t.call(apiKey, { method: 'GET', url: '/v1/account' });
    expect(account.json().credits).toBe(96);
    const usage = (await t.call(apiKey, { method: 'GET', url: '/v1/account/usage?limit=100' })).json();
    const forJob = usage.transactions.filter((x: { job_id: string }) => x.job_id === jobId);
    expect(forJob.map((x: { type: string; amount: number }) => [x.type, x.amount]).sort()).toEqual([
      ['hold', -10],
      ['release', 10],
      ['settled', -4],
    ]);
  });

  it('402 when the balance cannot cover the hold, and nothing is recorded', async () => {
    const { apiKey } = await t.register();
    const res = await submit(apiKey, 'echo', { value: 'big', estimate: 101 });
    expect(res.statusCode).toBe(402);
    expect(res.json().error).toBe('insufficient_credits');
    const list = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json();
    expect(list.total).toBe(0);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
  });

  it('retries retryable failures with backoff, then completes', async () => {
    const { apiKey } = await t.register();
    const { jobId } = (
      await submit(apiKey, 'echo', { value: 'flaky', failTimes: 2, estimate: 3, cost: 3 })
    ).json();
    const job = await waitFor(apiKey, jobId);
    expect(job).toMatchObject({ status: 'completed', attempts: 3, maxAttempts: 3, credits: 3 });
    expect(job.result.attempt).toBe(3);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(97);
  });

  it('fails after maxAttempts retryable failures and costs nothing', async () => {
    const { apiKey } = await t.register();
    const { jobId } = (
      await submit(apiKey, 'echo', { value: 'down', failTimes: 5, estimate: 7, cost: 7 })
    ).json();
    const job = await waitFor(apiKey, jobId);
    expect(job).toMatchObject({ status: 'failed', attempts: 3, credits: 0 });
    expect(job.error).toContain('upstream hiccup');
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
  });

  it('fails a permanent failure at once, with a clear error, costing nothing', async () => {
    const { apiKey } = await t.register();
    const { jobId } = (await submit(apiKey, 'echo', { value: 'gone', permanent: true, estimate: 5 })).json();
    const job = await waitFor(apiKey, jobId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, error: 'permanent failure for gone' });
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
  });

  it('takes a second hold when the job learns its size; fails cleanly if it cannot be covered', async () => {
    const { apiKey } = await t.register();
    const ok = (await submit(apiKey, 'echo', { value: 'grow', estimate: 5, holdMore: 10, cost: 12 })).json();
    expect(await waitFor(apiKey, ok.jobId)).toMatchObject({ status: 'completed', credits: 12 });
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(88);
    const tooBig = (
      await submit(apiKey, 'echo', { value: 'huge', estimate: 5, holdMore: 500, cost: 12 })
    ).json();
    const failed = await waitFor(apiKey, tooBig.jobId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, credits: 0 });
    expect(failed.error).toMatch(/credits/);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(88);
  });

  it('lists jobs with status filter, limit, offset and total', async () => {
    const { apiKey } = await t.register();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await submit(apiKey, 'echo', { value: `n${i}` })).json().jobId);
    const failing = (await submit(apiKey, 'echo', { value: 'x', permanent: true })).json().jobId;
    for (const id of [...ids, failing]) await waitFor(apiKey, id);
    const all = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs?limit=2&offset=1' })).json();
    expect(all).toMatchObject({ limit: 2, offset: 1, total: 4 });
    expect(all.jobs).toHaveLength(2);
    expect(Object.keys(all.jobs[0])).toEqual(
      expect.arrayContaining(['id', 'queue', 'status', 'createdAt', 'completedAt', 'durationMs', 'error']),
    );
    const failed = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs?status=failed' })).json();
    expect(failed.total).toBe(1);
    expect(failed.jobs[0].id).toBe(failing);
    const bad = await t.call(apiKey, { method: 'GET', url: '/v1/jobs?status=done' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toBe('status');
  });

  it('keeps accounts apart: another account’s job is a 404 everywhere', async () => {
    const a = await t.register();
    const b = await t.register();
    // (Each kind's own poll route is checked the same way in its tests, e.g. test/media/ocr/api.test.ts.)
    const { jobId } = (await submit(a.apiKey, 'echo', { value: 'mine' })).json();
    await waitFor(a.apiKey, jobId);
    for (const url of [`/v1/jobs/${jobId}`]) {
      const res = await t.call(b.apiKey, { method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toBe('not_found');
    }
    expect((await t.call(b.apiKey, { method: 'GET', url: '/v1/jobs' })).json().total).toBe(0);
  });
});

describe('poll routes', () => {
  it('serve each kind from one piece of code; a job of another kind is a 404', async () => {
    const { apiKey } = await t.register();
    const get = (url: string) => t.call(apiKey, { method: 'GET', url });
    // What each poll route shows of an echo result. Kinds a capability registered for real are
    // tested with it instead (test/media/{asr,describe,extract}, the OCR tests, crawl, batches).
    const views: Record<string, { url: string; shape: object }> = {
      transcript: {
        url: '/v1/transcript',
        shape: { status: 'completed', data: { value: 'transcript' }, error: null },
      },
      ocr: {
        url: '/v1/video/ocr',
        shape: {
          status: 'completed',
          attempts: 1,
          maxAttempts: 3,
          text: [{ text: 'ocr', startMs: 0, endMs: 1000 }],
          format: 'json',
        },
      },
      describe: { url: '/v1/video/describe', shape: { data: { value: 'describe' } } },
      extract: {
        url: '/v1/extract',
        shape: { data: { value: 'extract' }, schema: { type: 'object' }, error: null },
      },
    };
    for (const kind of standInKinds(t.services.jobs.registry).filter((k) => k in views)) {
      const jobId = (await submit(apiKey, kind, { value: kind })).json().jobId;
      await waitFor(apiKey, jobId);
      expect((await get(`${views[kind]!.url}/${jobId}`)).json()).toMatchObject(views[kind]!.shape);
    }
    // Wrong kind for the route: an echo job is none of theirs.
    const echo = (await submit(apiKey, 'echo', { value: 'plain' })).json().jobId;
    await waitFor(apiKey, echo);
    for (const { url } of Object.values(views)) expect((await get(`${url}/${echo}`)).statusCode).toBe(404);
    expect((await get(`/v1/jobs/${echo}`)).statusCode).toBe(200);
  });
  // `pending` on the OCR poll while queued: test/media/ocr/api.test.ts, with real OCR jobs.
});

describe('Idempotency-Key', () => {
  it('same key and body → the same job, held once; another body → 409 conflict', async () => {
    const { apiKey } = await t.register();
    const headers = { 'idempotency-key': 'order-42' };
    const first = await submit(apiKey, 'echo', { value: 'once', estimate: 10, cost: 10 }, headers);
    const again = await submit(apiKey, 'echo', { value: 'once', cost: 10, estimate: 10 }, headers);
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.json().jobId).toBe(first.json().jobId);
    const other = await submit(apiKey, 'echo', { value: 'different', estimate: 10 }, headers);
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toBe('conflict');
    await waitFor(apiKey, first.json().jobId);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json().total).toBe(1);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(90);
  });

  it('concurrent requests with one key create one job', async () => {
    const { apiKey } = await t.register();
    const headers = { 'idempotency-key': 'race-1' };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => submit(apiKey, 'echo', { value: 'race', estimate: 2 }, headers)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(202));
    expect(new Set(answers.map((a) => a.json().jobId)).size).toBe(1);
    expect((await t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json().total).toBe(1);
  });

  it('keys are per account, and a bad key is a 400', async () => {
    const a = await t.register();
    const b = await t.register();
    const headers = { 'idempotency-key': 'shared-name' };
    const ja = (await submit(a.apiKey, 'echo', { value: 'v' }, headers)).json().jobId;
    const jb = (await submit(b.apiKey, 'echo', { value: 'v' }, headers)).json().jobId;
    expect(ja).not.toBe(jb);
    const bad = await submit(a.apiKey, 'echo', { value: 'v' }, { 'idempotency-key': 'x'.repeat(256) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toBe('Idempotency-Key');
  });
});

describe('result expiry', () => {
  it('a result is readable until it expires, then 404 while the summary stays listed', async () => {
    const { apiKey } = await t.register();
    const { jobId } = (await submit(apiKey, 'echo', { value: 'soon gone' })).json();
    await waitFor(apiKey, jobId);
    expect((await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).statusCode).toBe(200);
    await t.services.store.db
      .updateTable('jobs')
      .set({ result_expires_at: Date.now() - 1 })
      .where('id', '=', jobId)
      .execute();
    expect((await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).statusCode).toBe(404);
    const listed = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json();
    expect(listed.jobs.map((j: { id: string }) => j.id)).toContain(jobId);
    await processing.runner.sweep();
    const row = await t.services.jobs.records.get(jobId);
    expect(row?.result).toBeNull();
  });
});
