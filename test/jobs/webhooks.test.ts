// Outgoing webhooks (DESIGN §6, §8): a real receiver on loopback checks each delivery the way a
// customer would — the Standard Webhooks signature recomputed here from the spec, not with our
// signing code — and answers as told (fail a few times, fail always). Also the SSRF guard on
// webhookUrl at submit time and at connect time, and the address policy behind it.
import { createHmac, timingSafeEqual } from 'node:crypto';
import dns from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { isPublicAddress } from '../../src/net/ip-policy.js';
import { BlockedAddressError } from '../../src/net/safe-fetch.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { disposeEnv } from '../support/job-processes.js';
import { quietLogger } from '../support/quiet-logger.js';
import { registerTestKinds, testJobRoutes } from '../support/test-kinds.js';
import { waitForJob } from '../support/wait-for-job.js';

const RETRY_BASE_MS = 50;
const MAX_ATTEMPTS = 4;

// ---------------------------------------------------------------------------------------------
// The receiver: a plain node:http server on 127.0.0.1 that records every request.

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

class Receiver {
  readonly received: Received[] = [];
  /** Status to answer on the n-th (1-based) request to a path; 200 for paths not listed. */
  private readonly plans = new Map<string, (n: number) => number>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      this.received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      const n = this.at(path).length;
      const status = this.plans.get(path)?.(n) ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
    });
  });
  port = 0;

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  close() {
    this.server.closeAllConnections();
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  plan(path: string, statusOf: (n: number) => number) {
    this.plans.set(path, statusOf);
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  async waitFor(path: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) {
        throw new Error(`receiver got ${this.at(path).length} of ${count} requests to ${path}`);
      }
      await sleep(20);
    }
    return this.at(path);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Standard Webhooks verification, written from the spec (https://www.standardwebhooks.com): the
 * secret is `whsec_` + base64 key bytes; the signed content is `${id}.${timestamp}.${body}`;
 * `webhook-signature` is a space-separated list of `v1,<base64 HMAC-SHA256>`; the timestamp (Unix
 * seconds) must be within 5 minutes of now. Answers why it fails, or null when it verifies.
 */
function verifyStandardWebhook(
  secret: string,
  headers: http.IncomingHttpHeaders,
  body: string,
): string | null {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
    return 'missing webhook-id, webhook-timestamp or webhook-signature';
  }
  if (!secret.startsWith('whsec_')) return 'secret does not start with whsec_';
  if (!/^\d+$/.test(timestamp)) return `timestamp ${timestamp} is not Unix seconds`;
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 5 * 60) return `timestamp ${timestamp} is stale`;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  if (key.length < 16) return 'secret key is too short';
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  for (const entry of signature.split(' ')) {
    const [version, b64] = entry.split(',');
    if (version !== 'v1' || !b64) continue;
    const given = Buffer.from(b64, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'no v1 signature matches';
}

/** Our timestamps are Unix ms (DESIGN §4); Standard Webhooks' examples use ISO 8601. Either is read. */
const toMs = (ts: unknown) => (typeof ts === 'number' ? ts : Date.parse(String(ts)));

// ---------------------------------------------------------------------------------------------

let t: TestApp;
let processing: JobProcessing;
const receiver = new Receiver();

beforeAll(async () => {
  await receiver.start();
  t = await createTestApp(
    {
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      UNFURL_WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      UNFURL_WEBHOOK_TIMEOUT_MS: '5000',
      UNFURL_JOB_POLL_MS: '50',
      UNFURL_JOB_BACKOFF_MS: '50',
    },
    { extraRoutes: testJobRoutes },
  );
  registerTestKinds(t.services.jobs.registry);
  processing = await startJobProcessing(t.services, quietLogger);
});

afterAll(async () => {
  await closeApp(t, processing);
  await receiver.close();
});

/** TestApp.close(), but the PG database is dropped only once no connection to it is left. */
async function closeApp(app: TestApp | undefined, jobs: JobProcessing | undefined) {
  if (!app) return;
  await app.app.close();
  await jobs?.stop();
  await app.services.close();
  await disposeEnv(app.env);
}

async function account(key: string): Promise<{ id: string; webhookSecret: string; credits: number }> {
  const res = await t.call(key, { method: 'GET', url: '/v1/account' });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function submit(key: string, kind: string, payload: object): Promise<string> {
  const res = await t.call(key, { method: 'POST', url: `/v1/test/jobs/${kind}`, payload });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().jobId;
}

const waitEnded = (key: string, jobId: string) =>
  waitForJob(t, key, `/v1/jobs/${jobId}`, { timeoutMs: 20_000 });

const deliveriesOf = (jobId: string) =>
  t.services.store.db.selectFrom('webhook_deliveries').selectAll().where('job_id', '=', jobId).execute();

async function waitDelivery(jobId: string, status: 'delivered' | 'failed', timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await deliveriesOf(jobId);
    if (rows.length === 1 && rows[0]!.status === status) return rows[0]!;
    if (Date.now() > deadline) throw new Error(`delivery of ${jobId}: ${JSON.stringify(rows)}`);
    await sleep(25);
  }
}

describe(`webhooks (${process.env.REDIS_URL ? 'BullMQ' : 'embedded'} queue)`, () => {
  it('signs job.completed per Standard Webhooks and sends the poll answer', async () => {
    const { apiKey } = await t.register();
    const other = await t.register();
    const { webhookSecret } = await account(apiKey);
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const jobId = await submit(apiKey, 'echo', {
      value: 'hello hooks',
      webhookUrl: receiver.url('/completed'),
    });
    const [hook] = await receiver.waitFor('/completed', 1);
    expect(await waitEnded(apiKey, jobId)).toMatchObject({ status: 'completed' });

    expect(verifyStandardWebhook(webhookSecret, hook!.headers, hook!.body)).toBeNull();
    // The verifier is not a rubber stamp: another secret, or a changed byte, fails.
    expect(
      verifyStandardWebhook((await account(other.apiKey)).webhookSecret, hook!.headers, hook!.body),
    ).toMatch(/no v1 signature/);
    expect(verifyStandardWebhook(webhookSecret, hook!.headers, hook!.body.replace('hello', 'jello'))).toMatch(
      /no v1 signature/,
    );
    expect(hook!.headers['content-type']).toMatch(/^application\/json/);
    expect(hook!.headers['webhook-id']).toMatch(/^msg_/);

    const payload = JSON.parse(hook!.body);
    expect(Object.keys(payload).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(payload.type).toBe('job.completed');
    expect(Math.abs(Date.now() - toMs(payload.timestamp))).toBeLessThan(5 * 60_000);
    // A kind without a poll route of its own is shown as {status, data, error} (real kinds' own shapes
    // are checked with them: test/media/extract for the extract shape).
    const job = await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` });
    expect(job.statusCode).toBe(200);
    expect(payload.data).toEqual({ jobId, status: 'completed', data: job.json().result, error: null });
    expect(payload.data).toMatchObject({ status: 'completed', data: { value: 'hello hooks' }, error: null });

    const row = await waitDelivery(jobId, 'delivered');
    expect(row).toMatchObject({
      id: hook!.headers['webhook-id'],
      event_type: 'job.completed',
      attempts: 1,
      last_status: 200,
      last_error: null,
    });
    await sleep(600);
    expect(receiver.at('/completed')).toHaveLength(1);
  });

  it('sends job.failed for a failed job, with that kind’s poll answer', async () => {
    const { apiKey } = await t.register();
    const { webhookSecret } = await account(apiKey);
    const jobId = await submit(apiKey, 'echo', {
      value: 'doomed',
      permanent: true,
      estimate: 5,
      webhookUrl: receiver.url('/failed'),
    });
    const [hook] = await receiver.waitFor('/failed', 1);
    expect(verifyStandardWebhook(webhookSecret, hook!.headers, hook!.body)).toBeNull();
    const payload = JSON.parse(hook!.body);
    expect(payload.type).toBe('job.failed');
    expect(payload.data).toEqual({
      jobId,
      status: 'failed',
      data: null,
      error: 'permanent failure for doomed',
    });
    const job = await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${jobId}` });
    expect(job.json()).toMatchObject({ status: 'failed', error: 'permanent failure for doomed' });
    expect(await waitDelivery(jobId, 'delivered')).toMatchObject({ event_type: 'job.failed', attempts: 1 });
    // A failed job costs nothing, webhook or not.
    expect((await account(apiKey)).credits).toBe(100);
  });

  it('retries a failing receiver with backoff: 500, 500, then 200 — one webhook-id throughout', async () => {
    const { apiKey } = await t.register();
    const { webhookSecret } = await account(apiKey);
    receiver.plan('/flaky', (n) => (n <= 2 ? 500 : 200));
    const jobId = await submit(apiKey, 'echo', { value: 'again', webhookUrl: receiver.url('/flaky') });
    const hooks = await receiver.waitFor('/flaky', 3);
    const row = await waitDelivery(jobId, 'delivered');
    expect(row).toMatchObject({ attempts: 3, status: 'delivered', last_status: 200, last_error: null });
    expect(new Set(hooks.map((h) => h.headers['webhook-id']))).toEqual(new Set([row.id]));
    for (const h of hooks) expect(verifyStandardWebhook(webhookSecret, h.headers, h.body)).toBeNull();
    // The same event each time (only the signature's timestamp may move).
    expect(new Set(hooks.map((h) => h.body)).size).toBe(1);
    // Backoff: at least RETRY_BASE_MS before the 2nd attempt, twice that before the 3rd.
    expect(hooks[1]!.at - hooks[0]!.at).toBeGreaterThanOrEqual(RETRY_BASE_MS - 5);
    expect(hooks[2]!.at - hooks[1]!.at).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS - 5);
    await sleep(600);
    expect(receiver.at('/flaky')).toHaveLength(3);
  });

  it(`gives up after UNFURL_WEBHOOK_MAX_ATTEMPTS (${MAX_ATTEMPTS}) failures`, async () => {
    const { apiKey } = await t.register();
    receiver.plan('/down', () => 503);
    const jobId = await submit(apiKey, 'echo', { value: 'nobody home', webhookUrl: receiver.url('/down') });
    const row = await waitDelivery(jobId, 'failed');
    expect(row).toMatchObject({ attempts: MAX_ATTEMPTS, last_status: 503, delivered_at: null });
    expect(row.last_error).toContain('503');
    await sleep(800);
    expect(receiver.at('/down')).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(receiver.at('/down').map((h) => h.headers['webhook-id'])).size).toBe(1);
    // The job itself is not affected by its webhook.
    expect(await waitEnded(apiKey, jobId)).toMatchObject({ status: 'completed' });
  });

  it('sends nothing for a job without webhookUrl', async () => {
    const { apiKey } = await t.register();
    const jobId = await submit(apiKey, 'echo', { value: 'quiet' });
    await waitEnded(apiKey, jobId);
    await sleep(300);
    expect(await deliveriesOf(jobId)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// SSRF: with UNFURL_ALLOW_PRIVATE_NETWORK unset, a webhook can reach only public addresses.

describe('webhookUrl SSRF guard (UNFURL_ALLOW_PRIVATE_NETWORK unset)', () => {
  let strict: TestApp;
  let strictProcessing: JobProcessing;
  beforeAll(async () => {
    strict = await createTestApp(
      { UNFURL_WEBHOOK_RETRY_BASE_MS: '20', UNFURL_WEBHOOK_MAX_ATTEMPTS: '2', UNFURL_JOB_POLL_MS: '50' },
      { extraRoutes: testJobRoutes },
    );
    expect(strict.services.config.allowPrivateNetwork).toBe(false);
    registerTestKinds(strict.services.jobs.registry);
  });
  afterAll(async () => {
    await closeApp(strict, strictProcessing);
  });

  const refused = () => [
    `http://127.0.0.1:${receiver.port}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://10.0.0.1/',
    'ftp://x/',
    `http://localhost:${receiver.port}/`,
    'http://localhost./',
    'http://app.localhost/',
    'http://metadata.google.internal/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://2130706433/',
    'http://0x7f.0.0.1/',
    'http://0/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://user:secret@example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'not a url',
  ];

  it('refuses private, loopback, metadata and non-http webhook URLs with 400 naming webhookUrl', async () => {
    const { apiKey } = await strict.register();
    for (const webhookUrl of refused()) {
      const res = await strict.call(apiKey, {
        method: 'POST',
        url: '/v1/test/jobs/echo',
        payload: { value: 'x', estimate: 5, webhookUrl },
      });
      expect(res.statusCode, `${webhookUrl} → ${res.body}`).toBe(400);
      const body = res.json();
      expect(body, webhookUrl).toMatchObject({ error: 'invalid_request', details: 'webhookUrl' });
      expect(body.message).toContain('webhookUrl');
    }
    // Nothing was accepted, nothing held.
    expect((await strict.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json().total).toBe(0);
    expect((await strict.call(apiKey, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
    // A public https URL is accepted (the job is not run here: no processing started yet).
    const ok = await strict.call(apiKey, {
      method: 'POST',
      url: '/v1/test/jobs/echo',
      payload: { value: 'x', estimate: 5, webhookUrl: 'https://hooks.example.com/unfurl' },
    });
    expect(ok.statusCode, ok.body).toBe(202);
  });

  it('re-checks at connect time: a name that resolves to a private address is never reached', async () => {
    const host = os.hostname();
    const addresses = await dns.lookup(host, { all: true }).catch(() => []);
    const path = '/by-name';
    const url = `http://${host}:${receiver.port}${path}`;
    // The name passes the submit-time check (it is not an IP nor a localhost name)…
    expect(() => strict.services.fetcher.checkUrl(url, 'webhookUrl')).not.toThrow();
    // …but the fetcher refuses to connect when it resolves to a non-public address.
    const attempt = strict.services.fetcher.fetch(url, { method: 'POST', body: '{}', maxRedirects: 0 });
    if (addresses.length > 0 && addresses.every((a) => !isPublicAddress(a.address))) {
      await expect(attempt).rejects.toBeInstanceOf(BlockedAddressError);
    } else {
      await expect(attempt).rejects.toThrow();
    }
    // End to end: a job's webhook to that name is attempted, refused, and finally given up.
    const { apiKey } = await strict.register();
    // Drop the job queued by the previous test (its webhook is a public host this test must not call).
    await strict.services.store.db.deleteFrom('jobs').where('webhook_url', 'like', 'https://%').execute();
    // Submitting it is refused now that the name resolves to a private address…
    const refused = await strict.call(apiKey, {
      method: 'POST',
      url: '/v1/test/jobs/echo',
      payload: { value: 'x', webhookUrl: url },
    });
    if (addresses.length > 0 && addresses.every((a) => !isPublicAddress(a.address))) {
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({ error: 'invalid_request', details: 'webhookUrl' });
    }
    // …so play a name that did not resolve at submit and points there by delivery time (rebinding).
    const res = await strict.call(apiKey, {
      method: 'POST',
      url: '/v1/test/jobs/echo',
      payload: { value: 'x', webhookUrl: `http://not-yet.invalid:${receiver.port}${path}` },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { jobId } = res.json();
    await strict.services.store.db
      .updateTable('jobs')
      .set({ webhook_url: url })
      .where('id', '=', jobId)
      .execute();
    strictProcessing = await startJobProcessing(strict.services, quietLogger);
    const deadline = Date.now() + 20_000;
    let rows = await strict.services.store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('job_id', '=', jobId)
      .execute();
    while (rows[0]?.status !== 'failed') {
      if (Date.now() > deadline) throw new Error(`delivery not given up: ${JSON.stringify(rows)}`);
      await sleep(50);
      rows = await strict.services.store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('job_id', '=', jobId)
        .execute();
    }
    expect(rows[0]).toMatchObject({ attempts: 2, last_status: null });
    if (addresses.length > 0 && addresses.every((a) => !isPublicAddress(a.address))) {
      expect(rows[0]!.last_error).toMatch(/non-public address/);
    }
    expect(receiver.at(path)).toHaveLength(0);
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['10.0.0.1', false],
    ['10.255.255.255', false],
    ['172.16.0.1', false],
    ['172.31.255.254', false],
    ['172.32.0.1', true],
    ['192.168.0.1', false],
    ['192.168.255.255', false],
    ['169.254.169.254', false],
    ['169.254.0.1', false],
    ['100.64.0.1', false],
    ['100.127.255.254', false],
    ['100.128.0.1', true],
    ['0.0.0.0', false],
    ['0.1.2.3', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:10.1.2.3', false],
    ['::ffff:a9fe:a9fe', false], // 169.254.169.254, mapped, in hex
    ['0:0:0:0:0:ffff:7f00:1', false],
    ['::127.0.0.1', false], // IPv4-compatible (deprecated)
    ['64:ff9b::7f00:1', false], // NAT64 of 127.0.0.1
    ['fd00::1', false],
    ['fc00::1', false],
    ['fe80::1', false],
    ['fe80::1%eth0', false],
    ['ff02::1', false],
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['::ffff:8.8.8.8', true],
    ['2606:4700::1111', true],
    ['2001:4860:4860::8888', true],
    // Not an IP literal at all: never "public".
    ['localhost', false],
    ['example.com', false],
    ['', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
