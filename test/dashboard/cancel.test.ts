// The dashboard's Cancel button, in real headless Chromium against a real server running real
// crawls of a slow loopback site: a running job's row offers Cancel, which (once confirmed) stops it
// on the server; the job's detail panel offers the same. Screenshots go to test-artifacts/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
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

describeWithChromium('dashboard: cancelling a job in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let site: Loopback;
  let processing: JobProcessing;
  let page: Page;
  let browser: DashboardBrowser | undefined;
  const pageErrors: string[] = [];
  const dialogs: string[] = [];

  const shot = (name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    // Every page takes 200 ms and links to 50 more: a crawl runs for a while.
    site = await startServer((req, res) => {
      const p = new URL(req.url ?? '/', 'http://x').pathname;
      if (p === '/robots.txt') return res.writeHead(404).end();
      const links = Array.from({ length: 50 }, (_, i) => `<a href="${p.replace(/\/$/, '')}/${i}">${i}</a>`);
      setTimeout(() => {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>${p}</title></head><body><p>Page ${p}</p>${links.join(' ')}</body></html>`,
          );
      }, 200);
    });
    t = await createTestApp({
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_CRAWL_CONCURRENCY: '2',
      UNFURL_CRAWL_HOST_CONCURRENCY: '2',
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    processing = await startJobProcessing(t.services, quietLogger);
    browser = await launchBrowser('cancel', { width: 1200, height: 900 });
    page = browser.page;
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await processing?.stop(2000);
    await closeTestApp(t);
    await site?.close();
  });

  it('cancels a running crawl from its row and another from its detail panel', async () => {
    const { email, apiKey } = await t.register();
    const crawl = async (n: number) => {
      const res = await t.call(apiKey, {
        method: 'POST',
        url: '/v1/web/crawl',
        payload: { url: `${site.url}/site${n}`, limit: 40 },
      });
      expect(res.statusCode).toBe(202);
      return res.json().jobId as string;
    };
    const job = async (id: string) => (await t.call(apiKey, { method: 'GET', url: `/v1/jobs/${id}` })).json();
    const first = await crawl(1);
    const second = await crawl(2);

    await page.goto(`${base}/`);
    await page.locator('#login-email').fill(email);
    await page.locator('#login-password').fill('correct horse battery');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('link', { name: 'Jobs' }).click();

    // Both crawls run: each row offers Cancel.
    const row = (id: string) => page.locator('#jobs-table tr', { hasText: id });
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return row(first).locator('.badge').textContent();
        },
        { timeout: 20_000, interval: 300 },
      )
      .toBe('active');
    await page.waitForTimeout(600); // a few pages in
    await page.getByRole('button', { name: 'Refresh' }).click();
    await row(first)
      .getByRole('button', { name: `Cancel job ${first}` })
      .waitFor();
    await shot('10-jobs-running');

    await row(first)
      .getByRole('button', { name: `Cancel job ${first}` })
      .click();
    await expect
      .poll(() => row(first).locator('.badge').textContent(), { timeout: 10_000 })
      .toBe('cancelled');
    expect(dialogs[0]).toContain(`Cancel job ${first}?`);
    expect(
      await row(first)
        .getByRole('button', { name: /^Cancel/ })
        .count(),
    ).toBe(0);
    const one = await job(first);
    expect(one.status).toBe('cancelled');
    expect(one.credits).toBe(1 + one.result.pagesScraped);
    // The list shows what the crawl cost: the pages it kept, not its hold.
    // Columns: job, kind, URL, status, created, duration, credits.
    expect((await row(first).locator('td').nth(6).textContent())?.trim()).toBe(String(one.credits));
    await shot('11-jobs-cancelled');

    // The detail panel of a running job has the same button.
    await row(second).getByRole('link', { name: second, exact: true }).click();
    await page.getByRole('heading', { name: `Job ${second}` }).waitFor();
    const detailCancel = page.getByRole('button', { name: 'Cancel job', exact: true });
    expect(await detailCancel.isVisible()).toBe(true);
    await detailCancel.click();
    await expect
      .poll(() => page.locator('#job-fields').textContent(), { timeout: 10_000 })
      .toContain('cancelled');
    expect(await detailCancel.isVisible()).toBe(false);
    expect((await job(second)).status).toBe('cancelled');
    await shot('12-job-detail-cancelled');

    // The filter finds them.
    await page.getByLabel('Status').selectOption('cancelled');
    await expect.poll(() => page.locator('#jobs-table tbody tr').count()).toBe(2);
    expect(pageErrors).toEqual([]);
  }, 120_000);
});
