// Scrape latency through the whole HTTP app, beside a raw fetch of the same page.
//  - baseline: undici GET of the page (a real ~80 KB fixture, BENCH_SCRAPE_FIXTURE, default
//    readability/dropbox-blog) from a loopback server in a child process, body read as text;
//  - uncached: GET /v1/web/scrape?url=…&render=never on the full app (createServices on a temp data
//    dir, buildApp, a real listen on loopback, an account with enough credits), with
//    UNFURL_SCRAPE_CACHE_TTL_SECONDS=0, so each request fetches, extracts and converts the page;
//  - cached: the same against a second app with the default TTL, after one request filled the cache.
// Beside them, parsePage alone on the same HTML in this process: the share of the uncached time that
// is extraction. One request at a time (latency, not load), all interleaved; BENCH_SAMPLES (default 200)
// each after BENCH_WARMUP_SAMPLES (default 20). Client and app share this process (requests are
// serial, so they never compete); the page server is the child's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { createServices } from '../src/services.js';
import { parsePage } from '../src/sources/web/page.js';
import { intEnv, startChild } from './lib/http.js';

const FIXTURE = process.env.BENCH_SCRAPE_FIXTURE ?? 'dropbox-blog';

interface App {
  get(pathAndQuery: string): Promise<string>;
  close(): Promise<void>;
}

async function startApp(credits: number, env: Record<string, string>): Promise<App> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-scrape-'));
  const services = await createServices(
    loadConfig({
      UNFURL_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
      UNFURL_RATE_LIMIT_RPS: '1000000',
      UNFURL_RATE_LIMIT_BURST: '1000000',
      ...env,
    }),
  );
  const app = await buildApp(services, { logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const { accountId, apiKey } = await services.accounts.register(
    'bench-scrape@example.com',
    'bench-password',
  );
  await services.ledger.grant(accountId, credits, 'scrape benchmark');
  const client = new Pool(address, { connections: 1 });
  const headers = { authorization: `Bearer ${apiKey}` };
  return {
    async get(pathAndQuery) {
      const res = await client.request({ method: 'GET', path: pathAndQuery, headers });
      const body = await res.body.text();
      if (res.statusCode !== 200)
        throw new Error(`${pathAndQuery}: HTTP ${res.statusCode} ${body.slice(0, 300)}`);
      return body;
    },
    async close() {
      await client.close();
      await app.close();
      await services.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};

export async function benchScrape(): Promise<void> {
  const samples = intEnv('BENCH_SAMPLES', 200);
  const warmup = intEnv('BENCH_WARMUP_SAMPLES', 20);
  const file = path.resolve(
    import.meta.dirname,
    '../../shared/fixtures/web/readability',
    FIXTURE,
    'source.html',
  );
  const html = fs.readFileSync(file, 'utf8');
  const size = Buffer.byteLength(html);
  console.log(
    `\n## scrape — GET /v1/web/scrape?render=never of a ${(size / 1024).toFixed(0)} KB page (readability/${FIXTURE}) ` +
      `served from a child process; ${samples} serial requests each after ${warmup} warm-up, interleaved`,
  );
  const server = await startChild(new URL('./lib/site.ts', import.meta.url), ['file', file]);
  const pageUrl = `${server.address}/page.html`;
  const credits = samples + warmup + 10;
  const uncached = await startApp(credits, { UNFURL_SCRAPE_CACHE_TTL_SECONDS: '0' });
  const cached = await startApp(credits, {});
  const raw = new Pool(server.address, { connections: 1 });
  const scrapePath = `/v1/web/scrape?url=${encodeURIComponent(pageUrl)}&render=never`;
  const sides: Array<{ label: string; run: () => Promise<unknown>; times: number[] }> = [
    {
      label: 'raw undici GET of the page (baseline)',
      run: async () => (await raw.request({ method: 'GET', path: '/page.html' })).body.text(),
      times: [],
    },
    { label: 'scrape, uncached (TTL 0)', run: () => uncached.get(scrapePath), times: [] },
    { label: 'scrape, cached', run: () => cached.get(scrapePath), times: [] },
  ];
  // Where the uncached time goes: the extraction alone, in this process, on the same HTML. Timed in a
  // loop of its own: right before a request, its garbage would be collected on that request's time.
  const extraction = {
    label: '(parsePage alone on the same HTML)',
    run: async () => parsePage(html, pageUrl),
    times: [] as number[],
  };
  try {
    const answer = JSON.parse(await uncached.get(scrapePath)) as { content: string; urls: string[] };
    if (answer.content.length < 500)
      throw new Error(`scrape answered only ${answer.content.length} characters`);
    for (let i = 0; i < warmup + samples; i++) {
      for (const side of sides) {
        const t0 = performance.now();
        await side.run();
        if (i >= warmup) side.times.push(performance.now() - t0);
      }
    }
    for (let i = 0; i < warmup + samples; i++) {
      const t0 = performance.now();
      await extraction.run();
      if (i >= warmup) extraction.times.push(performance.now() - t0);
    }
    const [base] = sides;
    const b50 = pct(base!.times, 0.5);
    const b95 = pct(base!.times, 0.95);
    for (const side of [...sides, extraction]) {
      const p50 = pct(side.times, 0.5);
      const p95 = pct(side.times, 0.95);
      const over =
        side === base || side === extraction
          ? ''
          : `   overhead p50 ${signed(p50 - b50)} ms (${(p50 / b50).toFixed(1)}×), p95 ${signed(p95 - b95)} ms (${(p95 / b95).toFixed(1)}×)`;
      console.log(
        `${side.label.padEnd(38)} p50 ${p50.toFixed(2).padStart(6)} ms  p95 ${p95.toFixed(2).padStart(6)} ms${over}`,
      );
    }
    console.log(`(the answer: ${answer.content.length} characters of Markdown, ${answer.urls.length} links)`);
  } finally {
    await raw.close();
    await uncached.close();
    await cached.close();
    await server.stop();
  }
}
