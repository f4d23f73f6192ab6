// The Monitors page in real headless Chromium against a real server running real checks of a
// loopback page: create a page monitor through the form, watch its timeline get the page.changed
// event (a diff drawn line by line, removed red-ish and added green-ish, its section named, its
// webhook delivered), a hostile diff shown as text, the feed URL copied, older events paged in, and
// pause, check now and delete from the list. One screenshot goes to /tmp/monitors-dashboard.png.
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { describeWithChromium } from '../support/chromium.js';
import { type DashboardBrowser, launchBrowser } from '../support/dashboard-browser.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { quietLogger } from '../support/quiet-logger.js';
import { closeTestApp } from '../support/teardown.js';

const PASSWORD = 'correct horse battery';
const SCREENSHOT = path.join('/tmp', 'monitors-dashboard.png');
const OLD_LINE = 'The Pro plan costs 20 dollars a month and includes five seats.';
const HOSTILE = '<img src=x onerror=alert(1)>';
/** The new paragraph as the page writes it (HTML), and as its Markdown (so the diff) has it. */
const NEW_HTML =
  'The Pro plan now costs 25 dollars a month <code>&lt;img src=x onerror=alert(1)&gt;</code> and includes ten seats.';
const NEW_LINE = `The Pro plan now costs 25 dollars a month \`${HOSTILE}\` and includes ten seats.`;

