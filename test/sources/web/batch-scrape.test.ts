// POST /v1/web/batch/scrape end to end: a real app and job queue scraping loopback pages with one
// set of options, results in input order paged by `next`, invalid and repeated URLs reported and
// never fetched, failed pages unbilled, and a cancel that keeps what was scraped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { type Loopback, startServer } from '../../support/loopback.js';
import { quietLogger } from '../../support/quiet-logger.js';
import { waitForJob } from '../../support/wait-for-job.js';

let site: Loopback;
let t: TestApp;
let processing: JobProcessing;
const hits = new Map<string, number>();
/** Pages under /slow/ answer only once the test lets them. */
let release: () => void = () => {};
let slowGate = new Promise<void>((resolve) => {
  release = resolve;
});

const page = (n: string) =>
  `<html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1><p>Text of page ${n}, long enough to be read as content.</p><a href="/p/next">next</a></body></html>`;

beforeAll(async () => {
  site = await startServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const send = () => res.writeHead(200, { 'content-type': 'text/html' }).end(page(path.split('/').pop()!));
    if (path.startsWith('/p/')) return send();
    if (path.startsWith('/slow/')) return void slowGate.then(send);
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>gone</h1>');
  });
  t = await createTestApp({
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '10',
  });
  processing = await startJobProcessing(t.services, quietLogger);
});

afterAll(async () => {
  release();
  await processing?.stop();
  await t?.close();
  await site?.close();
});

const start = (key: string, body: Record<string, unknown>) =>
  t.call(key, { method: 'POST', url: '/v1/web/batch/scrape', payload: body });

describe('POST /v1/web/batch/scrape', () => {
  it('scrapes each page once in input order, reporting invalid, repeated and failed ones unbilled', async () => {
    const { apiKey } = await t.register();
    const urls = [
      `${site.url}/p/one`,
      'ftp://example.com/file',
      `${site.url}/p/two#part`,
      `${site.url}/p/one`,
      `${site.url}/missing`,
      `${site.url}/p/three`,
    ];
    const res = await start(apiKey, { urls, scrapeOptions: { formats: ['markdown', 'links'] } });
    expect(res.statusCode, res.body).toBe(202);
    // 1 + each of the 4 pages that will be fetched, at its most.
    expect(res.headers['x-credits-held']).toBe('5');
    const { jobId } = res.json();
    const done = await waitForJob(t, apiKey, `/v1/web/batch/scrape/${jobId}`);
    expect(done.status).toBe('completed');
    expect(done.stats).toEqual({ total: 6, succeeded: 3, failed: 1, skipped: 2 });
    expect(done.total).toBe(6);
    expect(done.results.map((r: { url: string }) => r.url)).toEqual(urls);
    const [one, invalid, two, repeated, missing, three] = done.results;
    expect(one.document.markdown).toMatch(/^# Page one\n/);
    expect(one.document.links).toEqual([{ url: `${site.url}/p/next`, text: 'next', internal: true }]);
    expect(two.document.metadata.title).toBe('Page two');
    expect(three.document.markdown).toContain('Text of page three');
    expect(invalid).toMatchObject({ errorCode: 'invalid_request', error: { error: 'invalid_request' } });
    expect(invalid.error.message).toContain("'urls[1]'");
    expect(repeated.error.message).toBe('The same page as urls[0]: scraped once');
    expect(missing).toMatchObject({ errorCode: 'not_found' });
    expect(hits.get('/p/one')).toBe(1);
    expect(hits.has('/file')).toBe(false);
    // 1 + the 3 pages that succeeded.
    const account = (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json();
    expect(account.credits).toBe(96);
  });

  it('pages its results with `next`', async () => {
    const { apiKey, accountId } = await t.register();
    await t.services.ledger.grant(accountId, 200, 'test: room for 150 pages');
    const urls = Array.from({ length: 150 }, (_, i) => `${site.url}/p/n${i}`);
    const { jobId } = (await start(apiKey, { urls })).json();
    const first = await waitForJob(t, apiKey, `/v1/web/batch/scrape/${jobId}`);
    expect(first.results).toHaveLength(100);
    expect(first.next).toMatch(new RegExp(`/v1/web/batch/scrape/${jobId}\\?skip=100$`));
    const rest = (
      await t.call(apiKey, { method: 'GET', url: `/v1/web/batch/scrape/${jobId}?skip=100` })
    ).json();
    expect(rest.results.map((r: { url: string }) => r.url)).toEqual(urls.slice(100));
    expect(rest).not.toHaveProperty('next');
  });

  it('a cancel stops the batch and keeps (and bills) the pages it has', async () => {
    const { apiKey } = await t.register();
    const urls = [`${site.url}/p/c1`, `${site.url}/slow/a`, `${site.url}/slow/b`];
    const { jobId } = (await start(apiKey, { urls })).json();
    await expect
      .poll(
        async () =>
          (await t.call(apiKey, { method: 'GET', url: `/v1/web/batch/scrape/${jobId}` })).json().total,
        {
          timeout: 20_000,
        },
      )
      .toBe(1);
    const cancel = await t.call(apiKey, { method: 'DELETE', url: `/v1/jobs/${jobId}` });
    expect(cancel.statusCode, cancel.body).toBeLessThan(300);
    const done = await waitForJob(t, apiKey, `/v1/web/batch/scrape/${jobId}`, {
      statuses: ['cancelled', 'completed', 'failed'],
    });
    expect(done.status).toBe('cancelled');
    expect(done.results.map((r: { url: string }) => r.url)).toEqual([`${site.url}/p/c1`]);
    release();
    slowGate = Promise.resolve();
    const account = (await t.call(apiKey, { method: 'GET', url: '/v1/account' })).json();
    expect(account.credits).toBe(98);
  });

  it('refuses a bad body naming the parameter, holding nothing', async () => {
    const { apiKey } = await t.register();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'urls'],
      [{ urls: [] }, 'urls'],
      [{ urls: Array.from({ length: 1001 }, (_, i) => `${site.url}/p/${i}`) }, 'urls'],
      [{ urls: ['ftp://x.example/a', 'not a url'] }, 'urls'],
      [{ urls: [`${site.url}/p/x`], scrapeOptions: { formats: ['nope'] } }, 'scrapeOptions.formats'],
      [
        { urls: [`${site.url}/p/x`], scrapeOptions: { includeTags: ['a[b'] } },
        'scrapeOptions.includeTags[0]',
      ],
    ];
    for (const [body, param] of cases) {
      const res = await start(apiKey, body);
      expect(res.statusCode, `${JSON.stringify(body).slice(0, 100)}: ${res.body}`).toBe(400);
      expect(res.json().message).toContain(`'${param}`);
    }
    const jobs = (await t.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json();
    expect(jobs.total).toBe(0);
  });
});
