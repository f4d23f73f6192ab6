// A host *name* that resolves to a private address is the caller's bad input, not our fault: every
// place that fetches a caller's URL answers 400 invalid_request naming the parameter, charges
// nothing, and never reaches the address. (A private IP literal is refused before any lookup; this
// is the case only DNS reveals.)
//
// The name is this machine's own host name, which resolves to loopback through /etc/hosts on the
// machines we test on; the first test asserts that, so a machine where it does not fails loudly
// instead of passing for the wrong reason.
import dns from 'node:dns/promises';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { isPublicAddress } from '../../src/net/ip-policy.js';
import { SafeFetcher } from '../../src/net/safe-fetch.js';
import { crawl } from '../../src/sources/web/crawler.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { quietLogger } from '../support/quiet-logger.js';
import { waitForJob } from '../support/wait-for-job.js';

const host = os.hostname();
let site: Loopback;
let hits = 0;
let strict: TestApp;
let processing: JobProcessing;
let privateUrl: string;

beforeAll(async () => {
  site = await startServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>secret</title><p>internal</p>');
  });
  privateUrl = `http://${host}:${site.port}/secret`;
  strict = await createTestApp({ UNFURL_JOB_POLL_MS: '50', UNFURL_JOB_BACKOFF_MS: '50' });
  processing = await startJobProcessing(strict.services, quietLogger);
});

afterAll(async () => {
  await processing?.stop();
  await strict?.close();
  await site?.close();
});

const credits = async (key: string) =>
  (await strict.call(key, { method: 'GET', url: '/v1/account' })).json().credits as number;

describe('a host name that resolves to a private address', () => {
  it('is what this test needs: the host name resolves, to non-public addresses only', async () => {
    const addresses = await dns.lookup(host, { all: true });
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((a) => isPublicAddress(a.address))).toEqual([]);
  });

  it('scrape and map answer 400 naming url, charge nothing, and never reach it', async () => {
    const { apiKey } = await strict.register();
    const before = await credits(apiKey);
    for (const route of ['/v1/web/scrape', '/v1/web/map']) {
      const res = await strict.call(apiKey, {
        method: 'GET',
        url: `${route}?url=${encodeURIComponent(privateUrl)}`,
      });
      expect(res.statusCode, `${route}: ${res.body}`).toBe(400);
      expect(res.json(), route).toMatchObject({ error: 'invalid_request', details: 'url' });
      expect(res.json().message, route).toContain("'url'");
      expect(res.json().message, route).toContain('non-public address');
    }
    expect(await credits(apiKey)).toBe(before);
    expect(hits).toBe(0);
  });

  it('a crawl whose start page is there fails with invalid_request naming url, not an internal error', async () => {
    const { apiKey } = await strict.register();
    const res = await strict.call(apiKey, {
      method: 'POST',
      url: '/v1/web/crawl',
      payload: { url: privateUrl, limit: 5 },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { jobId } = res.json();
    const body = await waitForJob(strict, apiKey, `/v1/web/crawl/${jobId}`, { timeoutMs: 20_000 });
    expect(body.status).toBe('failed');
    expect(body.error).toContain("Invalid parameter 'url'");
    expect(body.error).toContain('non-public address');
    // The caller's mistake: recorded as such, and not retried as if it were our fault.
    const row = await strict.services.store.db
      .selectFrom('jobs')
      .select(['error_code', 'attempts'])
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ error_code: 'invalid_request', attempts: 1 });
    expect(await credits(apiKey)).toBe(100);
    expect(hits).toBe(0);
  });

  it('a crawled page there is listed as an invalid_request failure', async () => {
    const fetcher = new SafeFetcher({ allowPrivateNetwork: false });
    try {
      const outcome = await crawl(
        {
          url: 'http://site.example/',
          limit: 10,
          maxDepth: 1,
          include: [],
          exclude: [],
          allowSubdomains: false,
          entireDomain: false,
          concurrency: 2,
          perHostConcurrency: 2,
        },
        {
          // The start page stands in for a public site; its link is fetched for real, and refused.
          scrape: async (url) => {
            if (url === 'http://site.example/') {
              return {
                url,
                content: '',
                name: null,
                description: null,
                ogUrl: null,
                ogImage: null,
                countCharacters: 0,
                urls: ['http://site.example/inner'],
              };
            }
            const res = await fetcher.fetch(privateUrl);
            throw new Error(`fetched ${res.url}`);
          },
          robots: async () => ({ isAllowed: () => true, crawlDelayMs: null }),
          onPage: () => {},
        },
        new AbortController().signal,
      );
      expect(outcome.failures).toHaveLength(1);
      expect(outcome.failures[0]).toMatchObject({ error: 'invalid_request' });
      expect(outcome.failures[0]!.message).toContain("'url'");
    } finally {
      await fetcher.close();
    }
    expect(hits).toBe(0);
  });

  it('a webhookUrl there is refused when the job is submitted, naming webhookUrl, nothing held', async () => {
    const { apiKey } = await strict.register();
    const res = await strict.call(apiKey, {
      method: 'POST',
      url: '/v1/web/crawl',
      payload: { url: 'https://example.com/', limit: 5, webhookUrl: privateUrl },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', details: 'webhookUrl' });
    expect((await strict.call(apiKey, { method: 'GET', url: '/v1/jobs' })).json().total).toBe(0);
    expect(await credits(apiKey)).toBe(100);
  });

  it('a webhookUrl whose name does not resolve yet is accepted (delivery checks it again)', async () => {
    const fetcher = new SafeFetcher({ allowPrivateNetwork: false });
    try {
      const url = await fetcher.checkResolvedUrl('https://no-such-name.invalid/hook', 'webhookUrl');
      expect(url.hostname).toBe('no-such-name.invalid');
      const err = await fetcher.checkResolvedUrl(privateUrl, 'webhookUrl').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'invalid_request', details: 'webhookUrl' });
    } finally {
      await fetcher.close();
    }
  });
});
