// The dashboard's rough edges of issue 35, in real headless Chromium against a real server running
// real crawls of a loopback site: what each activity row was about (a request's route, a job's URL, a
// purchase's package and price), every row reachable by paging, the purchase history, a running
// crawl's hold labelled as a hold, a job's fields in words and units, a crawl's pages by URL, Copy
// buttons in the playground, dark mode, narrow screens, the sign-in page saying what Unfurl is and
// the test checkout in the dashboard's clothes. Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { describeWithChromium } from '../support/chromium.js';
import { type DashboardBrowser, launchBrowser } from '../support/dashboard-browser.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { repoRoot } from '../support/processes.js';
import { quietLogger } from '../support/quiet-logger.js';
import { closeTestApp } from '../support/teardown.js';

const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'dashboard');
const PASSWORD = 'correct horse battery';

const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>
<p>${`${body} `.repeat(8)}</p></main></body></html>`;

describeWithChromium('dashboard polish (issue 35) in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let site: Loopback;
  let processing: JobProcessing;
  let context: BrowserContext;
  let page: Page;
  let browser: DashboardBrowser | undefined;
  const pageErrors: string[] = [];
  let releaseSlow: () => void = () => {};

  const shot = (p: Page, name: string) =>
    p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const slow = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    // The start page links to its pages in the order zeta, alpha, mid: crawled in that order, listed
    // by URL. /slow answers only when the test lets it (a crawl that keeps running).
    site = await startServer((req, res) => {
      const p = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (p === '/')
        return send(
          html('Start', 'The start page links to three more.').replace(
            '</main>',
            '<a href="/zeta">Zeta</a> <a href="/alpha">Alpha</a> <a href="/mid">Mid</a></main>',
          ),
        );
      if (['/zeta', '/alpha', '/mid'].includes(p)) return send(html(p.slice(1), `This is the ${p} page.`));
      if (p === '/slow') return void slow.then(() => send(html('Slow', 'At last.')));
      res.writeHead(404).end();
    });
    t = await createTestApp({
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_CRAWL_CONCURRENCY: '1',
      UNFURL_CRAWL_HOST_CONCURRENCY: '1',
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    processing = await startJobProcessing(t.services, quietLogger);
    browser = await launchBrowser('polish', { width: 1280, height: 900 });
    ({ context, page } = browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('response', (res) => {
      if (res.status() >= 400 && !new URL(res.url()).pathname.startsWith('/v1/'))
        pageErrors.push(`${res.status()} ${res.url()}`);
    });
  }, 60_000);

  afterAll(async () => {
    releaseSlow();
    await browser?.close();
    await processing?.stop(2000);
    await closeTestApp(t);
    await site?.close();
  });

  it('says what each row was about, pages, and formats jobs for people', async () => {
    // The sign-in page says what Unfurl is before asking for anything. (Opened at a bookmarked
    // #/overview: logging in there must still leave the sign-in page.)
    await page.goto(`${base}/#/overview`);
    await page.getByRole('heading', { name: 'Sign in to Unfurl' }).waitFor();
    expect(await page.getByTestId('auth-intro').textContent()).toMatch(/^Unfurl is a self-hosted API/);

    const { email, apiKey, accountId } = await t.register();
    const { ledger } = t.services;
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await t.call(apiKey, { method, url, ...(payload && { payload }) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
      return res;
    };
    // 40 older requests (three ledger entries each): more than one page of transactions.
    for (let i = 0; i < 40; i++) {
      const id = `req_older${String(i).padStart(12, '0')}`;
      await ledger.holdRequest(accountId, id, 1, 'Map', 'map');
      await ledger.endRequest(accountId, id, 1, 'Map');
    }
    // A real scrape, a purchase, a crawl that ends and one that keeps running.
    const scrape = await call('GET', `/v1/web/scrape?url=${encodeURIComponent(`${site.url}/alpha`)}`);
    const requestId = String(scrape.headers['x-request-id']);
    expect(requestId).toMatch(/^req_/);
    await ledger.purchase(accountId, 500, 'chk_polishtest00000000001', 'Purchase of credits_500');
    const done = (await call('POST', '/v1/web/crawl', { url: `${site.url}/`, limit: 10 })).json().jobId;
    const job = async (id: string) => (await call('GET', `/v1/jobs/${id}`)).json();
    await expect
      .poll(async () => (await job(done)).status, { timeout: 60_000, interval: 250 })
      .toBe('completed');
    const running = (await call('POST', '/v1/web/crawl', { url: `${site.url}/slow`, limit: 5 })).json().jobId;
    await expect
      .poll(async () => (await job(running)).status, { timeout: 20_000, interval: 100 })
      .toBe('active');

    await page.locator('#login-email').fill(email);
    await page.locator('#login-password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    // Activity: a request shows the route it called, a purchase its package and price.
    const recent = page.locator('#recent-transactions');
    await recent.locator('tbody tr').first().waitFor();
    const scrapeRow = recent.locator('tr', { hasText: requestId });
    expect(await scrapeRow.locator('td').nth(2).textContent()).toBe('GET /v1/web/scrape');
    const purchaseRow = recent.locator('tr', { hasText: 'chk_polishtest00000000001' });
    expect(await purchaseRow.locator('td').nth(1).textContent()).toBe('Bought 500 credits ($5.00)');
    expect(await recent.textContent()).not.toContain('credits_500');
    expect(await recent.locator('tr', { hasText: done }).locator('a.url').getAttribute('href')).toBe(
      `${site.url}/`,
    );
    await shot(page, '20-overview-activity');

    // See all: every entry, paged back by cursor.
    await page.getByRole('link', { name: 'See all activity' }).click();
    await page.getByRole('heading', { name: 'Activity', exact: true }).waitFor();
    const rows = page.locator('#activity-table tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(15);
    const firstPage = await rows.count();
    await page.getByRole('button', { name: 'Show older' }).click();
    await expect.poll(() => rows.count()).toBeGreaterThan(firstPage);
    await expect.poll(() => page.getByRole('button', { name: 'Show older' }).isVisible()).toBe(false);
    // 40 maps, the scrape, two crawls, the purchase and the sign-up grant.
    expect(await rows.count()).toBe(45);
    expect(
      await page.locator('#activity-table tr', { hasText: 'req_older000000000000' }).textContent(),
    ).toContain('GET /v1/web/map');
    await shot(page, '21-activity');

    // Credits: the purchase history.
    await page.getByRole('link', { name: 'Credits' }).click();
    const purchases = page.getByTestId('purchases');
    await purchases.locator('tbody tr').first().waitFor();
    expect(
      (await purchases.locator('tbody tr').allTextContents()).map((r) => r.replace(/\s+/g, ' ')),
    ).toEqual([expect.stringMatching(/500\$5\.00chk_polishtest00000000001$/)]);
    await shot(page, '22-credits-purchases');

    // Jobs: a running crawl's credits are labelled as held, not shown as a charge.
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    const runningRow = page.locator('#jobs-table tr', { hasText: running });
    await runningRow.waitFor();
    const held = (await job(running)).credits as number;
    expect(await runningRow.locator('td').nth(6).textContent()).toBe(`up to ${held} (held)`);
    await runningRow.getByRole('link', { name: running }).click();
    await page.getByRole('heading', { name: `Job ${running}` }).waitFor();
    const fields = page.locator('#job-fields');
    await expect.poll(() => fields.textContent()).toContain('Pages so far');
    expect(await fields.locator('dt', { hasText: 'Credits held' }).count()).toBe(1);
    await shot(page, '23-job-running');

    // A finished job's fields in words and units, as the list has them.
    const doneRow = page.locator('#jobs-table tr', { hasText: done });
    const listDuration = (await doneRow.locator('td').nth(5).textContent())!;
    await doneRow.getByRole('link', { name: done }).click();
    await page.getByRole('heading', { name: `Job ${done}` }).waitFor();
    await expect.poll(() => fields.locator('dd[data-field="durationMs"]').textContent()).toBe(listDuration);
    expect(listDuration).toMatch(/^\d+(\.\d+)? m?s$/);
    const labels = await fields.locator('dt').allTextContents();
    expect(labels).toEqual(
      expect.arrayContaining([
        'Job id',
        'Kind',
        'URL',
        'Status',
        'Created',
        'Finished',
        'Duration',
        'Attempts',
      ]),
    );
    expect(labels).toContain('Credits charged');
    expect(await fields.textContent()).not.toMatch(/durationMs|createdAt|maxAttempts/);

    // Its pages by URL, or in the crawl's own order on request.
    const crawled = page.getByTestId('crawl-pages').locator(':scope > li .hint');
    await expect.poll(() => crawled.count()).toBe(4);
    const urls = async () => (await crawled.allTextContents()).map((s) => s.split(' · ')[0]);
    expect(await urls()).toEqual([
      `${site.url}/`,
      `${site.url}/alpha`,
      `${site.url}/mid`,
      `${site.url}/zeta`,
    ]);
    await page.getByLabel('Order').selectOption('crawl');
    expect((await urls())[0]).toBe(`${site.url}/`);
    expect(new Set(await urls()).size).toBe(4);
    await page.getByLabel('Order').selectOption('url');
    await shot(page, '24-job-detail');

    // The playground's answer and code each have a Copy button that copies them.
    await page.getByRole('link', { name: 'Playground' }).click();
    await expect.poll(() => page.locator('#play-op option').count()).toBeGreaterThan(10);
    await page.getByLabel('Operation').selectOption('GET /v1/web/scrape');
    await page.getByLabel(/^url/).fill(`${site.url}/mid`);
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect
      .poll(() => page.getByTestId('play-status').textContent(), { timeout: 30_000 })
      .toMatch(/^HTTP 200/);
    await page.getByRole('button', { name: 'Copy the response' }).click();
    await expect
      .poll(() => page.evaluate('navigator.clipboard.readText()'))
      .toBe(await page.getByTestId('play-response').textContent());
    await page.getByRole('button', { name: 'Copy the code' }).click();
    await expect
      .poll(() => page.evaluate('navigator.clipboard.readText()'))
      .toBe(await page.getByTestId('play-snippet').textContent());
    expect(await page.getByRole('button', { name: 'Copy the code' }).textContent()).toBe('Copied');

    // Dark mode follows the system's preference.
    const background = () => page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    expect(await background()).toBe('rgb(246, 247, 249)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe('rgb(11, 21, 38)');
    await shot(page, '25-playground-dark');

    // 390 px wide: the page itself never scrolls sideways; a wide table scrolls inside its box.
    await page.setViewportSize({ width: 390, height: 844 });
    const pageWidth = () => page.evaluate('document.documentElement.scrollWidth');
    for (const view of ['jobs', 'overview', 'activity', 'credits', 'keys', 'playground', 'settings']) {
      await page.evaluate(`window.location.hash = '#/${view}'`);
      await page.locator(`[data-view="${view}"]`).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await pageWidth(), view).toBeLessThanOrEqual(390);
    }
    await page.evaluate(`window.location.hash = '#/jobs'`);
    await page.locator('#jobs-table table').waitFor();
    // The list is drawn again after the hash change: wait for the drawn table to overflow its box.
    await page.waitForFunction(
      `(() => { const w = document.querySelector('#jobs-table .table-wrap'); return !!w && w.scrollWidth > w.clientWidth; })()`,
      null,
      { timeout: 10_000 },
    );
    await shot(page, '26-jobs-narrow-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });

    // The test checkout looks like the dashboard, and still says plainly that no payment is taken.
    const { checkoutUrl } = (
      await call('POST', '/v1/credits/purchase', { package_id: 'credits_2000' })
    ).json();
    const checkout = await context.newPage();
    await checkout.goto(checkoutUrl.replace(/^https?:\/\/[^/]+/, base));
    await checkout.getByText('Test mode — no payment is taken.').waitFor();
    expect(await checkout.locator('header').textContent()).toContain('Unfurl');
    expect(await checkout.locator('main .card h1').textContent()).toBe('2000 credits');
    expect(await checkout.evaluate('getComputedStyle(document.body).backgroundColor')).toBe(
      'rgb(246, 247, 249)',
    );
    await checkout.emulateMedia({ colorScheme: 'dark' });
    expect(await checkout.evaluate('getComputedStyle(document.body).backgroundColor')).toBe(
      'rgb(11, 21, 38)',
    );
    await shot(checkout, '27-test-checkout-dark');
    await checkout.close();

    await call('POST', `/v1/jobs/${running}/cancel`);
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
