// Monitors when things go wrong, on the embedded deployment's job processing and clock: a page that
// starts failing (HTTP 500) is retried by the job engine and reported once per failed check as
// `check.failed` — never as a change, never charged — and when it answers again with the same content
// nothing is reported; a 404 is `page.gone`, the next 200 `page.back`. An account that runs out of
// credits pauses its monitor (`monitor.paused`, reason credits) and a grant resumes it. A user's
// pause stops the checks; resuming restarts them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { MONITOR_CHECK_KIND } from '../../src/monitors/check-job.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { disposeEnv } from '../support/job-processes.js';
import { accountWithBalance } from '../support/ledger-state.js';
import { quietLogger } from '../support/quiet-logger.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A page that answers `status`; its content never changes but for a timestamp line (noise). */
class Page {
  status = 200;
  fetches = 0;
  readonly statuses: number[] = [];
  private readonly server = http.createServer((_req, res) => {
    const n = ++this.fetches;
    this.statuses.push(this.status);
    if (this.status !== 200)
      return void res.writeHead(this.status, { 'content-type': 'text/html' }).end('<h1>Oops</h1>');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Acme status</title></head><body>
<main><article>
<h1>Acme status</h1>
<p>Checked ${n} minutes ago, at ${new Date(Date.UTC(2026, 10, 28, 10, n % 60, 0)).toISOString()}</p>
<p>All systems are operational. The API, the dashboard and the webhooks answer within their usual times.</p>
<p>Scheduled maintenance of the database is planned for the first Sunday of next month, at night.</p>
</article></main></body></html>`);
  });
  port = 0;
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  url(path = '/status') {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let t: TestApp;
let processing: JobProcessing;

beforeAll(async () => {
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    UNFURL_WEBHOOK_RETRY_BASE_MS: '50',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
  });
  processing = await startJobProcessing(t.services, quietLogger);
});

afterAll(async () => {
  await t.app.close();
  await processing.stop();
  await t.services.close();
  await disposeEnv(t.env);
});

type Event = { type: string; jobId: string | null; data: Record<string, unknown> };

function client(key: string) {
  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t.call(key, { method, url, ...(payload && { payload }) });
  const monitor = async (id: string) => {
    const res = await api('GET', `/v1/monitors/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  /** Oldest first. */
  const events = async (id: string): Promise<Event[]> => {
    const res = await api('GET', `/v1/monitors/${id}/events?limit=100`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().events as Event[]).reverse();
  };
  const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = await probe();
      if (got !== undefined) return got;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  };
  const waitChecks = (id: string, n: number) =>
    until(`${n} checks`, async () => {
      const m = await monitor(id);
      return m.checks >= n ? m : undefined;
    });
  return { api, monitor, events, until, waitChecks };
}

/** The check jobs of a monitor, oldest first. */
const checkJobs = (monitorId: string) =>
  t.services.store.db
    .selectFrom('jobs')
    .select(['id', 'status', 'attempts', 'cost', 'error_code'])
    .where('kind', '=', MONITOR_CHECK_KIND)
    .where('dedupe_key', '=', `monitor:${monitorId}`)
    .orderBy('created_at')
    .execute();

/** Waits until none of the monitor's checks is queued or running. */
async function settled(monitorId: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const jobs = await checkJobs(monitorId);
    if (jobs.every((j) => j.status !== 'queued' && j.status !== 'active')) return jobs;
    if (Date.now() > deadline) throw new Error(`checks still live: ${JSON.stringify(jobs)}`);
    await sleep(50);
  }
}

describe('a failing page', () => {
  it('is retried, reported once per failed check, never charged; same content back is no change; 404 gone, 200 back', async () => {
    const page = new Page();
    await page.start();
    try {
      const { accountId, apiKey } = await t.register();
      const c = client(apiKey);
      const created = await c.api('POST', '/v1/monitors', { kind: 'page', target: page.url(), every: '1s' });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      await c.waitChecks(id, 2);

      // Measured while nothing is held: paused, its checks over.
      await c.api('PATCH', `/v1/monitors/${id}`, { paused: true });
      await settled(id);
      const balanceBefore = await t.services.ledger.balance(accountId);
      const jobsBefore = (await checkJobs(id)).length;
      const checksBefore = (await c.monitor(id)).checks as number;

      page.status = 500;
      await c.api('PATCH', `/v1/monitors/${id}`, { paused: false });
      await c.until('two failed checks', async () => {
        const failed = (await c.events(id)).filter((e) => e.type === 'check.failed');
        return failed.length >= 2 ? failed : undefined;
      });
      await c.api('PATCH', `/v1/monitors/${id}`, { paused: true });
      const jobs = (await settled(id)).slice(jobsBefore);

      // Every check of the outage failed after its three attempts, costing nothing.
      expect(jobs.length).toBeGreaterThanOrEqual(2);
      for (const job of jobs) {
        expect(job).toMatchObject({ status: 'failed', attempts: 3, error_code: 'upstream_error' });
        expect(job.cost ?? 0).toBe(0);
      }
      expect(await t.services.ledger.balance(accountId)).toBe(balanceBefore);
      // Failed checks are not recorded as checks.
      expect((await c.monitor(id)).checks).toBe(checksBefore);
      // Exactly one check.failed per failed check, naming it; never a change.
      const failed = (await c.events(id)).filter((e) => e.type === 'check.failed');
      expect(failed.map((e) => e.jobId).sort()).toEqual(jobs.map((j) => j.id).sort());
      expect(failed[0]!.data).toMatchObject({ error: 'upstream_error' });
      const last = (await c.monitor(id)).lastChecks[0];
      expect(last).toMatchObject({ status: 'failed' });
      expect(last.cost ?? 0).toBe(0);

      // Back, with the same content: no change.
      page.status = 200;
      await c.api('PATCH', `/v1/monitors/${id}`, { paused: false });
      await c.waitChecks(id, checksBefore + 2);
      const types = () => c.events(id).then((es) => es.map((e) => e.type));
      expect((await types()).filter((ty) => ty.startsWith('page.'))).toEqual([]);

      // Gone, then back.
      page.status = 404;
      await c.until('page.gone', async () => ((await types()).includes('page.gone') ? true : undefined));
      const checksGone = (await c.monitor(id)).checks as number;
      await c.waitChecks(id, checksGone + 1);
      page.status = 200;
      await c.until('page.back', async () => ((await types()).includes('page.back') ? true : undefined));
      const checksBack = (await c.monitor(id)).checks as number;
      await c.waitChecks(id, checksBack + 1);
      await c.api('PATCH', `/v1/monitors/${id}`, { paused: true });
      await settled(id);
      const all = await types();
      expect(all.filter((ty) => ty.startsWith('page.'))).toEqual(['page.gone', 'page.back']);
      expect(all.filter((ty) => ty === 'check.failed')).toHaveLength(jobs.length);
      expect(page.statuses).toContain(404);
      await c.api('DELETE', `/v1/monitors/${id}`);
    } finally {
      await page.close();
    }
  });
});

