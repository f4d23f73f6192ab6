// Cancelling jobs (POST /v1/jobs/{jobId}/cancel, DELETE /v1/jobs/{jobId}) on the queue this run
// uses (embedded, or BullMQ with REDIS_URL) and its database: a queued job ends at once and costs
// nothing; a running one stops within a second or two (told in-process, or found in the database by
// its worker when another API process took the request); a crawl keeps and bills the pages it
// stored; the rest of every hold is released; the webhook says job.cancelled; an ended job is a 409.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createSiblingApp, createTestApp, type TestApp } from '../support/app.js';
import { killAllJobProcesses, startJobProcess } from '../support/job-processes.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { quietLogger } from '../support/quiet-logger.js';
import { registerTestKinds, testJobRoutes } from '../support/test-kinds.js';
import { waitForJob } from '../support/wait-for-job.js';

const queue = process.env.REDIS_URL ? 'BullMQ' : 'embedded';

let t: TestApp;
let sibling: TestApp;
let processing: JobProcessing;
let site: Loopback;
let hooks: Loopback;
const delivered: Array<{ path: string; body: string }> = [];

const PAGE_DELAY_MS = 150;

beforeAll(async () => {
  // A slow site: every page takes PAGE_DELAY_MS and links to 100 more.
  site = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt') return res.writeHead(404).end();
    const links = Array.from({ length: 100 }, (_, i) => `<a href="${path.replace(/\/$/, '')}/${i}">${i}</a>`);
    setTimeout(() => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><head><title>${path}</title></head><body><p>Page ${path}</p>${links.join(' ')}</body></html>`,
        );
    }, PAGE_DELAY_MS);
  });
  hooks = await startServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      delivered.push({ path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  t = await createTestApp(
    {
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_JOB_BACKOFF_MS: '50',
      UNFURL_JOB_POLL_MS: '50',
      UNFURL_JOB_SWEEP_MS: '200',
      UNFURL_JOB_LEASE_MS: '2000',
      UNFURL_CRAWL_CONCURRENCY: '2',
      UNFURL_CRAWL_HOST_CONCURRENCY: '2',
    },
    { extraRoutes: testJobRoutes },
  );
  registerTestKinds(t.services.jobs.registry);
  processing = await startJobProcessing(t.services, quietLogger);
  // A second API process on the same database and queue, running no jobs.
  sibling = await createSiblingApp(t);
});

afterAll(async () => {
  await sibling?.close();
  await processing?.stop();
  await t?.close();
  await site?.close();
  await hooks?.close();
});

const submit = (key: string, kind: string, payload: object) =>
  t.call(key, { method: 'POST', url: `/v1/test/jobs/${kind}`, payload });

const cancel = (app: TestApp, key: string, jobId: string, method: 'POST' | 'DELETE' = 'POST') =>
  app.call(key, {
    method,
    url: method === 'POST' ? `/v1/jobs/${jobId}/cancel` : `/v1/jobs/${jobId}`,
  });

const credits = async (key: string) =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;

/** The ledger entries of one job, as [type, amount] sorted. */
async function entriesOf(key: string, jobId: string) {
  const usage = (await t.call(key, { method: 'GET', url: '/v1/account/usage?limit=100' })).json();
  return usage.transactions
    .filter((x: { job_id: string }) => x.job_id === jobId)
    .map((x: { type: string; amount: number }) => [x.type, x.amount])
    .sort();
}

async function webhookOf(path: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = delivered.find((d) => d.path === path);
    if (hit) return JSON.parse(hit.body);
    if (Date.now() > deadline) throw new Error(`no webhook at ${path}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls GET /v1/jobs/{id} until the job runs (status active). */
async function untilActive(key: string, jobId: string) {
  return waitForJob(t, key, `/v1/jobs/${jobId}`, { statuses: ['active'], timeoutMs: 15_000 });
}

describe(`cancelling jobs (${queue} queue)`, () => {
  it('a queued OCR job cancelled before it starts ends at once, costs nothing, and never runs', async () => {
    // An API process with no worker anywhere: the job stays queued until one starts.
    const idle = await createTestApp({ UNFURL_JOB_POLL_MS: '50' });
    try {
      const { apiKey } = await idle.register();
      const res = await idle.call(apiKey, {
        method: 'POST',
        url: '/v1/video/ocr',
        payload: { url: 'https://example.org/clip.mp4', webhookUrl: 'https://example.org/hook' },
      });
      expect(res.statusCode).toBe(202);
      const held = Number(res.headers['x-credits-held']);
      expect(held).toBeGreaterThan(0);
      const { jobId } = res.json();
      const stopped = await cancel(idle, apiKey, jobId);
      expect(stopped.statusCode, stopped.body).toBe(200);
      expect(stopped.json()).toMatchObject({ id: jobId, queue: 'ocr', status: 'cancelled', credits: 0 });
      const poll = (await idle.call(apiKey, { method: 'GET', url: `/v1/video/ocr/${jobId}` })).json();
      expect(poll.status).toBe('cancelled');
      expect((await idle.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
      const usage = (await idle.call(apiKey, { method: 'GET', url: '/v1/account/usage?limit=100' })).json();
      expect(
        usage.transactions
          .filter((x: { job_id: string }) => x.job_id === jobId)
          .map((x: { type: string; amount: number }) => [x.type, x.amount])
          .sort(),
      ).toEqual([
        ['hold', -held],
        ['release', held],
      ]);
      // Its webhook is in the outbox as job.cancelled.
      const outbox = await idle.services.store.db
        .selectFrom('webhook_deliveries')
        .select(['event_type', 'payload'])
        .where('job_id', '=', jobId)
        .execute();
      expect(outbox.map((d) => d.event_type)).toEqual(['job.cancelled']);
      expect(JSON.parse(outbox[0]!.payload).data).toMatchObject({ jobId, status: 'cancelled' });
      // A worker that starts now finds nothing to run.
      const late = await startJobProcessing(idle.services, quietLogger);
      try {
        await new Promise((r) => setTimeout(r, 500));
        const job = (await idle.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` })).json();
        expect(job).toMatchObject({ status: 'cancelled', attempts: 0, credits: 0 });
      } finally {
        await late.stop();
      }
      // The cancelled filter lists it.
      const list = (await idle.call(apiKey, { method: 'GET', url: '/v1/jobs?status=cancelled' })).json();
      expect(list.jobs.map((j: { id: string }) => j.id)).toEqual([jobId]);
    } finally {
      await idle.close();
    }
  });

  it('a running job stops within two seconds, costs nothing, and its webhook says job.cancelled', async () => {
    const { apiKey } = await t.register();
    const res = await submit(apiKey, 'echo', {
      value: 'long',
      sleepMs: 30_000,
      estimate: 10,
      cost: 10,
      webhookUrl: `${hooks.url}/running`,
    });
    expect(res.statusCode).toBe(202);
    const { jobId } = res.json();
    await untilActive(apiKey, jobId);
    const asked = Date.now();
    const stopped = await cancel(t, apiKey, jobId);
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(Date.now() - asked).toBeLessThan(2000);
    expect(stopped.json()).toMatchObject({ id: jobId, status: 'cancelled', credits: 0, error: null });
    expect(await credits(apiKey)).toBe(100);
    expect(await entriesOf(apiKey, jobId)).toEqual([
      ['hold', -10],
      ['release', 10],
    ]);
    const hook = await webhookOf('/running');
    expect(hook).toMatchObject({ type: 'job.cancelled', data: { jobId, status: 'cancelled' } });
  });

  it('a cancel taken by another API process reaches the worker through the database', async () => {
    const { apiKey } = await t.register();
    const { jobId } = (
      await submit(apiKey, 'echo', { value: 'elsewhere', sleepMs: 30_000, estimate: 3 })
    ).json();
    await untilActive(apiKey, jobId);
    const asked = Date.now();
    const stopped = await cancel(sibling, apiKey, jobId, 'DELETE');
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(Date.now() - asked).toBeLessThan(2000);
    expect(stopped.json()).toMatchObject({ status: 'cancelled', credits: 0 });
    expect(await credits(apiKey)).toBe(100);
  });

  it('a job run by a separate `unfurl worker` process stops when an API process cancels it', async () => {
    // An API process that runs no jobs, and the production worker entry point beside it.
    const apiOnly = await createTestApp(
      { UNFURL_JOB_POLL_MS: '50', UNFURL_JOB_LEASE_MS: '2000' },
      { extraRoutes: testJobRoutes },
    );
    registerTestKinds(apiOnly.services.jobs.registry);
    try {
      await startJobProcess('worker', apiOnly.env.env);
      const { apiKey } = await apiOnly.register();
      const res = await apiOnly.call(apiKey, {
        method: 'POST',
        url: '/v1/test/jobs/echo',
        payload: { value: 'far', sleepMs: 30_000, estimate: 6, cost: 6 },
      });
      const { jobId } = res.json();
      await waitForJob(apiOnly, apiKey, `/v1/jobs/${jobId}`, { statuses: ['active'], timeoutMs: 30_000 });
      const asked = Date.now();
      const stopped = await cancel(apiOnly, apiKey, jobId);
      expect(stopped.statusCode, stopped.body).toBe(200);
      expect(Date.now() - asked).toBeLessThan(2000);
      expect(stopped.json()).toMatchObject({ status: 'cancelled', credits: 0 });
      expect((await apiOnly.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
    } finally {
      await killAllJobProcesses();
      await apiOnly.close();
    }
  }, 120_000);

  it('a crawl cancelled mid-way keeps the pages it stored, is billed for them only, and releases the rest', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/web/crawl',
      payload: { url: `${site.url}/docs`, limit: 40, webhookUrl: `${hooks.url}/crawl` },
    });
    expect(res.statusCode).toBe(202);
    const { jobId } = res.json();
    // Progress moves page by page: wait until a few pages are stored (fewer than a batch of 20).
    const seen: number[] = [];
    const deadline = Date.now() + 15_000;
    for (;;) {
      const poll = (await t.call(apiKey, { method: 'GET', url: `/v1/web/crawl/${jobId}` })).json();
      expect(poll.status).toBe('scraping');
      if (seen.at(-1) !== poll.total) seen.push(poll.total);
      if (poll.total >= 3) break;
      if (Date.now() > deadline) throw new Error(`crawl still at ${poll.total} pages`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen.filter((n) => n > 0 && n < 3).length, `counts seen: ${seen}`).toBeGreaterThan(0);
    const asked = Date.now();
    const stopped = await cancel(t, apiKey, jobId);
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(Date.now() - asked).toBeLessThan(2000);
    const summary = stopped.json();
    expect(summary.status).toBe('cancelled');
    expect(summary.result).toMatchObject({ stoppedBy: 'cancel' });
    const pages = summary.result.pagesScraped as number;
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(pages).toBeLessThan(40);
    expect(summary.credits).toBe(1 + pages);
    // Every page it counted is there to read, and no page comes after the cancel.
    const poll = (await t.call(apiKey, { method: 'GET', url: `/v1/web/crawl/${jobId}` })).json();
    expect(poll).toMatchObject({ status: 'cancelled', total: pages });
    expect(poll.pages).toHaveLength(pages);
    await new Promise((r) => setTimeout(r, 2 * PAGE_DELAY_MS));
    expect((await t.call(apiKey, { method: 'GET', url: `/v1/web/crawl/${jobId}` })).json().total).toBe(pages);
    expect(await credits(apiKey)).toBe(100 - (1 + pages));
    expect(await entriesOf(apiKey, jobId)).toEqual([
      ['hold', -41],
      ['release', 41],
      ['settled', -(1 + pages)],
    ]);
    const hook = await webhookOf('/crawl');
    expect(hook).toMatchObject({ type: 'job.cancelled', data: { jobId, status: 'cancelled', total: pages } });
  });

  it('an ended job is a 409, an unknown or foreign one a 404; the list filters cancelled jobs', async () => {
    const { apiKey } = await t.register();
    const other = await t.register();
    const done = (await submit(apiKey, 'echo', { value: 'done', estimate: 2, cost: 2 })).json().jobId;
    const failed = (await submit(apiKey, 'echo', { value: 'bad', permanent: true, estimate: 2 })).json()
      .jobId;
    for (const id of [done, failed]) await waitForJob(t, apiKey, `/v1/jobs/${id}`, { timeoutMs: 15_000 });
    const running = (await submit(apiKey, 'echo', { value: 'x', sleepMs: 30_000 })).json().jobId;
    await untilActive(apiKey, running);
    expect((await cancel(t, other.apiKey, running)).statusCode).toBe(404);
    expect((await cancel(t, apiKey, 'job_doesnotexist')).statusCode).toBe(404);
    expect((await cancel(t, apiKey, running, 'DELETE')).json().status).toBe('cancelled');
    for (const [id, status] of [
      [done, 'completed'],
      [failed, 'failed'],
      [running, 'cancelled'],
    ] as const) {
      const res = await cancel(t, apiKey, id);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ error: 'conflict', details: `status=${status}` });
      expect(res.json().message).toContain('only a queued or active job can be cancelled');
    }
    const job = (await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${done}` })).json();
    expect(job).toMatchObject({ status: 'completed', credits: 2 });
    const list = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs?status=cancelled' })).json();
    expect(list.jobs.map((j: { id: string }) => j.id)).toEqual([running]);
    const bad = await t.call(apiKey, { method: 'GET', url: '/v1/jobs?status=stopped' });
    expect(bad.statusCode).toBe(400);
  });

  it('a cancel racing the job’s own end leaves one final state, billed once', async () => {
    const { apiKey, accountId } = await t.register();
    await t.services.ledger.grant(accountId, 1000, 'room for many jobs');
    // Jobs of 100 ms (four run at once), some holding credits, some run straight from their queue
    // message (nothing held, no webhook), each cancelled 0 to 440 ms after it was accepted: before it
    // starts, while it runs, about when it ends, and after.
    const jobs = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const estimate = i % 2 === 0 ? 5 : 0;
        const res = await submit(apiKey, 'echo', { value: `r${i}`, sleepMs: 100, estimate, cost: estimate });
        const jobId = res.json().jobId as string;
        await new Promise((r) => setTimeout(r, i * 40));
        return { jobId, estimate, answer: await cancel(t, apiKey, jobId) };
      }),
    );
    const answers = jobs.map((j) => j.answer);
    let charged = 0;
    for (const { jobId, estimate, answer } of jobs) {
      const job = await waitForJob(t, apiKey, `/v1/jobs/${jobId}`, {
        statuses: ['completed', 'cancelled', 'failed'],
        timeoutMs: 15_000,
      });
      // The answer says what happened: cancelled (200), or it had ended on its own (409).
      if (answer.statusCode === 200) expect(job.status).toBe('cancelled');
      else {
        expect(answer.statusCode, answer.body).toBe(409);
        expect(job.status).toBe('completed');
      }
      const entries = await entriesOf(apiKey, jobId);
      if (estimate > 0) {
        expect(entries.filter((e: [string, number]) => e[0] === 'hold')).toEqual([['hold', -estimate]]);
        expect(entries.filter((e: [string, number]) => e[0] === 'release')).toEqual([['release', estimate]]);
        expect(entries.filter((e: [string, number]) => e[0] === 'settled').length).toBeLessThanOrEqual(1);
      } else {
        expect(entries).toEqual([]);
      }
      charged += job.credits;
    }
    // Both outcomes happened: the race was run.
    expect(answers.some((a) => a.statusCode === 200)).toBe(true);
    expect(answers.some((a) => a.statusCode === 409)).toBe(true);
    expect(await credits(apiKey)).toBe(1100 - charged);
  });
});