describeWithChromium('the Monitors page in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let site: Loopback;
  let processing: JobProcessing;
  let context: BrowserContext;
  let page: Page;
  let browser: DashboardBrowser | undefined;
  let pricing = OLD_LINE;
  const hooks: string[] = [];
  const pageErrors: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    site = await startServer((req, res) => {
      if (req.method === 'POST') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          hooks.push(Buffer.concat(chunks).toString('utf8'));
          res.writeHead(200).end('ok');
        });
        return;
      }
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/pricing') return void res.writeHead(404).end();
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><title>Acme pricing</title></head><body><main><article>
<h1>Acme pricing</h1>
<p>Acme makes tools for teams who ship every day. Our plans are simple and billed monthly with no setup fees.</p>
<h2>Plans</h2>
<p>${pricing}</p>
<p>The Team plan adds single sign-on, audit logs and priority support for larger organisations.</p>
<h2>Questions</h2>
<p>Can I change plans later? Yes, at any time; the difference is prorated to the day you switch.</p>
</article></main></body></html>`);
    });
    t = await createTestApp({
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_MONITOR_MIN_INTERVAL: '1s',
      UNFURL_MONITOR_POLL_MS: '50',
      UNFURL_JOB_POLL_MS: '50',
      UNFURL_JOB_BACKOFF_MS: '50',
      UNFURL_WEBHOOK_RETRY_BASE_MS: '50',
      UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '100000',
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    processing = await startJobProcessing(t.services, quietLogger);
    browser = await launchBrowser('monitors', { width: 1280, height: 900 });
    ({ context, page } = browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('response', (res) => {
      if (res.status() >= 400 && !new URL(res.url()).pathname.startsWith('/v1/'))
        pageErrors.push(`${res.status()} ${res.url()}`);
    });
    // A confirm is accepted (deleting asks first); anything else (an alert from a diff) is recorded.
    page.on('dialog', (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await processing?.stop(2000);
    await closeTestApp(t);
    await site?.close();
  });

  it('creates a page monitor, shows its change as a diff, pages events, pauses, checks and deletes', async () => {
    const { email, apiKey } = await t.register();
    const api = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
      const res = await t.call(apiKey, { method, url, ...(payload && { payload }) });
      return { status: res.statusCode, body: res.body ? res.json() : null };
    };

    await page.goto(`${base}/`);
    await page.locator('#login-email').fill(email);
    await page.locator('#login-password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    // The navigation has Monitors; an account without any says so.
    await page
      .getByRole('navigation', { name: 'Dashboard sections' })
      .getByRole('link', { name: 'Monitors' })
      .click();
    await page.getByRole('heading', { name: 'Monitors', exact: true }).waitFor();
    expect(await page.title()).toBe('Monitors · Unfurl');
    await expect.poll(() => page.locator('#monitor-table').textContent()).toContain('No monitors yet');

    // The form: a site shows its extra, a page does not; a missing target is said, not sent.
    await page.locator('#monitor-kind').selectOption('site');
    expect(await page.locator('#monitor-site-pages').isVisible()).toBe(true);
    await page.locator('#monitor-kind').selectOption('page');
    expect(await page.locator('#monitor-site-pages').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Create monitor' }).click();
    expect(await page.locator('#monitor-error').textContent()).toBe('Say what to watch.');

    await page.getByLabel('Target').fill(`${site.url}/pricing`);
    await page.getByLabel(/^Every/).fill('1s');
    await page.getByLabel(/^Name/).fill('Acme pricing');
    await page.getByLabel(/^Webhook URL/).fill(`${site.url}/hook`);
    await page.getByRole('button', { name: 'Create monitor' }).click();
    await page.getByRole('heading', { name: 'Monitor: Acme pricing' }).waitFor();
    const listed = (await api('GET', '/v1/monitors')).body.monitors as Array<Record<string, unknown>>;
    expect(listed).toHaveLength(1);
    const monitor = listed[0]!;
    expect(monitor).toMatchObject({
      kind: 'page',
      target: `${site.url}/pricing`,
      every: '1s',
      name: 'Acme pricing',
    });
    expect(monitor.webhookUrl).toBe(`${site.url}/hook`);
    const id = String(monitor.id);
    expect(page.url()).toBe(`${base}/#/monitors?id=${id}`);

    const row = page.locator('#monitor-table tbody tr', { hasText: 'Acme pricing' });
    expect(await row.locator('td').nth(1).textContent()).toBe('page');
    expect(await row.locator('td').nth(2).textContent()).toBe('active');
    expect(await row.locator('td').nth(3).textContent()).toBe('1s');

    // The feed URL, copied with its button.
    expect(await page.getByLabel(/^Atom feed/).inputValue()).toBe(monitor.feedUrl);
    await page.getByRole('button', { name: 'Copy the feed URL' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(monitor.feedUrl);

    // A few checks of the same page (the baseline, nothing reported), then the paragraph changes.
    const checksOf = async () => Number((await api('GET', `/v1/monitors/${id}`)).body.checks);
    await expect.poll(checksOf, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    expect((await api('GET', `/v1/monitors/${id}/events`)).body.events).toEqual([]);
    pricing = NEW_HTML;

    // The timeline picks the change up on its own (it refreshes while the monitor is active).
    const changed = page.locator('#monitor-events li[data-type="page.changed"]');
    await changed.waitFor({ timeout: 45_000 });
    const [event] = (await api('GET', `/v1/monitors/${id}/events`)).body.events;
    expect(event.type).toBe('page.changed');
    // The hostile text reached the browser as it was in the diff.
    expect(event.data.diff).toContain(`+${NEW_LINE}`);
    expect(NEW_LINE).toContain(HOSTILE);
    expect(await changed.locator('.event-line').textContent()).toBe(
      'Page changed: Acme pricing · 1 line added, 1 removed',
    );
    const removed = changed.locator('.diff .diff-del');
    const added = changed.locator('.diff .diff-add');
    expect(await removed.allTextContents()).toEqual([`-${OLD_LINE}`]);
    expect(await added.allTextContents()).toEqual([`+${NEW_LINE}`]);
    // Context and hunk lines are there too, neither red nor green.
    expect(await changed.locator('.diff .diff-hunk').count()).toBeGreaterThan(0);
    expect(await changed.locator('.diff .diff-ctx', { hasText: 'Team plan' }).count()).toBe(1);
    // Added lines green-ish, removed red-ish.
    // (Run in the page: this project's TypeScript has no DOM types.)
    type Styles = { getComputedStyle(node: unknown): { backgroundColor: string } };
    const rgb = async (loc: typeof added) =>
      (await loc.evaluate((n) => (globalThis as unknown as Styles).getComputedStyle(n).backgroundColor))
        .match(/\d+/g)!
        .map(Number);
    const [ar, ag] = await rgb(added.first());
    const [rr, rg] = await rgb(removed.first());
    expect(ag).toBeGreaterThan(ar!);
    expect(rr).toBeGreaterThan(rg!);
    // Text, not markup: no image anywhere on the page, no alert.
    expect(await page.locator('img').count()).toBe(0);
    expect(await changed.locator('.diff').innerHTML()).toContain('&lt;img src=x onerror=alert(1)&gt;');
    // The changed section by name, and the webhook's state once it is delivered.
    expect(await changed.getByTestId('sections').textContent()).toMatch(/^Section: .*Plans/);
    await expect
      .poll(() => changed.locator('.delivery').textContent(), { timeout: 20_000 })
      .toMatch(/^Webhook delivered /);
    expect(hooks).toHaveLength(1);
    expect(await changed.locator('.event-meta a').getAttribute('href')).toBe(`#/jobs?id=${event.jobId}`);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // Dark: the diff keeps its colours; 390 px wide: the page never scrolls sideways.
    await page.emulateMedia({ colorScheme: 'dark' });
    const [dar, dag] = await rgb(added.first());
    const [drr, drg] = await rgb(removed.first());
    expect(dag).toBeGreaterThan(dar!);
    expect(drr).toBeGreaterThan(drg!);
    expect([dar, dag]).not.toEqual([ar, ag]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: '/tmp/monitors-dashboard-dark-narrow.png', fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });

    // Older events come with "Show older events": 22 pause/resume events push the change off the
    // first page (20) of a freshly opened timeline.
    for (let i = 0; i < 11; i++) {
      expect((await api('PATCH', `/v1/monitors/${id}`, { paused: true })).status).toBe(200);
      expect((await api('PATCH', `/v1/monitors/${id}`, { paused: false })).status).toBe(200);
    }
    expect((await api('GET', `/v1/monitors/${id}/events?limit=100`)).body.events).toHaveLength(23);
    await page.reload();
    const items = page.locator('#monitor-events > li');
    await expect.poll(() => items.count()).toBe(20);
    expect(await changed.count()).toBe(0);
    expect(await items.first().locator('.event-line').textContent()).toBe('Resumed by you');
    expect(await items.nth(1).locator('.event-line').textContent()).toBe('Paused by you');
    await page.getByRole('button', { name: 'Show older events' }).click();
    await expect.poll(() => items.count()).toBe(23);
    expect(await items.last().getAttribute('data-type')).toBe('page.changed');
    expect(await page.getByRole('button', { name: 'Show older events' }).isVisible()).toBe(false);

    // Pause from the list: the status says why, the API agrees.
    await page.getByRole('button', { name: 'Pause monitor Acme pricing' }).click();
    await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('paused by you');
    expect((await api('GET', `/v1/monitors/${id}`)).body).toMatchObject({
      status: 'paused',
      pausedReason: 'user',
    });
    await page.getByRole('button', { name: 'Resume monitor Acme pricing' }).waitFor();

    // Check now: a check job starts (and shows among the monitor's last checks).
    await page.getByRole('button', { name: 'Check monitor Acme pricing now' }).click();
    await expect
      .poll(() => page.locator('#monitors-status').textContent())
      .toMatch(/^Check of Acme pricing started: job /);
    const jobId = (await page.locator('#monitors-status').textContent())!.match(/job (\S+)\.$/)![1]!;
    await expect
      .poll(async () =>
        ((await api('GET', `/v1/monitors/${id}`)).body.lastChecks as Array<{ jobId: string }>).map(
          (c) => c.jobId,
        ),
      )
      .toContain(jobId);

    // Delete, after confirming: gone from the list and the API.
    await page.getByRole('button', { name: 'Delete monitor Acme pricing' }).click();
    await expect.poll(() => page.locator('#monitor-table').textContent()).toContain('No monitors yet');
    expect(await page.locator('#monitor-detail').isVisible()).toBe(false);
    expect((await api('GET', `/v1/monitors/${id}`)).status).toBe(404);
    expect(dialogs).toEqual([expect.stringMatching(/^confirm: Delete the monitor "Acme pricing"\?/)]);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
