// The dashboard in real headless Chromium against a real server on a socket: register, create and
// revoke a key (checked against the API), buy a package in test mode and watch the balance change,
// scrape a loopback website and start a crawl from the playground, follow the job to its result, and
// the usage chart. A screenshot of each page goes to test-artifacts/dashboard/.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type JobProcessing, startJobProcessing } from '../../src/jobs/processing.js';
import { createTestApp, type TestApp, uniqueEmail } from '../support/app.js';
import { CHROMIUM_PATH, describeWithChromium } from '../support/chromium.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { repoRoot } from '../support/processes.js';
import { quietLogger } from '../support/quiet-logger.js';
import { closeTestApp } from '../support/teardown.js';

const ARTIFACTS = path.join(repoRoot, 'test-artifacts', 'dashboard');
const PASSWORD = 'correct horse battery';

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
  let userDataDir: string;
  const pageErrors: string[] = [];

  const shot = async (p: Page, name: string) => {
    await p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  };
  const api = async (key: string, urlPath: string) =>
    fetch(`${base}${urlPath}`, { headers: { authorization: `Bearer ${key}` } });
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
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-dashboard-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1200, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    // API error answers are part of the story (the playground's 400); anything else failing is not.
    page.on('response', (res) => {
      if (res.status() >= 400 && !new URL(res.url()).pathname.startsWith('/v1/'))
        pageErrors.push(`${res.status()} ${res.url()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await processing?.stop(2000);
    await closeTestApp(t);
    await site?.close();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
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

    // Buy a package in test mode: the checkout opens in a new tab, and the balance follows.
    await page.getByRole('link', { name: 'Credits' }).click();
    await expect.poll(() => page.getByTestId('credits-balance').textContent()).toBe('100');
    const [checkout] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Buy 500 credits for $5.00' }).click(),
    ]);
    await checkout.waitForURL(/\/v1\/credits\/checkout\/chk_/);
    await checkout.getByText('Test mode — no payment is taken.').waitFor();
    await shot(checkout, '05-test-checkout');
    await checkout.getByRole('button', { name: 'Confirm test purchase' }).click();
    await checkout.getByRole('heading', { name: 'Purchase complete' }).waitFor();
    await checkout.close();
    await expect
      .poll(() => page.getByTestId('credits-balance').textContent(), { timeout: 15_000 })
      .toBe('600');
    await page.getByText('Purchase complete: 500 credits added.').waitFor();
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
    await shot(page, '07-playground-scrape');

    // Playground: a bad parameter is the API's 400, shown as such (and free).
    await page.getByLabel(/^url/).fill('not a url');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => page.getByTestId('play-status').textContent()).toMatch(/^HTTP 400/);
    expect(JSON.parse((await page.getByTestId('play-response').textContent())!).error).toBe(
      'invalid_request',
    );
    expect(await balanceOf(firstKey)).toBe(599);

    // Playground: start a crawl job with a JSON body.
    await page.getByLabel('Operation').selectOption('POST /v1/web/crawl');
    await page.getByLabel('JSON body').fill(JSON.stringify({ url: `${site.url}/`, limit: 2 }));
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect
      .poll(() => page.getByTestId('play-status').textContent(), { timeout: 30_000 })
      .toMatch(/^HTTP 202/);
    const { jobId } = JSON.parse((await page.getByTestId('play-response').textContent())!);
    expect(jobId).toMatch(/^job_/);

    // Jobs: the crawl runs to completion; its result opens from the list.
    await page.getByRole('link', { name: 'Jobs' }).click();
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.locator('#jobs-table tr', { hasText: jobId }).locator('.badge').textContent();
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe('completed');
    await page.getByRole('button', { name: jobId }).click();
    await page.getByRole('heading', { name: `Job ${jobId}` }).waitFor();
    expect(JSON.parse((await page.locator('#job-result').textContent())!)).toMatchObject({ pagesScraped: 2 });
    await expect.poll(() => page.getByTestId('job-poll-body').textContent()).toContain('Runner beans');
    const pages = JSON.parse((await page.getByTestId('job-poll-body').textContent())!).pages;
    expect(pages.map((p: { url: string }) => p.url).sort()).toEqual([`${site.url}/`, `${site.url}/beans`]);
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
    expect(await page.locator('#chart svg rect.bar').count()).toBe(24);
    expect(await page.locator('#recent-transactions').textContent()).toContain('purchase');
    await shot(page, '09-overview');

    // Keyboard only: log out, log back in with Enter.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByText('You are logged out.').waitFor();
    // Ended on the server, not only forgotten by the tab.
    expect((await api(sessionToken as string, '/v1/account')).status).toBe(401);
    await page.locator('#login-email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe(String(balance));

    expect(pageErrors).toEqual([]);
    for (const name of ['01-sign-in', '05-test-checkout', '07-playground-scrape', '09-overview']) {
      expect(fs.statSync(path.join(ARTIFACTS, `${name}.png`)).size).toBeGreaterThan(1000);
    }
  }, 180_000);

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
