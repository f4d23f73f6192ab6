// The dashboard in real headless Chromium against a real server on a socket: register, create and
// revoke a key (checked against the API), buy a package in test mode and watch the balance change,
// scrape a loopback website and start a crawl from the playground, follow the job to its result, and
// the usage chart. A screenshot of each page goes to test-artifacts/dashboard/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp, uniqueEmail } from '../support/app.js';
import { describeWithChromium } from '../support/chromium.js';
import { type DashboardBrowser, launchBrowser } from '../support/dashboard-browser.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { repoRoot } from '../support/processes.js';
import { quietLogger } from '../support/quiet-logger.js';
import { closeTestApp } from '../support/teardown.js';

const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'dashboard');
const PASSWORD = 'correct horse battery';
/** A number as the dashboard writes it (en-US grouping in the test browser). */
const fmt = (n: number) => n.toLocaleString('en-US');

const SITE: Record<string, string> = {
  '/': `<!doctype html><html><head><title>Loopback Gardens</title></head><body><main>
<h1>Loopback Gardens</h1><p>${'Tomatoes, beans and squash grow together in the three sisters bed. '.repeat(6)}</p>
<a href="/beans">Beans</a></main></body></html>`,
  '/beans': `<!doctype html><html><head><title>Beans</title></head><body><main><h1>Beans</h1>
<p>${'Runner beans climb the maize stalks and feed the soil with nitrogen. '.repeat(6)}</p></main></body></html>`,
};

