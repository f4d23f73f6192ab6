// Monitors at scale: BENCH_MONITORS (default 1000) page monitors of as many accounts (one each,
// `every: '1m'`, the free credits of a registration), all due at the same instant, checked by one
// process against a loopback page server — the issue's "1,000 monitors of 1,000 accounts due in the
// same minute, all checked within that minute on one worker".
//  - the app: a child process (createServices + buildApp + listen + startJobProcessing, as
//    `unfurl serve` runs embedded: SQLite, the embedded clock polling next_check_at every
//    UNFURL_MONITOR_POLL_MS, the embedded queue), so its CPU is its own;
//  - the pages: a node:http server in this process, /p/1 … /p/N (bench/lib/site.ts pages, 15–30 KB of
//    HTML each) with one line that changes on every fetch (a timestamp and a view count), so every
//    baseline has noise to learn and every later check must see through it;
//  - setup (not timed as the result): accounts 2…N are inserted beside one registered normally (a
//    registration's scrypt would take ~100 ms each), each granted the free credits; each creates its
//    monitor through MonitorService.create, which queues its baseline check (two fetches); all
//    baselines are waited for;
//  - the baseline, measured in the same run: the same N pages through GET /v1/web/scrape (render
//    never, cache TTL 0), 8 in flight — the concurrency of the monitor_check kind;
//  - the clock is stopped from the start until the measure (so no monitor ticks on its own schedule
//    before it); then it is started, and
//  - the measure: every monitor's next_check_at set to the same instant T (one UPDATE); the embedded
//    clock takes the ticks (500 a pass), queues N checks, the queue runs them (8 at a time). From T:
//    when the last tick was queued, the last check's last_check_at (the lag; goal < 60 s), checks/s,
//    the app's CPU per check, page fetches per check (1 when nothing changed).
// Printed: the app's idle CPU (ms/s: its sweeper and polls, part of every operation's CPU), checks/s
// and the lag beside scrapes/s, the ratios CPU per check ÷ CPU per scrape and checks/s ÷ scrapes/s,
// and each phase's event-loop delay (p99, max; the API sheds requests past 250 ms). Every monitor is
// also re-anchored at T, so its next tick is T + 1m, outside the measure. Embedded only (the
// distributed clock is BullMQ's job schedulers, whose ticks a bench cannot line up on one instant
// without reaching into Redis). ~40 s for 1000 on an idle 2-core machine.
// Env: BENCH_MONITORS (default 1000; 200 for a quick run), UNFURL_MONITOR_POLL_MS (the app's default
// unless given), BENCH_PAGE_DELAY_MS (the page server waits this long before each answer, as a
// distant site would: checks run 8 at a time, so N checks take at least N × delay ÷ 8; 300 makes a
// run of 1000 ~3 minutes), BENCH_CPU_PROF=<dir> (the app's CPU profile of each phase:
// monitors-scrapes and monitors-checks.cpuprofile; the profiler's cost is in that run's CPU numbers).
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { FREE_CREDITS_AT_REGISTRATION } from '../src/billing/prices.js';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { newId } from '../src/ids.js';
import { startJobProcessing } from '../src/jobs/processing.js';
import { MONITOR_CHECK_KIND } from '../src/monitors/check-job.js';
import { createServices } from '../src/services.js';
import { intEnv } from './lib/http.js';

const CHECK_CONCURRENCY = 8; // the monitor_check kind's
const LAG_GOAL_S = 60;
const quiet = { info() {}, warn() {}, error() {} };

type Request =
  | { op: 'setup'; n: number; site: string }
  | { op: 'cpu' }
  | { op: 'loop' }
  | { op: 'profile'; file: string | null }
  | { op: 'due'; n: number; timeoutS: number };

interface SetupAnswer {
  apiKey: string;
  seconds: number;
  baselines: { completed: number; failed: number };
}

