// The SDK against a real server on a loopback socket: accounts, keys, credits, typed errors, the
// web and video-platform methods, jobs (waitForJob on the poll route of each kind, abort, timeout,
// failure) and the iterators (crawl pages following `next`, jobs walked by offset).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Unfurl as Client, isJobAccepted, Unfurl, UnfurlError } from '../../packages/sdk/src/index.js';
import { uniqueEmail } from '../support/app.js';
import { confirmCheckoutAt } from '../support/checkout.js';
import { standInKinds } from '../support/test-kinds.js';
import { CAPTURED_QUERY, CONSTRUCTED_CHANNEL } from '../support/youtube-replay.js';
import { type ClientTestServer, SITE_PAGES, startClientTestServer } from './server.js';

let s: ClientTestServer;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  s = await startClientTestServer();
});
afterAll(async () => {
  await s?.close();
});

/** A client with a fresh account, and a fetch that records every request it sends. */
async function newClient(): Promise<{ client: Client; requests: string[]; email: string }> {
  const requests: string[] = [];
  const recording: typeof fetch = (input, init) => {
    requests.push(`${init?.method ?? 'GET'} ${String(input).replace(s.url, '')}`);
    return fetch(input, init);
  };
  const email = uniqueEmail('sdk');
  const registration = await new Unfurl({ baseUrl: s.url }).auth.register({ email, password: PASSWORD });
  const client = new Unfurl({ baseUrl: s.url, apiKey: registration.apiKey, fetch: recording });
  return { client, requests, email };
}

async function caught(promise: Promise<unknown>): Promise<UnfurlError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(UnfurlError);
    return err as UnfurlError;
  }
  throw new Error('expected an UnfurlError');
}

/** Buys 500 credits in test mode (confirmed with its page's token, as the README shows from a shell). */
async function topUp(client: Client) {
  const checkout = await client.credits.purchase('credits_500');
  const res = await confirmCheckoutAt(s.url, checkout.id);
  expect(res.status).toBe(200);
}

/** Creates a job of a test kind through the test-only route (the kinds are echo stand-ins). */
async function testJob(client: Client, kind: string, input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${s.url}/v1/test/jobs/${kind}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { jobId: string }).jobId;
}

describe('accounts, keys and credits', () => {
  it('registers, logs in, reads the account and manages keys', async () => {
    const anonymous = new Unfurl({ baseUrl: `${s.url}/` });
    const email = uniqueEmail('sdk');
    const reg = await anonymous.auth.register({ email, password: PASSWORD });
    expect(reg).toMatchObject({ email, credits: 100 });
    expect(reg.apiKey).toMatch(/^uf_/);

    const session = await anonymous.auth.login({ email, password: PASSWORD });
    expect(session.token).toMatch(/^uf_sess_/);
    const bySession = new Unfurl({ baseUrl: s.url, apiKey: session.token });
    const account = await bySession.account.get();
    expect(account).toMatchObject({ id: reg.accountId, email, credits: 100 });

    const created = await bySession.keys.create('ci');
    expect(created.key).toMatch(/^uf_/);
    const keys = await bySession.keys.list();
    expect(keys.map((k) => k.id).sort()).toEqual([reg.keyId, created.id].sort());

    const second = new Unfurl({ baseUrl: s.url, apiKey: created.key });
    expect((await second.account.get()).id).toBe(reg.accountId);
    const revoked = await bySession.keys.revoke(created.id);
    expect(revoked).toMatchObject({ id: created.id, revoked: true });
    const err = await caught(second.account.get());
    expect(err).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(err.requestId).toMatch(/^req_/);
    expect(err.message).toBeTruthy();
  });

  it('lists and ends sessions: revokeSession one, logout the current one', async () => {
    const { client, email } = await newClient();
    const anonymous = new Unfurl({ baseUrl: s.url });
    const [a, b] = await Promise.all([1, 2].map(() => anonymous.auth.login({ email, password: PASSWORD })));
    const bySession = new Unfurl({ baseUrl: s.url, apiKey: a!.token });
    const listed = await bySession.auth.sessions();
    expect(listed).toHaveLength(2);
    const current = listed.find((x) => x.current)!;
    expect(a!.token.startsWith(current.prefix)).toBe(true);

    const other = listed.find((x) => !x.current)!;
    expect(await client.auth.revokeSession(other.id)).toMatchObject({ id: other.id, revoked: true });
    const gone = await caught(new Unfurl({ baseUrl: s.url, apiKey: b!.token }).account.get());
    expect(gone).toMatchObject({ code: 'unauthorized', status: 401 });

    expect(await bySession.auth.logout()).toMatchObject({ id: current.id, revoked: true });
    expect(await caught(bySession.account.get())).toMatchObject({ status: 401 });
    expect(await client.auth.sessions()).toEqual([]);
    // An API key cannot log out: it is revoked by id, never by surprise.
    expect(await caught(client.auth.logout())).toMatchObject({ code: 'forbidden', status: 403 });
  });

  it('lists packages without a key, purchases, and pages the usage history', async () => {
    const packages = await new Unfurl({ baseUrl: s.url }).credits.packages();
    expect(packages.map((p) => p.id)).toContain('credits_500');
    const { client } = await newClient();
    const checkout = await client.credits.purchase('credits_500');
    expect(checkout).toMatchObject({ packageId: 'credits_500', credits: 500, priceUsd: '5.00' });
    expect(checkout.checkoutUrl).toMatch(/^http/);
    const usage = await client.account.usage({ limit: 5, type: 'grant' });
    expect(usage).toMatchObject({ limit: 5, offset: 0, total: 1 });
    expect(usage.transactions[0]).toMatchObject({ type: 'grant', amount: 100, job_id: null, operation: '' });
    expect(usage.next).toBeNull();
    const summary = await client.account.usageSummary({ bucket: 'hour', from: Date.now() - 3_600_000 });
    expect(summary).toMatchObject({ bucket: 'hour', totals: { granted: 100, spent: 0, net: 100 } });
    expect(summary.buckets.length).toBeGreaterThanOrEqual(2);
  });
});

