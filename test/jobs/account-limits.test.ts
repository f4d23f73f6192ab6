// Fair use of shared capacity: one account may have at most UNFURL_ACCOUNT_MAX_CRAWLS crawls and
// UNFURL_ACCOUNT_MAX_MEDIA_JOBS media jobs queued or running; one more is a 429 rate_limited with
// Retry-After that holds nothing, while other accounts are served. The count and the insert are one
// step under the account's row lock, so concurrent submits through two app instances on one database
// cannot pass the limit together.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createSiblingApp, createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { quietLogger } from '../support/quiet-logger.js';
import { closeTestApp } from '../support/teardown.js';
import { waitForJob } from '../support/wait-for-job.js';

const MAX_CRAWLS = 2;
const MAX_MEDIA = 3;

let t: TestApp;
let sibling: TestApp;

beforeAll(async () => {
  // No job processing: accepted jobs stay queued, which is what the limits count.
  t = await createTestApp({
    UNFURL_ACCOUNT_MAX_CRAWLS: String(MAX_CRAWLS),
    UNFURL_ACCOUNT_MAX_MEDIA_JOBS: String(MAX_MEDIA),
  });
  sibling = await createSiblingApp(t);
});

afterAll(async () => closeTestApp(t, async () => sibling?.close()));

const crawl = (app: FastifyInstance, key: string, n: number) =>
  app.inject({
    method: 'POST',
    url: '/v1/web/crawl',
    headers: { authorization: `Bearer ${key}` },
    payload: { url: `https://example.org/site-${n}/`, limit: 5 },
  });

const ocr = (key: string, n: number) =>
  t.call(key, { method: 'POST', url: '/v1/video/ocr', payload: { url: `https://example.org/v${n}.mp4` } });

async function liveJobs(accountId: string) {
  const rows = await t.services.store.db
    .selectFrom('jobs')
    .select('kind')
    .where('account_id', '=', accountId)
    .where('status', 'in', ['queued', 'active'])
    .execute();
  return rows.map((r) => r.kind);
}

describe('per-account limits on live jobs', () => {
  it(`a crawl beyond ${MAX_CRAWLS} live ones is a 429 with Retry-After that holds nothing; another account is served`, async () => {
    const a = await t.register();
    for (let i = 0; i < MAX_CRAWLS; i++) expect((await crawl(t.app, a.apiKey, i)).statusCode).toBe(202);
    const balance = await t.services.ledger.balance(a.accountId);
    const refused = await crawl(t.app, a.apiKey, 99);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe('rate_limited');
    expect(refused.json().message).toContain(`${MAX_CRAWLS} crawls`);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await t.services.ledger.balance(a.accountId)).toBe(balance);
    expect(await liveJobs(a.accountId)).toEqual(Array(MAX_CRAWLS).fill('crawl'));
    // The crawl limit does not count media jobs, nor other accounts' crawls.
    expect((await ocr(a.apiKey, 1)).statusCode).toBe(202);
    const b = await t.register();
    expect((await crawl(t.app, b.apiKey, 1)).statusCode).toBe(202);
  });

  it(`media jobs (speech, OCR, describe, extract) share a limit of ${MAX_MEDIA}`, async () => {
    const a = await t.register();
    const statuses: number[] = [];
    for (let i = 0; i < MAX_MEDIA + 2; i++) statuses.push((await ocr(a.apiKey, i)).statusCode);
    expect(statuses).toEqual([...Array(MAX_MEDIA).fill(202), 429, 429]);
    const refused = await t.call(a.apiKey, {
      method: 'POST',
      url: '/v1/video/describe',
      payload: { url: 'https://example.org/x.mp4', mode: 'ocr' },
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toContain('media jobs');
  });

  it('20 concurrent crawl submits through two app instances on one database accept exactly the limit', async () => {
    const a = await t.register();
    const apps = [t.app, sibling.app];
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => crawl(apps[i % 2]!, a.apiKey, i)));
    const codes = rs.map((r) => r.statusCode).sort();
    expect(codes).toEqual([...Array(MAX_CRAWLS).fill(202), ...Array(20 - MAX_CRAWLS).fill(429)]);
    expect(await liveJobs(a.accountId)).toEqual(Array(MAX_CRAWLS).fill('crawl'));
    // Only the accepted crawls hold credits (1 + limit each).
    expect(await t.services.ledger.balance(a.accountId)).toBe(100 - MAX_CRAWLS * 6);
  });
});

describe('a slot frees when a live job ends', () => {
  let site: Loopback;
  let run: TestApp;
  let processing: JobProcessing;
  beforeAll(async () => {
    site = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>One page</title></head><body><p>The only page.</p></body></html>');
    });
    run = await createTestApp({
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_ACCOUNT_MAX_CRAWLS: '1',
      UNFURL_JOB_POLL_MS: '20',
    });
  });
  afterAll(async () => {
    await processing?.stop(1000);
    await closeTestApp(run);
    await site?.close();
  });

  it('the next crawl is accepted once the first has completed', async () => {
    const { apiKey } = await run.register();
    const submit = () =>
      run.call(apiKey, { method: 'POST', url: '/v1/web/crawl', payload: { url: `${site.url}/`, limit: 1 } });
    const first = await submit();
    expect(first.statusCode).toBe(202);
    expect((await submit()).statusCode).toBe(429);
    processing = await startJobProcessing(run.services, quietLogger);
    await waitForJob(run, apiKey, `/v1/jobs/${first.json().jobId}`, {
      timeoutMs: 20_000,
      statuses: ['completed'],
    });
    expect((await submit()).statusCode).toBe(202);
  });
});
