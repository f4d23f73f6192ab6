// How a program meets the SDK: `new Unfurl()` configured from UNFURL_API_URL / UNFURL_API_KEY, a base
// URL with or without /v1, waitForJob typed from a type argument alone, and crawlAndWait answering a
// finished crawl with every page.
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  apiRoot,
  type CrawlResult,
  type OcrPoll,
  type PollAnswers,
  Unfurl,
  UnfurlError,
} from '../../packages/sdk/src/index.js';
import { uniqueEmail } from '../support/app.js';
import { type ClientTestServer, SITE_PAGES, startClientTestServer } from './server.js';

let s: ClientTestServer;
let apiKey: string;
const saved = { url: process.env.UNFURL_API_URL, key: process.env.UNFURL_API_KEY };

beforeAll(async () => {
  s = await startClientTestServer();
  const reg = await new Unfurl({ baseUrl: s.url, apiKey: null }).auth.register({
    email: uniqueEmail('sdkcfg'),
    password: 'correct horse battery',
  });
  apiKey = reg.apiKey;
}, 300_000);
afterAll(async () => {
  await s?.close();
}, 120_000);
afterEach(() => {
  for (const [name, value] of [
    ['UNFURL_API_URL', saved.url],
    ['UNFURL_API_KEY', saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('configuration', () => {
  it('new Unfurl() reads UNFURL_API_URL and UNFURL_API_KEY; given options win; apiKey null sends none', async () => {
    process.env.UNFURL_API_URL = s.url;
    process.env.UNFURL_API_KEY = apiKey;
    const fromEnv = new Unfurl();
    expect(fromEnv.transport.baseUrl).toBe(s.url);
    expect(fromEnv.apiKey).toBe(apiKey);
    expect((await fromEnv.account.get()).credits).toBe(100);

    const given = new Unfurl({ baseUrl: s.url, apiKey: 'uf_given' });
    expect(given.apiKey).toBe('uf_given');
    expect(new Unfurl({ apiKey: null }).apiKey).toBeNull();
  });

  it('without a base URL anywhere the constructor says what to set', () => {
    delete process.env.UNFURL_API_URL;
    expect(() => new Unfurl()).toThrow(/UNFURL_API_URL/);
  });

  it('a base URL with /v1 (as Supadata-style docs print it), a trailing slash or neither is the same server', async () => {
    for (const base of [s.url, `${s.url}/`, `${s.url}/v1`, `${s.url}/v1/`]) {
      const client = new Unfurl({ baseUrl: base, apiKey });
      expect(client.transport.baseUrl, base).toBe(s.url);
      expect((await client.account.get()).credits, base).toBeGreaterThan(0);
    }
    expect(apiRoot('https://api.example.com/unfurl/v1?x=1')).toBe('https://api.example.com/unfurl');
    expect(apiRoot('https://api.example.com/v10')).toBe('https://api.example.com/v10');
  });
});

describe('waiting', () => {
  it('waitForJob is typed by a type argument alone, or by kind', () => {
    const client = new Unfurl({ baseUrl: s.url, apiKey });
    expectTypeOf(client.waitForJob<'ocr'>).returns.resolves.toEqualTypeOf<OcrPoll>();
    expectTypeOf(client.waitForJob).returns.resolves.toEqualTypeOf<PollAnswers[keyof PollAnswers]>();
    const typed = () => client.waitForJob('job_x', { kind: 'crawl' });
    expectTypeOf(typed).returns.resolves.toEqualTypeOf<PollAnswers['crawl']>();
  });

  it('crawlAndWait starts a crawl and answers it finished, with every page, calling onPage for each', async () => {
    const client = new Unfurl({ baseUrl: `${s.url}/v1`, apiKey });
    const seen: string[] = [];
    const crawl = await client.web.crawlAndWait(
      { url: `${s.site.url}/docs`, limit: 25 },
      { intervalMs: 50, onPage: (page, i) => seen.push(`${i}:${page.url}`) },
    );
    expectTypeOf(crawl).toEqualTypeOf<CrawlResult>();
    expect(crawl.jobId).toMatch(/^job_/);
    expect(crawl.status).toBe('completed');
    expect(crawl.pages).toHaveLength(25);
    expect(crawl.total).toBe(25);
    expect(crawl.next).toBeUndefined();
    expect(new Set(crawl.pages.map((p) => p.url)).size).toBe(25);
    expect(seen).toHaveLength(25);
    expect(seen[0]).toMatch(/^0:/);
    expect(SITE_PAGES).toBeGreaterThan(25);
  });

  it('crawlAndWait gives up with job_timeout after timeoutMs, naming the crawl', async () => {
    const client = new Unfurl({ baseUrl: s.url, apiKey });
    const err = await client.web
      .crawlAndWait({ url: `${s.site.url}/docs`, limit: 50 }, { timeoutMs: 1, intervalMs: 50 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnfurlError);
    expect((err as UnfurlError).code).toBe('job_timeout');
    expect((err as UnfurlError).message).toMatch(/^Crawl job_\w+ did not end within 1 ms/);
    // The crawl itself goes on: let it end before the server closes.
    const jobId = /^Crawl (job_\w+)/.exec((err as UnfurlError).message)![1]!;
    expect((await client.waitForJob(jobId, { intervalMs: 50 })).status).toBe('completed');
  });
});
