// A page monitor end to end, on the embedded deployment's clock: a loopback site whose page carries
// a rotating ad, a timestamp and a token in its links on every fetch, and changes one paragraph
// once. Exactly one `page.changed` event (with that paragraph's diff) reaches the webhook receiver,
// signed; the noise never does. Also gone/back, the events list, the Atom feed and its token, pause.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { disposeEnv } from '../support/job-processes.js';
import { type ChatCall, type OpenAiServer, startOpenAiServer } from '../support/openai-server.js';
import { quietLogger } from '../support/quiet-logger.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The site: a page whose noise changes on every fetch; `pricing` is the one real paragraph that changes. */
class Site {
  fetches = 0;
  pricing = 'The Pro plan costs 20 dollars a month and includes five seats.';
  status = 200;
  readonly hooks: Array<{ body: string; headers: http.IncomingHttpHeaders }> = [];
  private readonly server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.hooks.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.writeHead(200).end('ok');
      });
      return;
    }
    this.fetches++;
    if (this.status !== 200)
      return void res.writeHead(this.status, { 'content-type': 'text/html' }).end('<h1>gone</h1>');
    const n = this.fetches;
    const token = `${n}a9f3c${(n * 7919).toString(16)}e2b7d41c`;
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Acme pricing</title></head><body>
<main><article>
<h1>Acme pricing</h1>
<p>Updated ${n} minutes ago — ${new Date(Date.UTC(2026, 10, 28, 10, n % 60, 0)).toISOString()}</p>
<p>Acme makes tools for teams who ship every day. Our plans are simple and billed monthly with no setup fees at all.</p>
<h2>Plans</h2>
<p>${this.pricing}</p>
<p>The Team plan adds single sign-on, audit logs and priority support for larger organisations.</p>
<p>Sponsored: ${['Try Widgets today', 'Gadgets on sale now', 'Sprockets for everyone', 'Cogs half price'][n % 4]} — offer ${n * 37}</p>
<p>Read the <a href="/docs?token=${token}">documentation</a> or <a href="/contact?session=${token}">contact sales</a> for a quote.</p>
<h2>Questions</h2>
<p>Can I change plans later? Yes, at any time; the difference is prorated to the day you switch.</p>
</article></main></body></html>`);
  });
  port = 0;
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let t: TestApp;
let processing: JobProcessing;
let key: string;
let ai: OpenAiServer;
const site = new Site();
const fieldsSite = new Site();

/** The "model": reads the price and the seats from the page it is sent, answers them as JSON. */
function readsThePage(call: ChatCall): string {
  const price = /costs (\d+) dollars/.exec(call.text)?.[1];
  const seats = /includes (\w+) seats/.exec(call.text)?.[1];
  return JSON.stringify({ price: price ? Number(price) : null, seats: seats ?? null });
}

beforeAll(async () => {
  await site.start();
  await fieldsSite.start();
  ai = await startOpenAiServer();
  ai.chat = readsThePage;
  t = await createTestApp({
    UNFURL_AI_BASE_URL: ai.baseUrl,
    UNFURL_AI_API_KEY: 'sk-test-key',
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '50',
    UNFURL_WEBHOOK_RETRY_BASE_MS: '50',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
  });
  processing = await startJobProcessing(t.services, quietLogger);
  ({ apiKey: key } = await t.register());
});

afterAll(async () => {
  await t.app.close();
  await processing.stop();
  await t.services.close();
  await disposeEnv(t.env);
  await site.close();
  await fieldsSite.close();
  await ai.close();
});

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.call(key, { method, url, ...(payload && { payload }) });

async function eventsOf(id: string) {
  const res = await api('GET', `/v1/monitors/${id}/events?limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().events as Array<{
    type: string;
    data: Record<string, unknown>;
    delivery: { status: string } | null;
  }>;
}

const isRunning = (check: { status: string } | undefined) =>
  check !== undefined && ['queued', 'active'].includes(check.status);