describe('typed errors', () => {
  it('carries code, status, message, details and request id of the error body', async () => {
    const { client } = await newClient();
    const err = await caught(client.account.usage({ limit: 1000 }));
    expect(err).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(err.message).toMatch(/limit/);
    expect(err.requestId).toMatch(/^req_/);
    const missing = await caught(client.jobs.get('job_doesnotexist'));
    expect(missing).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('answers 402 insufficient_credits when the balance cannot pay for a job', async () => {
    const { client } = await newClient();
    // A crawl runs on whatever pages the balance pays for: only one below 2 credits is refused.
    const { id: accountId } = await client.account.get();
    await s.t.services.ledger.clawback(accountId, 99, 'test: leave one credit');
    const err = await caught(client.web.crawl({ url: `${s.site.url}/docs`, limit: 500 }));
    expect(err).toMatchObject({ code: 'insufficient_credits', status: 402 });
    expect(err.message).toMatch(/credits\/packages/);
  });

  it('reports an unreachable server as network_error with status 0', async () => {
    const closed = await (await import('../support/loopback.js')).startServer((_q, r) => r.end());
    const url = closed.url;
    await closed.close();
    const err = await caught(new Unfurl({ baseUrl: url, apiKey: 'uf_x' }).account.get());
    expect(err).toMatchObject({ code: 'network_error', status: 0 });
  });
});

describe('web', () => {
  it('scrapes and maps a page, and reports the credits the answer charged', async () => {
    const { client } = await newClient();
    const page = await client.web.scrape({ url: `${s.site.url}/docs/p/3` });
    expect(page.name).toBe('Page 3');
    expect(page.content).toContain('Text of page number 3');
    expect(client.lastCredits).toEqual({ charged: 1, held: null, remaining: 99 });
    const map = await client.web.map({ url: `${s.site.url}/docs`, sitemap: 'skip' });
    expect(map.urls).toContain(`${s.site.url}/docs/p/${SITE_PAGES - 1}`);
  });

  it('crawls: crawlPages yields every page once, following next past the first answer', async () => {
    const { client, requests } = await newClient();
    await topUp(client);
    const { jobId } = await client.web.crawl({ url: `${s.site.url}/docs`, limit: 150 });
    const urls: string[] = [];
    for await (const page of client.crawlPages(jobId, { intervalMs: 50 })) urls.push(page.url);
    expect(urls.length).toBe(SITE_PAGES + 1);
    expect(new Set(urls).size).toBe(urls.length);
    const done = await client.waitForJob(jobId, { kind: 'crawl', intervalMs: 50 });
    expect(done.status).toBe('completed');
    expect(done.total).toBe(SITE_PAGES + 1);
    // Read again once finished: more pages than fit one answer (100), so the iterator must ask
    // again from where `next` pointed (while the crawl ran, answers were cut wherever it stood).
    requests.length = 0;
    const again: string[] = [];
    for await (const page of client.crawlPages(jobId, { intervalMs: 50 })) again.push(page.url);
    expect(again).toEqual(urls);
    expect(requests.some((r) => /\/v1\/web\/crawl\/job_\w+\?skip=100$/.test(r))).toBe(true);
  });
});

describe('the video-sharing platform (replay server)', () => {
  it('reads a transcript, video metadata and a channel', async () => {
    const { client } = await newClient();
    const answer = await client.transcript({
      url: 'https://www.youtube.com/watch?v=GJLlxj_dtq8',
      mode: 'native',
    });
    expect(isJobAccepted(answer)).toBe(false);
    if (isJobAccepted(answer)) return;
    expect(Array.isArray(answer.content)).toBe(true);
    expect(answer.availableLangs.length).toBeGreaterThan(0);
    const text = await client.vidsite.transcript({ videoId: 'GJLlxj_dtq8', text: true, mode: 'native' });
    expect(isJobAccepted(text) ? null : typeof text.content).toBe('string');
    const video = await client.vidsite.video('GJLlxj_dtq8');
    expect(video.id).toBe('GJLlxj_dtq8');
    const channel = await client.vidsite.channel(CONSTRUCTED_CHANNEL);
    expect(channel.id).toBe(CONSTRUCTED_CHANNEL);
  });

  it('translates a transcript, reads a playlist and a post, searches, and reads /v1/me', async () => {
    const { client, requests } = await newClient();
    const translated = await client.vidsite.translate({ videoId: 'GJLlxj_dtq8', lang: 'nl' });
    expect(translated.lang).toBe('nl');
    expect(Array.isArray(translated.content)).toBe(true);
    const playlist = await client.vidsite.playlist('PLzMcBGfZo4-mP7qA9cagf68V06sko5otr');
    expect(playlist.id).toBe('PLzMcBGfZo4-mP7qA9cagf68V06sko5otr');
    expect(typeof playlist.title).toBe('string');
    const meta = await client.metadata('https://www.youtube.com/watch?v=GJLlxj_dtq8');
    expect(meta).toMatchObject({ platform: 'youtube', type: 'video', id: 'GJLlxj_dtq8' });
    const found = await client.vidsite.search({ query: CAPTURED_QUERY, features: ['hd'] });
    expect(found.query).toBe(CAPTURED_QUERY);
    expect(found.results.length).toBeGreaterThan(0);
    // A repeated parameter for each feature, as the route reads them.
    expect(requests.some((r) => r.startsWith('GET /v1/vidsite/search?') && r.includes('features=hd'))).toBe(
      true,
    );
    const me = await client.account.me();
    expect(me.plan).toBe('self-hosted');
    // 100 free credits; translate, playlist, metadata and one search page cost 1 each.
    expect(me.usedCredits).toBe(4);
    expect(me.maxCredits - me.usedCredits).toBe((await client.account.get()).credits);
  });

  it('runs a video batch and waits for it on the batch poll route', async () => {
    const { client, requests } = await newClient();
    const { jobId } = await client.vidsite.videoBatch({ videoIds: ['GJLlxj_dtq8', 'nosuchvid01'] });
    const done = await client.waitForJob(jobId, { intervalMs: 50, resolveFailed: true });
    expect(done.status).toBe('completed');
    expect(requests).toContain(`GET /v1/vidsite/batch/${jobId}`);
    const batch = await client.vidsite.batch(jobId);
    // Asked again once ended: the batch poll answer, not the job summary it was watched on.
    expect(await client.waitForJob(jobId)).toEqual(batch);
    expect(batch.stats.total).toBe(2);
    expect(batch.results.map((r) => r.videoId)).toEqual(['GJLlxj_dtq8', 'nosuchvid01']);
  });
});

describe('jobs', () => {
  it('waitForJob polls the route of each kind and answers its shape', async () => {
    const { client, requests } = await newClient();
    const polls: Record<string, string> = {
      transcript: '/v1/transcript/',
      ocr: '/v1/video/ocr/',
      describe: '/v1/video/describe/',
      extract: '/v1/extract/',
    };
    // The kinds still played by the echo stand-in; a kind whose real capability landed is left to its tests.
    const kinds = standInKinds(s.t.services.jobs.registry).filter((k) => k in polls);
    for (const kind of kinds) {
      const jobId = await testJob(client, kind, { value: `v-${kind}`, sleepMs: 100 });
      const done = (await client.waitForJob(jobId, { intervalMs: 30 })) as unknown as Record<string, unknown>;
      expect(done.status).toBe('completed');
      expect(requests).toContain(`GET ${polls[kind]}${jobId}`);
      if (kind === 'ocr') expect(done).toMatchObject({ attempts: 1, format: 'json' });
      if (kind === 'extract') expect(done).toMatchObject({ data: { value: `v-${kind}` }, schema: {} });
      // A job that has already ended answers the same shape at once.
      expect(await client.waitForJob(jobId)).toEqual(done);
    }
    // A kind without a poll route of its own is waited for at /v1/jobs/{jobId}.
    const echo = await testJob(client, 'echo', { value: 'plain' });
    const job = (await client.waitForJob(echo, { intervalMs: 30 })) as unknown as {
      result: { value: string };
    };
    expect(job.result.value).toBe('plain');
  });

  it('rejects with job_failed, carrying the failed answer', async () => {
    const { client } = await newClient();
    const jobId = await testJob(client, 'echo', { value: 'x', permanent: true });
    const err = await caught(client.waitForJob(jobId, { intervalMs: 30 }));
    expect(err.code).toBe('job_failed');
    expect(err.message).toMatch(/permanent failure for x/);
    expect((err.job as { status: string }).status).toBe('failed');
  });

  it('cancelJob stops a running job; waitForJob rejects with job_cancelled; an ended job is a conflict', async () => {
    const { client, requests } = await newClient();
    const jobId = await testJob(client, 'echo', { value: 'long', sleepMs: 30_000, estimate: 4, cost: 4 });
    const waiting = caught(client.waitForJob(jobId, { intervalMs: 30 }));
    // Let it start, then stop it.
    for (let i = 0; i < 200 && (await client.jobs.get(jobId)).status !== 'active'; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const cancelled = await client.cancelJob(jobId);
    expect(cancelled).toMatchObject({ id: jobId, status: 'cancelled', credits: 0 });
    expect(requests).toContain(`POST /v1/jobs/${jobId}/cancel`);
    const err = await waiting;
    expect(err.code).toBe('job_cancelled');
    expect((err.job as { status: string }).status).toBe('cancelled');
    const resolved = await client.waitForJob(jobId, { resolveFailed: true });
    expect((resolved as { status: string }).status).toBe('cancelled');
    expect((await client.account.get()).credits).toBe(100);
    const again = await caught(client.jobs.cancel(jobId));
    expect(again).toMatchObject({ code: 'conflict', status: 409, details: 'status=cancelled' });
    expect((await caught(client.cancelJob('job_unknown'))).code).toBe('not_found');
  });

  it('stops at the timeout with job_timeout', async () => {
    const { client } = await newClient();
    const jobId = await testJob(client, 'echo', { value: 'slow', sleepMs: 5000 });
    const started = Date.now();
    const err = await caught(client.waitForJob(jobId, { timeoutMs: 300, intervalMs: 50 }));
    expect(err.code).toBe('job_timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops at once when its signal aborts, with the signal reason', async () => {
    const { client } = await newClient();
    const jobId = await testJob(client, 'echo', { value: 'slow', sleepMs: 5000 });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('user gave up')), 200);
    await expect(client.waitForJob(jobId, { signal: controller.signal, intervalMs: 5000 })).rejects.toThrow(
      'user gave up',
    );
    // Aborted mid-pause: it did not sit out the 5 s interval.
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('jobs.list walks every job by cursor, newest first', async () => {
    const { client, requests } = await newClient();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await testJob(client, 'echo', { value: `n${i}` }));
    const seen: string[] = [];
    for await (const job of client.jobs.list({ pageSize: 2 })) seen.push(job.id);
    expect(seen).toEqual([...ids].reverse());
    const listed = requests.filter((r) => r.startsWith('GET /v1/jobs?'));
    expect(listed).toHaveLength(3);
    expect(listed[0]).toBe('GET /v1/jobs?limit=2&offset=0');
    for (const r of listed.slice(1)) expect(r).toMatch(/^GET \/v1\/jobs\?limit=2&cursor=[\w-]+$/);
    const page = await client.jobs.page({ limit: 1 });
    expect(page.total).toBe(5);
  });

  it('replays a job for the same Idempotency-Key', async () => {
    const { client } = await newClient();
    const body = { url: `${s.site.url}/docs/p/1`, limit: 1 };
    const a = await client.web.crawl(body, { idempotencyKey: 'same-key-1' });
    const b = await client.web.crawl(body, { idempotencyKey: 'same-key-1' });
    expect(b.jobId).toBe(a.jobId);
  });
});