/** A port that was free a moment ago: the server's public URL (checkout links) must name it. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeWithChromium('dashboard in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let site: Loopback;
  let processing: JobProcessing;
  let context: BrowserContext;
  let page: Page;
  let browser: DashboardBrowser | undefined;
  const pageErrors: string[] = [];

  const shot = async (p: Page, name: string) => {
    await p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  };
  const api = async (key: string, urlPath: string) =>
    fetch(`${base}${urlPath}`, { headers: { authorization: `Bearer ${key}` } });
  const accountIdOf = (key: string) => keyAccounts.get(key)!;
  const keyAccounts = new Map<string, string>();
  const balanceOf = async (key: string) =>
    ((await (await api(key, '/v1/account')).json()) as { credits: number }).credits;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    site = await startServer((req, res) => {
      const body = SITE[new URL(req.url ?? '/', 'http://x').pathname];
      if (body) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    });
    const port = await freePort();
    t = await createTestApp({
      PORT: String(port),
      UNFURL_PUBLIC_URL: `http://127.0.0.1:${port}`,
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    });
    base = await t.app.listen({ port, host: '127.0.0.1' });
    processing = await startJobProcessing(t.services, quietLogger);
    browser = await launchBrowser('chromium', { width: 1200, height: 900 });
    ({ context, page } = browser);
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    // API error answers are part of the story (the playground's 400); anything else failing is not.
    page.on('response', (res) => {
      if (res.status() >= 400 && !new URL(res.url()).pathname.startsWith('/v1/'))
        pageErrors.push(`${res.status()} ${res.url()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await processing?.stop(2000);
    await closeTestApp(t);
    await site?.close();
  });

  it('registers, manages keys, buys credits, runs the playground and shows jobs and usage', async () => {
    // Sign-in page: landmarks and labelled controls.
    const first = await page.goto(`${base}/`);
    expect(first?.status()).toBe(200);
    expect(first?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Sign in to Unfurl' }).waitFor();
    await shot(page, '01-sign-in');
    // Run in the page (a string: this project's TypeScript has no DOM types).
    const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
      .filter((e) => !e.labels?.length && !e.getAttribute('aria-label'))
      .map((e) => e.id || e.outerHTML)`);
    expect(unlabelled).toEqual([]);
    for (const role of ['banner', 'main', 'contentinfo'] as const) {
      expect(await page.getByRole(role).count(), role).toBe(1);
    }

    // Register: the first key is shown once, and the dashboard runs on a session token.
    const email = uniqueEmail('dash');
    await page.getByLabel('E-mail', { exact: true }).nth(1).fill(email);
    await page
      .getByLabel(/^Password/)
      .nth(1)
      .fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Your first API key' }).waitFor();
    const firstKey = await page.locator('#new-key-value').inputValue();
    expect(firstKey).toMatch(/^uf_[0-9A-Za-z]{20,}$/);
    keyAccounts.set(firstKey, ((await (await api(firstKey, '/v1/account')).json()) as { id: string }).id);
    const sessionToken = await page.evaluate(`JSON.parse(sessionStorage.getItem('unfurl.session')).token`);
    expect(sessionToken).toMatch(/^uf_sess_/);
    expect((await api(firstKey, '/v1/account')).status).toBe(200);
    await expect.poll(() => page.locator('#key-table tbody tr').count()).toBe(1);
    await page.getByRole('navigation', { name: 'Dashboard sections' }).waitFor();
    await shot(page, '02-keys-first-key');

    // Create a key: shown once, works against the API.
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByLabel('New key name').fill('ci-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Your new key “ci-key”' }).waitFor();
    const ciKey = await page.locator('#new-key-value').inputValue();
    expect(ciKey).toMatch(/^uf_/);
    expect(ciKey).not.toBe(firstKey);
    expect((await api(ciKey, '/v1/keys')).status).toBe(200);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toMatch(/Copied|Selected/);
    await expect.poll(() => page.locator('#key-table tbody tr').count()).toBe(2);
    await shot(page, '03-keys-created');

    // Revoke it: the table says so and the API refuses the key.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke key ci-key' }).click();
    await page.locator('#key-table tr', { hasText: 'ci-key' }).locator('.badge.revoked').waitFor();
    expect((await api(ciKey, '/v1/account')).status).toBe(401);
    expect((await api(firstKey, '/v1/account')).status).toBe(200);
    await shot(page, '04-keys-revoked');

    // Sessions: this browser's is marked; another log-in (as the CLI would make) can be ended here.
    const other = (await (
      await fetch(`${base}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: PASSWORD }),
      })
    ).json()) as { token: string };
    await page.getByRole('link', { name: 'Credits' }).click();
    await page.getByRole('link', { name: 'API keys' }).click();
    await expect.poll(() => page.locator('#session-table tbody tr').count()).toBe(2);
    expect(await page.locator('#session-table tbody').textContent()).toContain('this browser');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `End session ${other.token.slice(0, 12)}` }).click();
    await expect.poll(() => page.locator('#session-table tbody tr').count()).toBe(1);
    expect((await api(other.token, '/v1/account')).status).toBe(401);
    expect((await api(sessionToken as string, '/v1/account')).status).toBe(200);

    // A new account's overview: a getting-started card with a curl to copy; no low-balance warning.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByTestId('getting-started').getByRole('heading', { name: 'Get started' }).waitFor();
    const curl = await page.getByTestId('getting-started-curl').textContent();
    expect(curl).toContain(`${base}/v1/web/scrape?url=https://example.com`);
    expect(curl).toContain('Authorization: Bearer $UNFURL_API_KEY');
    expect(await page.getByTestId('low-balance').isVisible()).toBe(false);
    await shot(page, '04b-overview-new-account');

    // Buy a package in test mode: the checkout opens in a new tab, and the balance follows.
    await page.getByRole('link', { name: 'Credits' }).click();
    await expect.poll(() => page.getByTestId('credits-balance').textContent()).toBe('100');
    // The server runs in test mode, and the page says so before anything is bought.
    await expect
      .poll(() => page.getByTestId('credits-mode').textContent())
      .toMatch(/^Test mode: this server takes no payment/);
    const [checkout] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Buy 500 credits for $5.00' }).click(),
    ]);
    await checkout.waitForURL(/\/v1\/credits\/checkout\/chk_/);
    await checkout.getByText('Test mode — no payment is taken.').waitFor();
    await shot(checkout, '05-test-checkout');
    await checkout.getByRole('button', { name: 'Confirm test purchase' }).click();
    await checkout.getByRole('heading', { name: 'Purchase complete' }).waitFor();
    // The result page leads back to the dashboard's credits.
    expect(await checkout.getByRole('link', { name: /Back to your credits/ }).getAttribute('href')).toBe(
      '/#/credits',
    );
    await shot(checkout, '05b-checkout-done');
    await checkout.close();
    await expect
      .poll(() => page.getByTestId('credits-balance').textContent(), { timeout: 15_000 })
      .toBe('600');
    await page.getByText('Purchase complete: 500 credits added.').waitFor();
    // Shown as a success, not as a neutral notice.
    expect(await page.locator('#checkout-status').getAttribute('class')).toContain('ok');
    expect(await balanceOf(firstKey)).toBe(600);
    await shot(page, '06-credits');

    // Playground: scrape the loopback site with the session.
    await page.getByRole('link', { name: 'Playground' }).click();
    await expect.poll(() => page.locator('#play-op option').count()).toBeGreaterThan(10);
    await page.getByLabel('Operation').selectOption('GET /v1/web/scrape');
    await page.getByLabel(/^url/).fill(`${site.url}/`);
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect
      .poll(() => page.getByTestId('play-status').textContent(), { timeout: 30_000 })
      .toMatch(/^HTTP 200/);
    expect(await page.locator('dd[data-header="x-credits-charged"]').textContent()).toBe('1');
    expect(await page.locator('dd[data-header="x-credits-remaining"]').textContent()).toBe('599');
    const scraped = JSON.parse((await page.getByTestId('play-response').textContent())!);
    expect(scraped.url).toBe(`${site.url}/`);
    expect(scraped.content).toContain('three sisters bed');
    expect(await page.locator('#play-curl').textContent()).toContain('/v1/web/scrape?url=');
    // The page's Markdown, rendered; the same call in JavaScript (our SDK) and Python.
    await page.locator('#play-preview-box summary').click();
    expect(await page.getByTestId('play-preview').locator('p').first().textContent()).toContain(
      'three sisters bed',
    );
    await page.getByRole('button', { name: 'JavaScript (SDK)' }).click();
    const js = (await page.getByTestId('play-snippet').textContent())!;
    expect(js).toContain("import { Unfurl } from '@unfurl/sdk';");
    expect(js).toContain('await unfurl.web.scrape({');
    expect(js).toContain(`"url": "${site.url}/"`);
    await shot(page, '07b-playground-js');
    await page.getByRole('button', { name: 'Python' }).click();
    const py = (await page.getByTestId('play-snippet').textContent())!;
    expect(py).toContain('requests.request(');
    expect(py).toContain('params={');
    await page.getByRole('button', { name: 'curl' }).click();
    await shot(page, '07-playground-scrape');

    // Playground: a bad parameter is the API's 400, shown as such (and free).
    await page.getByLabel(/^url/).fill('not a url');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => page.getByTestId('play-status').textContent()).toMatch(/^HTTP 400/);
    expect(JSON.parse((await page.getByTestId('play-response').textContent())!).error).toBe(
      'invalid_request',
    );
    expect(await balanceOf(firstKey)).toBe(599);

    // Playground: start a crawl job with a JSON body. Another operation forgets the last answer.
    await page.getByLabel('Operation').selectOption('POST /v1/web/crawl');
    expect(await page.getByTestId('play-response').textContent()).toBe('');
    expect(await page.getByTestId('play-status').textContent()).toBe('No request sent yet.');
    // The API's own operations are listed before account plumbing.
    const groups = await page
      .locator('#play-op optgroup')
      .evaluateAll((gs) => gs.map((g) => g.getAttribute('label')));
    expect(groups.indexOf('Web')).toBeLessThan(groups.indexOf('Accounts'));
    expect(groups.indexOf('Videos')).toBeLessThan(groups.indexOf('Credits'));
    await page.getByLabel('JSON body').fill(JSON.stringify({ url: `${site.url}/`, limit: 2 }));
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect
      .poll(() => page.getByTestId('play-status').textContent(), { timeout: 30_000 })
      .toMatch(/^HTTP 202/);
    const { jobId } = JSON.parse((await page.getByTestId('play-response').textContent())!);
    expect(jobId).toMatch(/^job_/);
    // The job id links to the job.
    expect(
      await page
        .getByTestId('play-links')
        .getByRole('link', { name: `open ${jobId} in Jobs` })
        .getAttribute('href'),
    ).toBe(`#/jobs?id=${jobId}`);

    // Jobs: the list refreshes by itself while the crawl runs (no click), showing its kind and URL;
    // the crawl's result opens from the list as its pages, each with a Markdown preview.
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    const row = page.locator('#jobs-table tr', { hasText: jobId });
    await expect
      .poll(() => row.locator('.badge').textContent(), { timeout: 60_000, interval: 250 })
      .toBe('completed');
    expect(await row.locator('.kind').textContent()).toBe('crawl');
    expect(await row.locator('a.url').getAttribute('href')).toBe(`${site.url}/`);
    await page.getByRole('link', { name: jobId }).click();
    await page.getByRole('heading', { name: `Job ${jobId}` }).waitFor();
    const crawled = page.getByTestId('crawl-pages').locator(':scope > li');
    await expect.poll(() => crawled.count()).toBe(2);
    expect(await page.getByTestId('crawl-pages').textContent()).not.toContain('\\n');
    const beans = crawled.filter({ hasText: `${site.url}/beans` });
    await beans.locator('summary').click();
    await expect.poll(() => beans.locator('.markdown p').first().textContent()).toContain('Runner beans');
    expect(await page.getByRole('button', { name: 'Download JSON' }).isVisible()).toBe(true);
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download JSON' }).click(),
    ]);
    const downloaded = JSON.parse(fs.readFileSync((await file.path())!, 'utf8'));
    expect(downloaded.map((p: { url: string }) => p.url).sort()).toEqual([
      `${site.url}/`,
      `${site.url}/beans`,
    ]);
    // The Markdown as a zip of one file per page, read back by Python's zipfile (CRCs checked).
    const [zipped] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download Markdown (.zip)' }).click(),
    ]);
    expect(zipped.suggestedFilename()).toBe(`${jobId}.zip`);
    const unzip = spawnSync(
      'python3',
      [
        '-c',
        'import json,sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(json.dumps({n: z.read(n).decode() for n in z.namelist()}))',
        (await zipped.path())!,
      ],
      { encoding: 'utf8' },
    );
    expect(unzip.status, unzip.stderr).toBe(0);
    const entries = JSON.parse(unzip.stdout) as Record<string, string>;
    expect(Object.keys(entries).sort()).toEqual(['beans.md', 'index.md']);
    expect(entries['beans.md']).toMatch(
      new RegExp(`^---\\nurl: ${site.url}/beans\\ntitle: "Beans"\\n---\\n\\n(# Beans\\n\\n)?Runner beans`),
    );
    expect(await page.locator('#jobs-live').textContent()).toBe('');
    await shot(page, '08-jobs');

    // Overview: the balance the API reports, and the chart counts what was spent.
    const balance = await balanceOf(firstKey);
    expect(balance).toBeLessThan(599);
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe(String(balance));
    const spent = 600 - balance; // 100 granted + 500 bought, everything else spent
    await expect.poll(() => page.locator('#spent-total').textContent()).toBe(String(spent));
    expect(await page.locator('#chart svg rect.bar').count()).toBe(30);
    expect(await page.locator('#chart svg desc').textContent()).toContain(`${spent} credits spent`);
    await page.getByLabel('Range', { exact: true }).selectOption('24h');
    // The range's summary is fetched anew.
    await expect.poll(() => page.locator('#chart svg rect.bar').count()).toBe(24);
    // One row per request or job: the crawl is one row linking to its job, nothing says hold/release.
    const activityText = (await page.locator('#recent-transactions').textContent())!;
    expect(activityText).toContain('purchase');
    expect(activityText).not.toMatch(/\bhold\b|\brelease\b|Release:/);
    expect(await page.locator('#recent-transactions a', { hasText: jobId }).count()).toBe(1);
    expect(await page.locator('#recent-transactions tr', { hasText: jobId }).textContent()).toMatch(
      /Crawl job[^(]*http/,
    );
    expect(await page.getByTestId('getting-started').isVisible()).toBe(false);
    await shot(page, '09-overview');

    // A low balance is pointed out, with a way to buy more.
    await t.services.ledger.clawback(accountIdOf(firstKey), balance - 5, 'test: spend down');
    await page.getByRole('link', { name: 'Credits' }).click();
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect
      .poll(() => page.getByTestId('low-balance').textContent())
      .toContain('Your balance is low: 5 credits left.');
    await shot(page, '09b-low-balance');
    await page.getByRole('button', { name: 'Buy credits' }).click();
    await page.getByRole('heading', { name: 'Credits' }).waitFor();

    // Settings: the webhook secret is shown on demand and rotated; the password is changed.
    await page.getByRole('link', { name: 'Settings' }).click();
    const secretBox = page.getByTestId('webhook-secret');
    const accountNow = async () =>
      (await (await api(firstKey, '/v1/account')).json()) as { webhookSecret: string };
    const oldSecret = (await accountNow()).webhookSecret;
    await expect.poll(() => secretBox.inputValue()).toBe(oldSecret);
    expect(await secretBox.getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await secretBox.getAttribute('type')).toBe('text');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Rotate' }).click();
    await expect.poll(() => secretBox.inputValue()).not.toBe(oldSecret);
    expect(await secretBox.inputValue()).toBe((await accountNow()).webhookSecret);
    const NEW_PASSWORD = 'an even better passphrase';
    await page.getByLabel('Current password').fill('wrong password here');
    await page
      .getByLabel(/^New password/)
      .first()
      .fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    // Password hashing is slow on purpose: give it time on a busy machine.
    await expect
      .poll(() => page.locator('#password-error').textContent(), { timeout: 20_000 })
      .toMatch(/current password is not right/);
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect
      .poll(() => page.getByTestId('password-status').textContent(), { timeout: 20_000 })
      .toMatch(/^Password changed\./);
    await shot(page, '10-settings');

    // Keyboard only: log out, log back in (with the new password) with Enter.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You are logged out.').waitFor();
    // Ended on the server, not only forgotten by the tab.
    expect((await api(sessionToken as string, '/v1/account')).status).toBe(401);
    await page.locator('#login-email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe('5');

    expect(pageErrors).toEqual([]);
    for (const name of ['01-sign-in', '05-test-checkout', '07-playground-scrape', '09-overview']) {
      expect(fs.statSync(path.join(ARTIFACTS, `${name}.png`)).size).toBeGreaterThan(1000);
    }
  }, 180_000);

  it('charts, totals and breaks down by operation an account with thousands of transactions in range', async () => {
    // 800 scrapes (hold, release, settled: 1 credit each) and 400 crawls (hold 5, settle 3): 3,600
    // transactions in the last hour, far past the 1,000 the chart once read.
    const { email, accountId } = await t.register(uniqueEmail('busy'));
    const { ledger } = t.services;
    await ledger.grant(accountId, 5000, 'Operator grant: load');
    for (let i = 0; i < 800; i++) {
      await ledger.holdRequest(accountId, `req_busy_${i}`, 1, 'Scrape', 'scrape');
      await ledger.endRequest(accountId, `req_busy_${i}`, 1, 'Scrape');
    }
    for (let i = 0; i < 400; i++) {
      await ledger.hold(accountId, `job_busy_${i}`, 5, 1, 'Hold for crawl job', 'crawl');
      await ledger.settleJob(accountId, `job_busy_${i}`, 3, 'crawl job', 'crawl');
    }
    const spent = 800 + 400 * 3;
    expect(await ledger.balance(accountId)).toBe(100 + 5000 - spent);

    const tab = await context.newPage(); // a fresh tab: its own session storage, so signed out
    tab.on('pageerror', (err) => pageErrors.push(String(err)));
    await tab.goto(`${base}/`);
    await tab.locator('#login-email').fill(email);
    await tab.locator('#login-email').press('Tab');
    await tab.keyboard.type(PASSWORD);
    await tab.keyboard.press('Enter');
    await tab.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => tab.locator('#spent-total').textContent()).toBe(fmt(spent));
    expect(await tab.locator('#chart svg desc').textContent()).toContain(`${fmt(spent)} credits spent`);
    const breakdown = async () =>
      (await tab.getByTestId('operation-breakdown').locator('tbody tr').allTextContents()).map((r) =>
        r.replace(/\s+/g, ' '),
      );
    await expect.poll(breakdown).toEqual([`crawl${fmt(1200)}60 %`, `scrape${fmt(800)}40 %`]);
    // The last 24 hours hold all of it too, hour by hour.
    await tab.getByLabel('Range', { exact: true }).selectOption('24h');
    await expect.poll(() => tab.locator('#chart svg rect.bar').count()).toBe(24);
    expect(await tab.locator('#spent-total').textContent()).toBe(fmt(spent));
    await shot(tab, '10-overview-busy');
    await tab.close();
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('/docs is branded: our title, mark and colours over Swagger UI, no parameter with a default marked required', async () => {
    const docs = await context.newPage();
    try {
      await docs.goto(`${base}/docs`);
      expect(await docs.title()).toBe('Unfurl API · docs');
      const logo = docs.locator('.topbar-wrapper img');
      await logo.waitFor();
      expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
      const bar = await docs.evaluate(
        "getComputedStyle(document.querySelector('.swagger-ui .topbar')).backgroundColor",
      );
      expect(bar).toBe('rgb(16, 35, 63)');
      await docs.locator('#operations-Web-scrape').click();
      const render = docs.locator('#operations-Web-scrape tr[data-param-name="render"]');
      await render.waitFor();
      // Swagger UI marks a required parameter with an asterisk after its name.
      expect(await render.textContent()).toMatch(/^render(?!\s*\*)/);
      const url = docs.locator('#operations-Web-scrape tr[data-param-name="url"]');
      expect(await url.textContent()).toMatch(/^url\s*\*/);
      await shot(docs, '11-docs');
    } finally {
      await docs.close();
    }
  });

  it('serves its files with revalidation and refuses names outside the allow-list', async () => {
    const js = await fetch(`${base}/dashboard/main.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = js.headers.get('etag')!;
    expect((await fetch(`${base}/dashboard/main.js`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    expect((await fetch(`${base}/dashboard/nope.js`)).status).toBe(404);
    expect((await fetch(`${base}/dashboard/..%2Fplugin.ts`)).status).toBe(400);
    // The page's own address is public and is not part of the API reference.
    const spec = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths).filter((p) => p === '/' || p.startsWith('/dashboard'))).toEqual([]);
  });
});