interface DueAnswer {
  at: number;
  completed: number;
  failed: number;
  /** Monitors whose last_check_at is at or after T. */
  checked: number;
  firstCheckAt: number | null;
  lastCheckAt: number | null;
  /** The check jobs created by the ticks: first and last created_at, last completed_at. */
  firstQueuedAt: number | null;
  lastQueuedAt: number | null;
  lastCompletedAt: number | null;
  jobs: number;
  /** Events recorded (a page.changed would be a false change: the pages did not change). */
  events: number;
  cpuMs: number;
  /** Ticks counted by the monitors (the clock took them). */
  ticks: number;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** The app's side: runs in the child, answers the parent's requests over IPC. */
async function appChild(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-monitors-'));
  const services = await createServices(loadConfig({ ...process.env, UNFURL_DATA_DIR: dataDir }));
  const app = await buildApp(services, { logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const processing = await startJobProcessing(services, quiet);
  // The clock stays off until the measure: a monitor created more than a minute before it would
  // otherwise tick on its own schedule during the setup or the baseline, and queue checks early.
  await services.monitors.stopTicks();
  const ended = { completed: 0, failed: 0 };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const previous = processing.runner.onEnded;
  processing.runner.onEnded = (job) => {
    previous(job);
    if (job.kind !== MONITOR_CHECK_KIND) return;
    if (job.status === 'completed') ended.completed++;
    else if (job.status === 'failed' || job.status === 'cancelled') ended.failed++;
  };
  const db = services.store.db;
  const until = async (done: () => boolean, timeoutS: number) => {
    const deadline = Date.now() + timeoutS * 1000;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  };

  async function setup(n: number, site: string): Promise<SetupAnswer> {
    const t0 = performance.now();
    const first = await services.accounts.register('bench-monitors-0@example.com', 'bench-password');
    // The baseline's scrapes are billed to the first account.
    await services.ledger.grant(first.accountId, 2 * n + 100, 'monitors benchmark');
    const { password_hash } = await db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', first.accountId)
      .executeTakeFirstOrThrow();
    const accounts = [first.accountId];
    for (let i = 1; i < n; i++) {
      const id = newId('acc');
      await db
        .insertInto('accounts')
        .values({
          id,
          email: `bench-monitors-${i}@example.com`,
          password_hash,
          webhook_secret: `whsec_bench${i}`,
          balance: 0,
          created_at: Date.now(),
        })
        .execute();
      await services.ledger.grant(id, FREE_CREDITS_AT_REGISTRATION, 'Free credits at registration');
      accounts.push(id);
    }
    ended.completed = 0;
    ended.failed = 0;
    for (let i = 0; i < n; i++) {
      await services.monitors.service.create(accounts[i]!, {
        kind: 'page',
        target: `${site}/p/${i + 1}`,
        every: '1m',
      });
    }
    await until(() => ended.completed + ended.failed >= n, 300);
    return { apiKey: first.apiKey, seconds: (performance.now() - t0) / 1000, baselines: { ...ended } };
  }

  async function due(n: number, timeoutS: number): Promise<DueAnswer> {
    ended.completed = 0;
    ended.failed = 0;
    const before = await db
      .selectFrom('monitors')
      .select((eb) => eb.fn.sum<number | string>('ticks').as('ticks'))
      .executeTakeFirstOrThrow();
    // The clock runs, finds nothing due; then every monitor falls due at T, taken by its next pass
    // (up to UNFURL_MONITOR_POLL_MS later, counted in the lag).
    await db
      .updateTable('monitors')
      .set({ next_check_at: Date.now() + 86_400_000 })
      .execute();
    await services.monitors.startTicks();
    const cpu0 = process.cpuUsage();
    const at = Date.now();
    // Anchored at T too, as if every monitor had been created a minute before: the next tick of each
    // is T + 1m, so nothing but the tick at T falls inside the measure (a monitor's interval runs
    // from its anchor, its creation time, which the setup spread over seconds to minutes).
    await db.updateTable('monitors').set({ next_check_at: at, anchor_at: at }).execute();
    await until(() => ended.completed + ended.failed >= n, timeoutS);
    const cpu = process.cpuUsage(cpu0);
    const m = await db
      .selectFrom('monitors')
      .select((eb) => [
        eb.fn.min<number>('last_check_at').as('first'),
        eb.fn.max<number>('last_check_at').as('last'),
        eb.fn.sum<number | string>('events').as('events'),
        eb.fn.sum<number | string>('ticks').as('ticks'),
      ])
      .where('last_check_at', '>=', at)
      .executeTakeFirstOrThrow();
    const checked = await db
      .selectFrom('monitors')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('last_check_at', '>=', at)
      .executeTakeFirstOrThrow();
    const allTicks = await db
      .selectFrom('monitors')
      .select((eb) => eb.fn.sum<number | string>('ticks').as('ticks'))
      .executeTakeFirstOrThrow();
    const j = await db
      .selectFrom('jobs')
      .select((eb) => [
        eb.fn.min<number>('created_at').as('firstQueued'),
        eb.fn.max<number>('created_at').as('lastQueued'),
        eb.fn.max<number>('completed_at').as('lastCompleted'),
        eb.fn.countAll<number | string>().as('jobs'),
      ])
      .where('kind', '=', MONITOR_CHECK_KIND)
      .where('created_at', '>=', at)
      .executeTakeFirstOrThrow();
    return {
      at,
      ...ended,
      checked: Number(checked.n),
      firstCheckAt: num(m.first),
      lastCheckAt: num(m.last),
      firstQueuedAt: num(j.firstQueued),
      lastQueuedAt: num(j.lastQueued),
      lastCompletedAt: num(j.lastCompleted),
      jobs: Number(j.jobs),
      events: Number(m.events ?? 0),
      cpuMs: (cpu.user + cpu.system) / 1000,
      ticks: Number(allTicks.ticks ?? 0) - Number(before.ticks ?? 0),
    };
  }

  // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the app per phase (the baseline's scrapes, the checks).
  let profiler: Session | null = null;
  async function profile(file: string | null): Promise<void> {
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      profiler = null;
      if (file) fs.writeFileSync(file, JSON.stringify(profile));
      return;
    }
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }

  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await app.close();
    await processing.stop(5_000);
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('message', (raw) => {
    const m = raw as Request & { id: number };
    if ((raw as string) === 'stop') return void stop();
    const answer = (p: Promise<unknown>) =>
      void p.then(
        (value) => process.send!({ id: m.id, value }),
        (err: Error) => process.send!({ id: m.id, error: String(err?.stack ?? err) }),
      );
    if (m.op === 'setup') answer(setup(m.n, m.site));
    else if (m.op === 'due') answer(due(m.n, m.timeoutS));
    else if (m.op === 'profile') answer(profile(m.file));
    else if (m.op === 'loop') {
      // The worst and p99 event-loop delay since the last ask (load shedding refuses past 250 ms).
      answer(Promise.resolve({ maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6 }));
      loop.reset();
    } else if (m.op === 'cpu') {
      const c = process.cpuUsage();
      answer(Promise.resolve((c.user + c.system) / 1000));
    }
  });
  process.on('disconnect', () => void stop());
  process.send!({ address });
}

interface AppChild {
  address: string;
  ask<T>(request: Request): Promise<T>;
  stop(): Promise<void>;
}

async function startAppChild(env: Record<string, string>): Promise<AppChild> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--monitors-app'], {
    execArgv: ['--import', 'tsx'],
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let hello: (address: string) => void = () => {};
  const started = new Promise<string>((resolve) => {
    hello = resolve;
  });
  child.on('message', (raw) => {
    const m = raw as { id?: number; value?: unknown; error?: string; address?: string };
    if (m.address) return hello(m.address);
    const p = pending.get(m.id!);
    pending.delete(m.id!);
    if (m.error) p?.reject(new Error(m.error));
    else p?.resolve(m.value);
  });
  void exited.then((code) => {
    for (const p of pending.values()) p.reject(new Error(`the app exited with code ${code}`));
  });
  const address = await Promise.race([
    started,
    exited.then((code) => {
      throw new Error(`the app exited with code ${code} before it listened`);
    }),
  ]);
  let nextId = 0;
  return {
    address,
    ask<T>(request: Request) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ ...request, id });
      });
    },
    async stop() {
      if (child.connected) child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** N pages (/p/1 … /p/N) of the synthetic site, each with a line that changes on every fetch. */
async function startPageServer(n: number, delayMs: number) {
  const { sitePage } = await import('./lib/site.js');
  const pages = new Map<string, [string, string]>();
  for (let i = 1; i <= n; i++) {
    const html = sitePage(i, n + 1);
    const cut = html.indexOf('</h1>') + '</h1>'.length;
    pages.set(`/p/${i}`, [html.slice(0, cut), html.slice(cut)]);
  }
  let fetches = 0;
  const server = http.createServer((req, res) => {
    const page = pages.get((req.url ?? '').split('?')[0]!);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    fetches++;
    const body = `${page[0]}\n<p class="updated">Updated ${new Date().toISOString()} · view ${fetches}</p>${page[1]}`;
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    if (delayMs > 0) setTimeout(() => res.end(body), delayMs);
    else res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    address: `http://127.0.0.1:${port}`,
    fetches: () => fetches,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The baseline: the same pages through GET /v1/web/scrape, `width` in flight. */
async function scrapeAll(address: string, apiKey: string, site: string, n: number, width: number) {
  const client = new Pool(address, { connections: width });
  const headers = { authorization: `Bearer ${apiKey}` };
  let next = 1;
  let failed = 0;
  try {
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (next <= n) {
          const url = `${site}/p/${next++}`;
          const res = await client.request({
            method: 'GET',
            path: `/v1/web/scrape?url=${encodeURIComponent(url)}&render=never`,
            headers,
          });
          const body = await res.body.text();
          if (res.statusCode !== 200) {
            if (failed++ === 0) console.warn(`scrape ${url}: HTTP ${res.statusCode} ${body.slice(0, 200)}`);
          }
        }
      }),
    );
  } finally {
    await client.close();
  }
  return failed;
}

if (process.argv[2] === '--monitors-app' && process.send) await appChild();

export async function benchMonitors(): Promise<void> {
  const n = intEnv('BENCH_MONITORS', 1000);
  const pollMs = process.env.UNFURL_MONITOR_POLL_MS;
  const delayMs = Number(process.env.BENCH_PAGE_DELAY_MS ?? 0);
  console.log(
    `\n## monitors — ${n} page monitors of ${n} accounts (every 1m), all due at the same instant T; ` +
      `embedded (SQLite), one app process; pages (15–30 KB, one line changing per fetch) from a loopback server` +
      (delayMs > 0 ? `, answering after ${delayMs} ms` : ''),
  );
  const pages = await startPageServer(n, delayMs);
  const app = await startAppChild({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'silent',
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_RATE_LIMIT_RPS: '1000000',
    UNFURL_RATE_LIMIT_BURST: '1000000',
    UNFURL_SCRAPE_CACHE_TTL_SECONDS: '0',
    UNFURL_MONITOR_MIN_INTERVAL: '1m',
    ...(pollMs && { UNFURL_MONITOR_POLL_MS: pollMs }),
  });
  try {
    const setup = await app.ask<SetupAnswer>({ op: 'setup', n, site: pages.address });
    console.log(
      `setup: ${n} accounts, ${n} monitors created and their baselines checked in ${setup.seconds.toFixed(1)} s ` +
        `(${setup.baselines.completed} completed, ${setup.baselines.failed} failed; ${pages.fetches()} page fetches)`,
    );

    // The app's CPU with nothing to do (its sweeper, queue polls, webhook dispatcher; the clock off):
    // part of every operation's CPU, more so the longer an operation waits on its page.
    const loop = () => app.ask<{ maxMs: number; p99Ms: number }>({ op: 'loop' });
    const idle0 = await app.ask<number>({ op: 'cpu' });
    await loop();
    await new Promise((r) => setTimeout(r, 5000));
    const idleMsPerS = ((await app.ask<number>({ op: 'cpu' })) - idle0) / 5;
    const idleLoop = await loop();
    const loopText = (l: { maxMs: number; p99Ms: number }) =>
      `event loop delay p99 ${l.p99Ms.toFixed(0)} ms, max ${l.maxMs.toFixed(0)} ms`;
    console.log(`app idle: ${idleMsPerS.toFixed(1)} ms of CPU per second, ${loopText(idleLoop)}`);

    const profDir = process.env.BENCH_CPU_PROF;
    if (profDir) fs.mkdirSync(profDir, { recursive: true });
    const profile = async (name: string | null) => {
      if (profDir)
        await app.ask({ op: 'profile', file: name && path.resolve(profDir, `${name}.cpuprofile`) });
    };

    // Baseline: the same pages scraped through the API, as many at once as checks run.
    await profile(null);
    await loop();
    const cpu0 = await app.ask<number>({ op: 'cpu' });
    const t0 = performance.now();
    const failed = await scrapeAll(app.address, setup.apiKey, pages.address, n, CHECK_CONCURRENCY);
    const scrapeS = (performance.now() - t0) / 1000;
    const scrapeCpuMs = (await app.ask<number>({ op: 'cpu' })) - cpu0;
    const scrapeLoop = await loop();
    await profile('monitors-scrapes');
    const scrapesPerS = (n - failed) / scrapeS;
    const cpuPerScrape = scrapeCpuMs / (n - failed);
    console.log(
      `${'GET /v1/web/scrape of the same pages (baseline)'.padEnd(50)} ${scrapesPerS.toFixed(1).padStart(6)} scrapes/s ` +
        `(${n} in ${scrapeS.toFixed(1)} s, ${CHECK_CONCURRENCY} in flight), app CPU ${cpuPerScrape.toFixed(2)} ms/scrape` +
        (failed ? `, ${failed} failed` : '') +
        `; ${loopText(scrapeLoop)}`,
    );

    const fetches0 = pages.fetches();
    await profile(null);
    await loop();
    const d = await app.ask<DueAnswer>({ op: 'due', n, timeoutS: 180 });
    const checkLoop = await loop();
    await profile('monitors-checks');
    const fetches = pages.fetches() - fetches0;
    const s = (t: number | null) => (t === null ? 'never' : `${((t - d.at) / 1000).toFixed(1)} s`);
    const lagS = d.lastCheckAt === null ? Number.POSITIVE_INFINITY : (d.lastCheckAt - d.at) / 1000;
    const checksPerS = d.checked / lagS;
    const cpuPerCheck = d.cpuMs / Math.max(1, d.completed + d.failed);
    console.log(
      `${'monitor checks, all due at T'.padEnd(50)} ${checksPerS.toFixed(1).padStart(6)} checks/s ` +
        `(${d.checked} of ${n} checked, last ${lagS.toFixed(1)} s after T; ` +
        `${d.firstQueuedAt !== null && d.lastCheckAt !== null ? (d.checked / ((d.lastCheckAt - d.firstQueuedAt) / 1000)).toFixed(1) : '–'} ` +
        `from the first tick taken), app CPU ${cpuPerCheck.toFixed(2)} ms/check; ${loopText(checkLoop)}`,
    );
    console.log(
      `  from T: ticks taken ${d.ticks}, checks queued ${s(d.firstQueuedAt)} … ${s(d.lastQueuedAt)} (${d.jobs} jobs), ` +
        `first check ${s(d.firstCheckAt)}, last ${s(d.lastCheckAt)}; ${d.completed} completed, ${d.failed} failed; ` +
        `${(fetches / Math.max(1, d.checked)).toFixed(2)} page fetches per check; ${d.events} events (changes reported)`,
    );
    console.log(
      `lag of the last check ${lagS.toFixed(1)} s (goal < ${LAG_GOAL_S} s: ${lagS < LAG_GOAL_S && d.checked === n ? 'met' : 'NOT met'}); ` +
        `checks/s ÷ scrapes/s ${(checksPerS / scrapesPerS).toFixed(2)}×, ` +
        `CPU per check ÷ CPU per scrape ${(cpuPerCheck / cpuPerScrape).toFixed(2)}×`,
    );
  } finally {
    await app.stop();
    await pages.close();
  }
}
