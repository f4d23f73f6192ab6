// The SDK's monitor methods against a real server on a loopback socket, its jobs and monitor clock
// running: a page monitor on a loopback page is created, listed (one page and walked by cursor),
// paused and resumed, checked on demand after the page changed (the check waited for as a job), its
// events read (typed by `type`) and its Atom feed fetched, then deleted; bad input is a typed error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Unfurl as Client,
  type MonitorEvent,
  Unfurl,
  UnfurlError,
} from '../../packages/sdk/src/index.js';
import { uniqueEmail } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { type ClientTestServer, startClientTestServer } from './server.js';

let s: ClientTestServer;
let page: Loopback;
/** The one paragraph of the page that changes. */
let pricing = 'The Pro plan costs 20 dollars a month and includes five seats.';

beforeAll(async () => {
  page = await startServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><html><head><title>Acme pricing</title></head><body><main><article>
<h1>Acme pricing</h1>
<p>Acme makes tools for teams who ship every day. Our plans are simple and billed monthly with no setup fees at all.</p>
<h2>Plans</h2>
<p>${pricing}</p>
<p>The Team plan adds single sign-on, audit logs and priority support for larger organisations.</p>
</article></main></body></html>`);
  });
  s = await startClientTestServer({
    UNFURL_MONITOR_MIN_INTERVAL: '1s',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
  });
});
afterAll(async () => {
  await s?.close();
  await page?.close();
});

async function newClient(): Promise<Client> {
  const registration = await new Unfurl({ baseUrl: s.url }).auth.register({
    email: uniqueEmail('sdk-monitors'),
    password: 'correct horse battery',
  });
  return new Unfurl({ baseUrl: s.url, apiKey: registration.apiKey });
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

/** Waits until the monitor has recorded `checks` checks (its first one runs at once on create). */
async function waitChecks(client: Client, id: string, checks: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const m = await client.monitors.get(id);
    // A check is counted when it records what it found, a moment before its job ends (and is billed).
    const newest = m.lastChecks?.[0];
    if (m.checks >= checks && !(newest && ['queued', 'active'].includes(newest.status))) return m;
    if (Date.now() > deadline) throw new Error(`monitor made ${m.checks} of ${checks} checks`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What a test reads of an event: the diff of a change, the reason of a pause or resume. */
function summary(e: MonitorEvent): string {
  switch (e.type) {
    case 'page.changed':
      return `${e.type}: ${e.data.added}+ ${e.data.removed}-`;
    case 'monitor.paused':
    case 'monitor.resumed':
      return `${e.type}: ${e.data.reason}`;
    default:
      return e.type;
  }
}

describe('monitors through the SDK', () => {
  it('creates, lists, pauses, resumes, checks, reads events and the feed, and deletes', async () => {
    const client = await newClient();
    const target = `${page.url}/pricing`;
    // An hour apart: only the first check (the baseline) and the ones asked for run in this test.
    const created = await client.monitors.create({ kind: 'page', target, every: '1h', name: 'Pricing' });
    expect(created).toMatchObject({
      kind: 'page',
      target,
      every: '1h',
      name: 'Pricing',
      status: 'active',
      pausedReason: null,
    });
    expect(created.id).toMatch(/^mon_/);
    const other = await client.monitors.create({ kind: 'page', target: `${page.url}/other`, every: '1h' });

    const baseline = await waitChecks(client, created.id, 1);
    expect(baseline.lastChecks?.[0]).toMatchObject({ status: 'completed' });

    // One page, then every monitor walked one page at a time, newest first.
    const first = await client.monitors.page({ limit: 1 });
    expect(first.monitors.map((m) => m.id)).toEqual([other.id]);
    expect(first.next).toEqual(expect.any(String));
    const all: string[] = [];
    for await (const m of client.monitors.list({ pageSize: 1 })) all.push(m.id);
    expect(all).toEqual([other.id, created.id]);

    const paused = await client.monitors.pause(created.id);
    expect(paused).toMatchObject({ status: 'paused', pausedReason: 'user' });
    const resumed = await client.monitors.resume(created.id);
    expect(resumed).toMatchObject({ status: 'active', pausedReason: null });

    // The page changes; a check asked for now finds it, as a monitor_check job.
    pricing = 'The Pro plan now costs 25 dollars a month and includes ten seats.';
    const { jobId } = await client.monitors.check(created.id);
    expect(jobId).toMatch(/^job_/);
    const job = await client.waitForJob(jobId, { kind: 'monitor_check', intervalMs: 50, timeoutMs: 20_000 });
    expect(job).toMatchObject({ id: jobId, queue: 'monitor_check', status: 'completed' });

    // Newest first, walked one event at a time; `type` says what `data` holds.
    const events: MonitorEvent[] = [];
    for await (const e of client.monitors.events(created.id, { pageSize: 1 })) events.push(e);
    expect(events.map(summary)).toEqual([
      'page.changed: 1+ 1-',
      'monitor.resumed: user',
      'monitor.paused: user',
    ]);
    const change = events[0]!;
    if (change.type !== 'page.changed') throw new Error(`expected page.changed, got ${change.type}`);
    expect(change.jobId).toBe(jobId);
    expect(change.data.url).toBe(target);
    expect(change.data.diff).toContain('+The Pro plan now costs 25 dollars a month and includes ten seats.');
    expect(change.delivery).toBeNull();
    const onePage = await client.monitors.eventsPage(created.id, { limit: 2 });
    expect(onePage.events.map((e) => e.id)).toEqual(events.slice(0, 2).map((e) => e.id));
    expect(onePage.next).toEqual(expect.any(String));

    // The feed: XML, authorised by its token alone; a rotated token stops the old one.
    const token = new URL(created.feedUrl).searchParams.get('token')!;
    const anonymous = new Unfurl({ baseUrl: s.url, apiKey: null });
    const feed = await anonymous.monitors.feed(created.id, token);
    expect(feed).toMatch(/^<\?xml/);
    expect(feed).toContain('<feed');
    expect(feed).toContain('Changed: Acme pricing');
    const rotated = await client.monitors.rotateFeedToken(created.id);
    expect(rotated.feedUrl).not.toBe(created.feedUrl);
    const revoked = await caught(anonymous.monitors.feed(created.id, token));
    expect(revoked).toMatchObject({ code: 'not_found', status: 404 });
    const newToken = new URL(rotated.feedUrl).searchParams.get('token')!;
    expect(await anonymous.monitors.feed(created.id, newToken)).toContain('<feed');

    expect(await client.monitors.delete(created.id)).toEqual({ id: created.id, deleted: true });
    expect(await caught(client.monitors.get(created.id))).toMatchObject({ code: 'not_found', status: 404 });
    const left: string[] = [];
    for await (const m of client.monitors.list()) left.push(m.id);
    expect(left).toEqual([other.id]);
  });

  it('refuses a bad `every` with a typed error naming it, and keeps nothing', async () => {
    const client = await newClient();
    const err = await caught(
      client.monitors.create({ kind: 'page', target: `${page.url}/pricing`, every: 'often' }),
    );
    expect(err).toMatchObject({ code: 'invalid_request', status: 400, details: 'every' });
    const changed = await caught(client.monitors.update('mon_doesnotexist', { every: '1h' }));
    expect(changed).toMatchObject({ code: 'not_found', status: 404 });
    expect((await client.monitors.page()).monitors).toEqual([]);
  });
});
