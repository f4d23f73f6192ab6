// A site monitor end to end, on the embedded deployment's job processing: a loopback site whose
// start page links some pages and whose sitemap.xml lists others (the mapper reads both), every page
// carrying a timestamp line that changes on every fetch. With `scrape` and `diff`, the baseline
// reports nothing; then the site adds a page, removes another and edits one paragraph of a third,
// and exactly one `site.changed` event names all three (the edit with its diff), never the noise;
// a further check reports nothing. Without `scrape`, only added and removed pages are reported.
// Each check costs 1 (the map) plus 1 per page scraped.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { disposeEnv } from '../support/job-processes.js';
import { accountWithBalance } from '../support/ledger-state.js';
import { quietLogger } from '../support/quiet-logger.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const PRICING_BEFORE = 'The Pro plan costs 20 dollars a month and includes five seats for your team.';
const PRICING_AFTER = 'The Pro plan now costs 25 dollars a month and includes ten seats for your team.';

/** A small site: `/` links some pages, /sitemap.xml lists others; every page has a timestamp line. */
class Site {
  fetches = 0;
  /** Pages linked from the start page. */
  linked = ['/pricing', '/about', '/blog'];
  /** Pages in the sitemap. */
  listed = ['/pricing', '/blog', '/team'];
  pricing = PRICING_BEFORE;
  readonly requests: string[] = [];
  private readonly server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push(path);
    const n = ++this.fetches;
    if (path === '/robots.txt') return void res.writeHead(404).end();
    if (path === '/sitemap.xml') {
      const urls = this.listed.map((p) => `<url><loc>${this.url(p)}</loc></url>`).join('\n');
      return void res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>`,
        );
    }
    if (path === '/') {
      const links = this.linked.map((p) => `<li><a href="${p}">${p.slice(1)}</a></li>`).join('\n');
      return void this.html(res, 'Acme', `<p>Welcome to Acme.</p><ul>${links}</ul>`, n);
    }
    const live = new Set([...this.linked, ...this.listed]);
    if (!live.has(path))
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    const name = path.slice(1);
    const body =
      path === '/pricing'
        ? `<h2>Plans</h2>\n<p>${this.pricing}</p>\n<p>The Team plan adds single sign-on, audit logs and priority support for larger organisations.</p>`
        : `<p>This is the ${name} page of Acme. It says the same thing on every visit, in a few plain sentences.</p>\n<p>Acme makes tools for teams who ship every day, and this ${name} page tells you more about them.</p>`;
    this.html(res, `Acme ${name}`, body, n);
  });

  private html(res: http.ServerResponse, title: string, body: string, n: number) {
    // The noise: a timestamp line that differs on every fetch.
    const stamp = new Date(Date.UTC(2026, 10, 28, 10, n % 60, n % 60)).toISOString();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>${title}</title></head><body>
<main><article>
<h1>${title}</h1>
<p>Page generated ${n} minutes ago, at ${stamp}</p>
${body}
</article></main></body></html>`);
  }

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
const scraped = new Site();
const mapped = new Site();

