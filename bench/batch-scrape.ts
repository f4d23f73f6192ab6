// Batch scrape throughput: pages/s of a `batch_scrape` job of BENCH_BATCH_URLS loopback pages
// (default 1000, the synthetic site of bench/lib/site.ts served by a child process) through the job
// engine (createServices on a temp data dir, embedded queue, results stored in SQLite), against a
// bare loop doing the same per-page work in the same run (a pool of the same concurrency, undici
// request + parsePage, nothing stored). Then, when Chromium is there, the same job with the
// `screenshot` format over BENCH_BATCH_SHOTS pages (default 100): each page rendered, captured and
// its PNG stored, against Chromium's own ceiling in the same run (Playwright alone on open pages,
// bareShots()). Goals: ≥ 200 pages/s with markdown, ≥ 20/s with screenshots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { startJobProcessing } from '../src/jobs/processing.js';
import { createServices } from '../src/services.js';
import { parsePage } from '../src/sources/web/page.js';
import { intEnv, startChild } from './lib/http.js';

const URLS = intEnv('BENCH_BATCH_URLS', 1000);
const SHOTS = process.env.BENCH_BATCH_SHOTS === '0' ? 0 : intEnv('BENCH_BATCH_SHOTS', 100);
const CONCURRENCY = intEnv('BENCH_CONCURRENCY', 16);
/** Pages rendered at once (the browser pool, and one account's share of it). */
const RENDERS = intEnv('BENCH_RENDERS', 8);
const quiet = { info() {}, warn() {}, error() {} };

interface Run {
  pages: number;
  seconds: number;
  cpuMs: number;
}

async function timed(fn: () => Promise<number>): Promise<Run> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const pages = await fn();
  const cpu = process.cpuUsage(cpu0);
  return { pages, seconds: (performance.now() - t0) / 1000, cpuMs: (cpu.user + cpu.system) / 1000 };
}

const urlsOf = (site: string, n: number) =>
  Array.from({ length: n }, (_, i) => (i === 0 ? `${site}/` : `${site}/p/${i}`));

/** The job through the engine: submit → completed; answers the pages that succeeded. */
async function job(site: string, n: number, formats: string[]): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-batch-'));
  const services = await createServices(
    loadConfig({
      UNFURL_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_CRAWL_CONCURRENCY: String(CONCURRENCY),
      UNFURL_CRAWL_HOST_CONCURRENCY: String(CONCURRENCY),
      UNFURL_BROWSER_POOL_SIZE: String(RENDERS),
      UNFURL_RENDER_ACCOUNT_MAX: String(RENDERS),
      UNFURL_JOB_POLL_MS: '20',
    }),
  );
  const processing = await startJobProcessing(services, quiet);
  try {
    const { accountId } = await services.accounts.register('bench-batch@example.com', 'bench-password');
    await services.ledger.grant(accountId, 3 * n + 100, 'batch benchmark');
    const input = { urls: urlsOf(site, n), scrapeOptions: { formats }, skipped: {} };
    return await timed(async () => {
      const { jobId } = await services.jobs.service.submit({ accountId, kind: 'batch_scrape', input });
      for (;;) {
        const row = await services.jobs.records.get(jobId);
        if (row?.status === 'completed') {
          const { stats } = JSON.parse(row.result ?? '{}') as {
            stats: { succeeded: number; failed: number };
          };
          if (stats.failed) console.warn(`  ${stats.failed} pages failed`);
          return stats.succeeded;
        }
        if (row?.status === 'failed') throw new Error(`batch job failed: ${row.error}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    });
  } finally {
    await processing.stop();
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The bare loop: the same pages, fetched and parsed, nothing else. */
async function bare(site: string, n: number): Promise<Run> {
  const agent = new Agent({ connections: CONCURRENCY });
  const urls = urlsOf(site, n);
  let next = 0;
  let pages = 0;
  const worker = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      const res = await request(url, { dispatcher: agent });
      const html = await res.body.text();
      if (res.statusCode === 200 && parsePage(html, url).content) pages++;
    }
  };
  try {
    return await timed(async () => {
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      return pages;
    });
  } finally {
    await agent.close();
  }
}

/**
 * Chromium's own ceiling for the screenshot run: the same pages through Playwright alone, RENDERS
 * pages kept open and navigated from one URL to the next (no interception, no wiping, nothing
 * stored) — what no server built on this browser can beat on this machine.
 */
async function bareShots(site: string, n: number, chromiumPath: string): Promise<Run> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  try {
    const pages = await Promise.all(
      Array.from({ length: RENDERS }, async () => (await browser.newContext()).newPage()),
    );
    const urls = urlsOf(site, n);
    let next = 0;
    let shots = 0;
    return await timed(async () => {
      await Promise.all(
        pages.map(async (page) => {
          while (next < urls.length) {
            await page.goto(urls[next++]!, { waitUntil: 'load' });
            if ((await page.screenshot()).length > 0) shots++;
          }
        }),
      );
      return shots;
    });
  } finally {
    await browser.close();
  }
}

const line = (name: string, r: Run) =>
  `${name.padEnd(34)} ${String(r.pages).padStart(5)} pages in ${r.seconds.toFixed(2)} s: ${(r.pages / r.seconds).toFixed(0).padStart(5)} pages/s, ${(r.cpuMs / r.pages).toFixed(2)} ms CPU/page (this process)`;

export async function benchBatchScrape(): Promise<void> {
  console.log(`batch scrape: ${URLS} loopback pages, concurrency ${CONCURRENCY}`);
  const server = await startChild(new URL('./lib/site.ts', import.meta.url), ['site', String(URLS)]);
  try {
    await bare(server.address, Math.min(100, URLS)); // warm-up: JIT, connections
    const base = await bare(server.address, URLS);
    const ours = await job(server.address, URLS, ['markdown']);
    console.log(line('bare fetch + parsePage', base));
    console.log(line('batch_scrape job, markdown', ours));
    console.log(
      `ratio job ÷ bare: ${(ours.pages / ours.seconds / (base.pages / base.seconds)).toFixed(2)} (goal: ≥ 200 pages/s)`,
    );
    const chromium = loadConfig({}).browser.chromiumPath;
    if (SHOTS > 0 && fs.existsSync(chromium)) {
      const ceiling = await bareShots(server.address, SHOTS, chromium);
      const shots = await job(server.address, SHOTS, ['screenshot']);
      console.log(line('bare Playwright goto + screenshot', ceiling));
      console.log(line('batch_scrape job, screenshot', shots));
      console.log(
        `ratio job ÷ bare Playwright: ${(shots.pages / shots.seconds / (ceiling.pages / ceiling.seconds)).toFixed(2)} (goal: ≥ 20 pages/s with screenshots)`,
      );
    } else {
      console.log(`screenshots: skipped (no Chromium at ${chromium}, or BENCH_BATCH_SHOTS=0)`);
    }
  } finally {
    await server.stop();
  }
}