describe('an account out of credits', () => {
  it('pauses its monitor (reason credits) and resumes it once credits are granted', async () => {
    const page = new Page();
    await page.start();
    try {
      // One credit: the baseline takes it.
      const { accountId, apiKey } = await accountWithBalance(t, 1);
      const c = client(apiKey);
      const created = await c.api('POST', '/v1/monitors', { kind: 'page', target: page.url(), every: '1s' });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      await c.waitChecks(id, 1);

      const paused = await c.until('the pause for credits', async () => {
        const m = await c.monitor(id);
        return m.status === 'paused' ? m : undefined;
      });
      expect(paused).toMatchObject({ status: 'paused', pausedReason: 'credits', checks: 1 });
      expect(await t.services.ledger.balance(accountId)).toBe(0);
      // Its ticks keep coming while it waits; none pauses it again or checks.
      const ticks = paused.ticks as number;
      await c.until('more ticks', async () => ((await c.monitor(id)).ticks >= ticks + 2 ? true : undefined));
      const waiting = await c.monitor(id);
      expect(waiting).toMatchObject({ status: 'paused', pausedReason: 'credits', checks: 1 });
      expect(waiting.nextCheckAt).not.toBeNull();
      let events = await c.events(id);
      expect(events.map((e) => [e.type, e.data.reason])).toEqual([['monitor.paused', 'credits']]);

      await t.services.ledger.grant(accountId, 50, 'test: credits are back');
      const resumed = await c.until(
        'the resume',
        async () => {
          const m = await c.monitor(id);
          return m.status === 'active' ? m : undefined;
        },
        10_000,
      );
      expect(resumed.pausedReason).toBeNull();
      await c.waitChecks(id, 3);
      events = await c.events(id);
      expect(events.map((e) => [e.type, e.data.reason])).toEqual([
        ['monitor.paused', 'credits'],
        ['monitor.resumed', 'credits'],
      ]);
      await c.api('PATCH', `/v1/monitors/${id}`, { paused: true });
      await settled(id);
      await c.api('DELETE', `/v1/monitors/${id}`);
    } finally {
      await page.close();
    }
  });
});

describe("a user's pause", () => {
  it('stops the checks, and resuming restarts them', async () => {
    const page = new Page();
    await page.start();
    try {
      const { apiKey } = await t.register();
      const c = client(apiKey);
      const created = await c.api('POST', '/v1/monitors', { kind: 'page', target: page.url(), every: '1s' });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      await c.waitChecks(id, 2);

      const res = await c.api('PATCH', `/v1/monitors/${id}`, { paused: true });
      expect(res.json()).toMatchObject({ status: 'paused', pausedReason: 'user', nextCheckAt: null });
      await settled(id);
      const stopped = await c.monitor(id);
      const fetches = page.fetches;
      await sleep(3_000);
      const later = await c.monitor(id);
      expect(later).toMatchObject({ status: 'paused', checks: stopped.checks, ticks: stopped.ticks });
      expect(page.fetches).toBe(fetches);

      const again = await c.api('PATCH', `/v1/monitors/${id}`, { paused: false });
      expect(again.json()).toMatchObject({ status: 'active', pausedReason: null });
      expect(again.json().nextCheckAt).toBeGreaterThan(Date.now() - 1_000);
      await c.waitChecks(id, stopped.checks + 2);
      expect(page.fetches).toBeGreaterThan(fetches);
      const events = await c.events(id);
      expect(events.map((e) => [e.type, e.data.reason])).toEqual([
        ['monitor.paused', 'user'],
        ['monitor.resumed', 'user'],
      ]);
      await c.api('PATCH', `/v1/monitors/${id}`, { paused: true });
      await settled(id);
      await c.api('DELETE', `/v1/monitors/${id}`);
    } finally {
      await page.close();
    }
  });
});