beforeAll(async () => {
  await scraped.start();
  await mapped.start();
  t = await createTestApp({
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
  await scraped.close();
  await mapped.close();
});

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.call(key, { method, url, ...(payload && { payload }) });

interface Check {
  jobId: string;
  status: string;
  cost: number | null;
}

async function eventsOf(id: string) {
  const res = await api('GET', `/v1/monitors/${id}/events?limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().events as Array<{ type: string; data: Record<string, unknown> }>;
}

/** The monitor once the check `jobId` (or its first check) has finished, and that check. */
async function finished(id: string, jobId?: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/v1/monitors/${id}`);
    expect(res.statusCode, res.body).toBe(200);
    const m = res.json();
    const checks = m.lastChecks as Check[];
    const check = jobId ? checks.find((c) => c.jobId === jobId) : checks.at(-1);
    if (check && !['queued', 'active'].includes(check.status)) return { m, check };
    if (Date.now() > deadline) throw new Error(`check ${jobId ?? '(first)'} did not finish: ${res.body}`);
    await sleep(50);
  }
}

/** A check now (the monitors here tick hourly, so the site only changes between checks). */
async function checkNow(id: string) {
  const res = await api('POST', `/v1/monitors/${id}/check`);
  expect(res.statusCode, res.body).toBe(202);
  const jobId = res.json().jobId as string;
  expect(jobId).toBeTruthy();
  return finished(id, jobId);
}

describe('a site monitor', () => {
  it('with scrape and diff reports one change: the page added, the page removed, the paragraph edited', async () => {
    const created = await api('POST', '/v1/monitors', {
      kind: 'site',
      target: scraped.url('/'),
      every: '1h',
      scrape: true,
      diff: true,
      limit: 20,
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;

    // The baseline: the map (1) and the four pages scraped (4); nothing reported.
    const baseline = await finished(id);
    expect(baseline.check).toMatchObject({ status: 'completed', cost: 5 });
    expect(await eventsOf(id)).toEqual([]);

    // Nothing but the noise changed: nothing is reported (and the pages were fetched again).
    const fetchesBefore = scraped.fetches;
    const quiet = await checkNow(id);
    expect(quiet.check).toMatchObject({ status: 'completed', cost: 5 });
    expect(scraped.fetches).toBeGreaterThan(fetchesBefore);
    expect(await eventsOf(id)).toEqual([]);

    // A page added (in the sitemap), one removed (from the sitemap; it answers 404 now), one edited.
    scraped.listed = ['/pricing', '/blog', '/careers'];
    scraped.pricing = PRICING_AFTER;
    const changed = await checkNow(id);
    expect(changed.check).toMatchObject({ status: 'completed', cost: 5 });
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(['site.changed']);
    const data = events[0]!.data;
    expect(data.added).toEqual([scraped.url('/careers')]);
    expect(data.removed).toEqual([scraped.url('/team')]);
    const pages = data.changed as Array<{ url: string; diff?: string }>;
    expect(pages.map((p) => p.url)).toEqual([scraped.url('/pricing')]);
    const diff = String(pages[0]!.diff);
    expect(diff).toContain(`-${PRICING_BEFORE}`);
    expect(diff).toContain(`+${PRICING_AFTER}`);
    expect(diff).not.toMatch(/^[-+].*(generated|minutes ago)/m);

    // And then nothing more, however the timestamps move.
    const after = await checkNow(id);
    expect(after.check).toMatchObject({ status: 'completed', cost: 5 });
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(['site.changed']);
    expect(after.m.checks).toBe(4);
    await api('DELETE', `/v1/monitors/${id}`);
  });

  it('on its own schedule, reports the change once and then nothing', async () => {
    const site = new Site();
    await site.start();
    try {
      const created = await api('POST', '/v1/monitors', {
        kind: 'site',
        target: site.url('/'),
        every: '1s',
        scrape: true,
        diff: true,
        limit: 20,
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      await finished(id);
      const waitChecks = async (n: number) => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const m = (await api('GET', `/v1/monitors/${id}`)).json();
          if (m.checks >= n) return m;
          if (Date.now() > deadline) throw new Error(`${m.checks} of ${n} checks`);
          await sleep(50);
        }
      };
      await waitChecks(3);
      expect(await eventsOf(id)).toEqual([]);
      // Changed between two scheduled checks (all at once: a check may not see half of it).
      site.pricing = PRICING_AFTER;
      site.listed = ['/pricing', '/blog', '/careers'];
      const now = (await api('GET', `/v1/monitors/${id}`)).json().checks as number;
      await waitChecks(now + 3);
      const events = await eventsOf(id);
      // One check may have mapped the site before the change and scraped /pricing after it: then the
      // edit and the new pages come in two events. Either way each finding is reported exactly once.
      expect(events.every((e) => e.type === 'site.changed')).toBe(true);
      const all = (k: string) => events.flatMap((e) => (e.data[k] as Array<unknown>) ?? []);
      expect(all('added')).toEqual([site.url('/careers')]);
      expect(all('removed')).toEqual([site.url('/team')]);
      expect(all('changed').map((p) => (p as { url: string }).url)).toEqual([site.url('/pricing')]);
      await api('PATCH', `/v1/monitors/${id}`, { paused: true });
      await api('DELETE', `/v1/monitors/${id}`);
    } finally {
      await site.close();
    }
  });

  it('scrapes fewer pages on a short balance without reporting the others removed (or added back)', async () => {
    // A balance short of the hold (1 + limit) fits the check to it: fewer pages scraped. The map
    // itself costs 1 whatever it finds, so the site's pages are all still there and none is removed.
    const site = new Site();
    await site.start();
    const ownKey = key;
    try {
      const account = await accountWithBalance(t, 50);
      key = account.apiKey;
      const created = await api('POST', '/v1/monitors', {
        kind: 'site',
        target: site.url('/'),
        every: '1h',
        scrape: true,
        limit: 20,
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().id as string;
      expect((await finished(id)).check).toMatchObject({ status: 'completed', cost: 5 });

      const balance = await t.services.ledger.balance(account.accountId);
      await t.services.ledger.clawback(account.accountId, balance - 3, 'test: a short balance');
      const short = await checkNow(id);
      expect(short.check.status).toBe('completed');
      await t.services.ledger.grant(account.accountId, 50, 'test: credits again');
      const full = await checkNow(id);
      expect(full.check).toMatchObject({ status: 'completed', cost: 5 });
      // The site never changed: nothing to report.
      const events = await eventsOf(id);
      expect(events.map((e) => ({ type: e.type, added: e.data.added, removed: e.data.removed }))).toEqual([]);
      await api('DELETE', `/v1/monitors/${id}`);
    } finally {
      key = ownKey;
      await site.close();
    }
  });

  it('without scrape reports the pages added and removed only, for the map alone', async () => {
    const created = await api('POST', '/v1/monitors', {
      kind: 'site',
      target: mapped.url('/'),
      every: '1h',
      limit: 20,
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const baseline = await finished(id);
    expect(baseline.check).toMatchObject({ status: 'completed', cost: 1 });
    // Only the start page, robots.txt and the sitemap were fetched: no page was scraped.
    expect(new Set(mapped.requests)).toEqual(new Set(['/', '/robots.txt', '/sitemap.xml']));

    mapped.linked = ['/pricing', '/about', '/blog', '/jobs'];
    mapped.listed = ['/pricing', '/blog'];
    mapped.pricing = PRICING_AFTER;
    const changed = await checkNow(id);
    expect(changed.check).toMatchObject({ status: 'completed', cost: 1 });
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(['site.changed']);
    expect(events[0]!.data.added).toEqual([mapped.url('/jobs')]);
    expect(events[0]!.data.removed).toEqual([mapped.url('/team')]);
    expect(events[0]!.data).not.toHaveProperty('changed');

    const after = await checkNow(id);
    expect(after.check).toMatchObject({ status: 'completed', cost: 1 });
    expect((await eventsOf(id)).map((e) => e.type)).toEqual(['site.changed']);
    expect(new Set(mapped.requests)).toEqual(new Set(['/', '/robots.txt', '/sitemap.xml']));
    await api('DELETE', `/v1/monitors/${id}`);
  });
});
