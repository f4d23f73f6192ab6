// /metrics after real requests over a socket: request counts and latencies by route and status,
// errors by code, credits spent, upstream errors by platform, jobs by state and queue depth. And the
// JSON log line of a request carries its id, route, account, status and duration.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { quietLogger } from '../support/quiet-logger.js';
import { closeTestApp } from '../support/teardown.js';
import { hasSample, parsePrometheus, type Sample, sumOf } from './prometheus-text.js';

const PAGE = `<!doctype html><html><head><title>Metrics page</title></head>
<body><main><h1>Counting things</h1><p>${'A paragraph long enough to be the main content. '.repeat(8)}</p></main></body></html>`;

describe('/metrics', () => {
  let t: TestApp;
  let base: string;
  let site: Loopback;
  let platform: Loopback;
  let apiKey = '';
  let crawlJobId = '';
  const logLines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    site = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    // A platform that always fails: every call ends as upstream_error after its retries.
    platform = await startServer((_req, res) => res.writeHead(503).end('down'));
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
        done();
      },
    });
    t = await createTestApp(
      {
        UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
        UNFURL_UPSTREAM_YOUTUBE: platform.url,
        UNFURL_UPSTREAM_RETRY_BASE_MS: '0',
      },
      { logger: { level: 'info', stream } },
    );
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await closeTestApp(t);
    await site?.close();
    await platform?.close();
  });

  const scrapeMetrics = async (): Promise<Sample[]> => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return parsePrometheus(await res.text());
  };

  it('counts what real requests did', async () => {
    const before = await scrapeMetrics();

    const reg = await fetch(`${base}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `metrics-${Date.now()}@example.com`, password: 'correct horse battery' }),
    });
    expect(reg.status).toBe(200);
    const registered = (await reg.json()) as { apiKey: string; accountId: string };
    apiKey = registered.apiKey;
    const accountId = registered.accountId;
    const auth = { authorization: `Bearer ${apiKey}` };

    expect((await fetch(`${base}/v1/account`)).status).toBe(401);
    expect((await fetch(`${base}/no/such/path`)).status).toBe(404);
    const bad = await fetch(`${base}/v1/web/scrape?url=notaurl`, { headers: auth });
    expect(bad.status).toBe(400);

    const scrape = await fetch(`${base}/v1/web/scrape?url=${encodeURIComponent(`${site.url}/page`)}`, {
      headers: auth,
    });
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('x-credits-charged')).toBe('1');

    const video = await fetch(`${base}/v1/vidsite/video?id=dQw4w9WgXcQ`, { headers: auth });
    expect(video.status).toBe(502);
    expect(((await video.json()) as { error: string }).error).toBe('upstream_error');

    // Nothing runs jobs in this app: the crawl stays queued.
    const crawl = await fetch(`${base}/v1/web/crawl`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/`, limit: 3 }),
    });
    expect(crawl.status).toBe(202);
    crawlJobId = ((await crawl.json()) as { jobId: string }).jobId;

    const after = await scrapeMetrics();
    const delta = (name: string, labels: Record<string, string>) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);

    expect(delta('unfurl_http_requests_total', { route: '/v1/auth/register', status: '200' })).toBe(1);
    expect(delta('unfurl_http_requests_total', { route: '/v1/account', status: '401' })).toBe(1);
    expect(delta('unfurl_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(delta('unfurl_http_requests_total', { route: '/v1/web/scrape', method: 'GET' })).toBe(2);
    // One latency observation per request, in the histogram of its route and status.
    expect(
      delta('unfurl_http_request_duration_seconds_count', { route: '/v1/web/scrape', status: '200' }),
    ).toBe(1);
    expect(
      delta('unfurl_http_request_duration_seconds_bucket', {
        route: '/v1/web/scrape',
        status: '200',
        le: '+Inf',
      }),
    ).toBe(1);
    expect(
      delta('unfurl_http_request_duration_seconds_sum', { route: '/v1/web/scrape', status: '200' }),
    ).toBeGreaterThan(0);

    expect(delta('unfurl_http_errors_total', { code: 'unauthorized', route: '/v1/account' })).toBe(1);
    expect(delta('unfurl_http_errors_total', { code: 'not_found', route: 'unmatched' })).toBe(1);
    expect(delta('unfurl_http_errors_total', { code: 'invalid_request', route: '/v1/web/scrape' })).toBe(1);
    expect(delta('unfurl_http_errors_total', { code: 'upstream_error', route: '/v1/vidsite/video' })).toBe(1);

    expect(delta('unfurl_credits_spent_total', { source: 'request' })).toBe(1);
    expect(delta('unfurl_upstream_errors_total', { platform: 'youtube' })).toBeGreaterThanOrEqual(1);
    expect(delta('unfurl_upstream_failed_attempts_total', { platform: 'youtube' })).toBeGreaterThanOrEqual(3);

    // Gauges read from this app's jobs table at scrape time.
    expect(sumOf(after, 'unfurl_jobs', { state: 'queued' })).toBe(1);
    expect(sumOf(after, 'unfurl_jobs', { state: 'completed' })).toBe(0);
    expect(sumOf(after, 'unfurl_queue_depth', { queue: 'crawl' })).toBe(1);
    expect(hasSample(after, 'unfurl_queue_depth', { queue: 'transcript_batch' })).toBe(true);
    expect(sumOf(after, 'unfurl_jobs_active', { queue: 'crawl' })).toBe(0);
    // Process metrics come along.
    expect(hasSample(after, 'process_cpu_user_seconds_total')).toBe(true);

    // The request log line: request id, route, account, status and duration in one JSON object.
    const scrapeId = scrape.headers.get('x-request-id');
    const line = logLines.find((l) => l.reqId === scrapeId && l.msg === 'request completed');
    expect(line).toMatchObject({
      reqId: scrapeId,
      route: '/v1/web/scrape',
      accountId,
      res: { statusCode: 200 },
    });
    expect(typeof line!.responseTime).toBe('number');
    // A refused request's line names its route, and no account.
    const refused = logLines.find((l) => l.msg === 'request completed' && l.route === '/v1/account');
    expect(refused).toMatchObject({ res: { statusCode: 401 } });
    expect(refused).not.toHaveProperty('accountId');
  });

  it('counts the credits a job settles and moves it from queued to completed', async () => {
    expect(crawlJobId).toMatch(/^job_/);
    const before = await scrapeMetrics();
    const processing = await startJobProcessing(t.services, quietLogger);
    let job: { status: string; credits: number } | undefined;
    try {
      for (let i = 0; i < 300; i++) {
        const res = await fetch(`${base}/v1/jobs/${crawlJobId}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        job = (await res.json()) as { status: string; credits: number };
        if (job.status === 'completed' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await processing.stop(2000);
    }
    expect(job?.status).toBe('completed');
    const after = await scrapeMetrics();
    // 1 + pages: the crawl's real cost, counted when the job settled.
    expect(job!.credits).toBeGreaterThanOrEqual(2);
    expect(
      sumOf(after, 'unfurl_credits_spent_total', { source: 'job' }) -
        sumOf(before, 'unfurl_credits_spent_total', { source: 'job' }),
    ).toBe(job!.credits);
    expect(sumOf(after, 'unfurl_jobs', { state: 'queued' })).toBe(0);
    expect(sumOf(after, 'unfurl_jobs', { state: 'completed' })).toBe(1);
    expect(sumOf(after, 'unfurl_queue_depth', { queue: 'crawl' })).toBe(0);
  });
});