async function waitChecks(id: string, checks: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/v1/monitors/${id}`);
    const m = res.json();
    // A check is counted when it records what it found, a moment before its job ends (and is billed).
    if (m.checks >= checks && !isRunning(m.lastChecks[0])) return m;
    if (Date.now() > deadline) throw new Error(`monitor made ${m.checks} of ${checks} checks: ${res.body}`);
    await sleep(50);
  }
}

describe('a page monitor', () => {
  it('reports one change among rotating noise, to the webhook and the feed', async () => {
    const created = await api('POST', '/v1/monitors', {
      kind: 'page',
      target: site.url('/pricing'),
      every: '1s',
      webhookUrl: site.url('/hook'),
    });
    expect(created.statusCode, created.body).toBe(201);
    const m = created.json();
    expect(m).toMatchObject({ kind: 'page', status: 'active', every: '1s', checks: 0 });

    await waitChecks(m.id, 4);
    expect(await eventsOf(m.id)).toEqual([]);

    site.pricing = 'The Pro plan now costs 25 dollars a month and includes ten seats.';
    const before = (await waitChecks(m.id, 0)).checks;
    await waitChecks(m.id, before + 4);
    const events = await eventsOf(m.id);
    expect(events.map((e) => e.type)).toEqual(['page.changed']);
    const diff = String(events[0]!.data.diff);
    expect(diff).toContain('-The Pro plan costs 20 dollars a month and includes five seats.');
    expect(diff).toContain('+The Pro plan now costs 25 dollars a month and includes ten seats.');
    expect(diff).not.toMatch(/^[-+].*(Sponsored|Updated|token=)/m);

    const deadline = Date.now() + 10_000;
    while (!site.hooks.length && Date.now() < deadline) await sleep(50);
    expect(site.hooks).toHaveLength(1);
    const hook = JSON.parse(site.hooks[0]!.body);
    expect(hook.type).toBe('page.changed');
    expect(hook.data.monitorId).toBe(m.id);
    expect(site.hooks[0]!.headers['webhook-signature']).toMatch(/^v1,/);

    const feed = await t.app.inject({
      method: 'GET',
      url: new URL(m.feedUrl).pathname + new URL(m.feedUrl).search,
    });
    expect(feed.statusCode).toBe(200);
    expect(feed.headers['content-type']).toContain('application/atom+xml');
    expect(feed.body).toContain('The Pro plan now costs 25 dollars');
    const wrong = await t.app.inject({ method: 'GET', url: `/v1/monitors/${m.id}/feed.atom?token=nope` });
    expect(wrong.statusCode).toBe(404);

    const paused = await api('PATCH', `/v1/monitors/${m.id}`, { paused: true });
    expect(paused.json()).toMatchObject({ status: 'paused', pausedReason: 'user', nextCheckAt: null });
  });

  it('extracts the fields of its schema and reports which changed, from → to', async () => {
    const before = (await api('GET', '/v1/account')).json().credits;
    const created = await api('POST', '/v1/monitors', {
      kind: 'page',
      target: fieldsSite.url('/pricing'),
      every: '1s',
      schema: {
        type: 'object',
        properties: { price: { type: 'number' }, seats: { type: 'string' } },
        required: ['price', 'seats'],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const m = created.json();
    const baseline = await waitChecks(m.id, 1);
    expect(baseline.lastChecks.at(-1)).toMatchObject({ status: 'completed', cost: 3 });
    expect(before - (await api('GET', '/v1/account')).json().credits).toBeGreaterThanOrEqual(3);

    fieldsSite.pricing = 'The Pro plan now costs 25 dollars a month and includes ten seats.';
    const deadline = Date.now() + 20_000;
    let events = await eventsOf(m.id);
    while (!events.length && Date.now() < deadline) {
      await sleep(100);
      events = await eventsOf(m.id);
    }
    expect(events.map((e) => e.type)).toEqual(['page.changed']);
    expect(events[0]!.data.fields).toEqual([
      { field: 'price', from: 20, to: 25 },
      { field: 'seats', from: 'five', to: 'ten' },
    ]);
    expect(events[0]!.data.data).toEqual({ price: 25, seats: 'ten' });
    // The model was sent the page, not the noise's token-bearing links alone.
    expect(ai.chats.at(-1)!.text).toContain('The Pro plan now costs 25 dollars');
    await api('DELETE', `/v1/monitors/${m.id}`);
  });
});
