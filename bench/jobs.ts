// Job engine throughput and latency, beside raw BullMQ measured in the same run.
//  1. raw BullMQ: add N trivial jobs, process them with one Worker (the baseline);
//  2. our engine on the embedded queue (SQLite) and on BullMQ (PostgreSQL + Redis), same N,
//     same concurrency, an unbilled trivial job kind, submitted through JobService.submit; on
//     BullMQ once as shipped (first attempts accepted together share a message, up to the kind's
//     concurrency) and once with one message per job (UNFURL_JOB_BUNDLE_MAX=1);
//  3. idle latency: POST /v1/… over HTTP to `completed`, one job at a time.
// Beside each rate: the CPU it took per 1000 jobs in this process, Redis and PostgreSQL (where the
// time goes; on shared cores CPU per job is steadier than jobs/s).
// Env: BENCH_JOBS (default 2000), BENCH_ROUNDS (3), BENCH_CONCURRENCY (16, raw BullMQ and ours alike),
// BENCH_DATABASE_URL, BENCH_REDIS_URL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { jobRoute } from '../src/http/job-route.js';
import { randomBase62 } from '../src/ids.js';
import { startJobProcessing } from '../src/jobs/processing.js';
import type { EndedJob } from '../src/jobs/records.js';
import { createServices, type Services } from '../src/services.js';
import { type CpuSplit, cpuMeter } from './lib/cpu.js';
import { scratchDatabase } from './lib/pg.js';

const N = Number(process.env.BENCH_JOBS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const IN_FLIGHT_SUBMITS = 32;
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const quiet = { info() {}, warn() {}, error() {} };

const noopKind = {
  kind: 'noop',
  inputSchema: Type.Object({ n: Type.Integer() }),
  estimate: () => 0,
  cost: () => 0,
  concurrency: CONCURRENCY,
  run: async (_ctx: unknown, input: unknown) => input,
};

/** Runs `fn(i)` for i in [0, n) with at most `width` in flight. */
async function pool(n: number, width: number, fn: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** Resolves when `count()` reaches `n`; rejects if it stops moving for a minute (a lost job). */
function completion(count: () => number, n: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let last = -1;
    let lastMove = Date.now();
    const timer = setInterval(() => {
      const now = count();
      if (now >= n) {
        clearInterval(timer);
        resolve();
      } else if (now !== last) {
        last = now;
        lastMove = Date.now();
      } else if (Date.now() - lastMove > 60_000) {
        clearInterval(timer);
        reject(new Error(`${what}: stuck at ${now} of ${n} jobs`));
      }
    }, 5);
  });
}

interface RawRun {
  jobsPerSecond: number;
  cpu: CpuSplit;
}

/** BullMQ alone: N adds (32 in flight, one job per call, as our submits come) and a Worker. */
export async function rawBullmq(): Promise<RawRun> {
  const prefix = `bench-${randomBase62(8)}`;
  const conn = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const workerConn = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('raw', { connection: conn, prefix });
  let done = 0;
  const worker = new Worker(
    'raw',
    async (job) => {
      done++;
      return job.data;
    },
    { connection: workerConn, concurrency: CONCURRENCY, prefix },
  );
  await worker.waitUntilReady();
  // Both sides finish on the completion itself: the worker's moveToFinished is counted too.
  let completed = 0;
  worker.on('completed', () => completed++);
  const meter = cpuMeter(null);
  const t0 = performance.now();
  const allDone = completion(() => completed, N, 'raw BullMQ');
  await pool(N, IN_FLIGHT_SUBMITS, (i) => queue.add('run', { n: i }, { removeOnComplete: true }));
  await allDone;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = meter.stop();
  if (done !== N) throw new Error(`raw BullMQ ran ${done} jobs for ${N} added`);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  // BullMQ leaves connections it was given open: left so, they keep the process alive at the end.
  conn.disconnect();
  workerConn.disconnect();
  return { jobsPerSecond: N / seconds, cpu };
}

interface Engine {
  services: Services;
  /** The scratch PostgreSQL database's name (distributed), for CPU accounting. */
  pgDatabase: string | null;
  /** Called with every job the runner has ended (after its final state committed). */
  onEnded(fn: (job: EndedJob) => void): void;
}

/** Removes what a run left in Redis under its prefix (queue metadata of every job kind). */
async function dropKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 })) {
      if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
    }
  } finally {
    redis.disconnect();
  }
}

async function withEngine<T>(
  distributed: boolean,
  fn: (e: Engine) => Promise<T>,
  extraEnv: Record<string, string> = {},
): Promise<T> {
  const prefix = `bench-${randomBase62(8)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-'));
  const db = distributed ? await scratchDatabase(PG_URL) : null;
  const env: Record<string, string> = {
    UNFURL_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    UNFURL_RATE_LIMIT_RPS: '1000000',
    UNFURL_RATE_LIMIT_BURST: '1000000',
    UNFURL_QUEUE_PREFIX: prefix,
    UNFURL_JOB_POLL_MS: '500',
  };
  if (db) Object.assign(env, { DATABASE_URL: db.url, REDIS_URL });
  Object.assign(env, extraEnv);
  const services = await createServices(loadConfig(env));
  services.jobs.registry.register(noopKind);
  const processing = await startJobProcessing(services, quiet);
  const runner = processing.runner;
  try {
    return await fn({
      services,
      pgDatabase: db ? new URL(db.url).pathname.slice(1) : null,
      onEnded(hook) {
        const before = runner.onEnded;
        runner.onEnded = (job) => {
          before(job);
          hook(job);
        };
      },
    });
  } finally {
    await processing.stop();
    await services.close();
    await db?.drop();
    if (distributed) await dropKeys(prefix);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface EngineRun {
  jobsPerSecond: number;
  /** Accepting alone: N over the time until the last submit returned. */
  submitsPerSecond: number;
  submitMs: number;
  queueWaitMs: number;
  runAndRecordMs: number;
  cpu: CpuSplit;
}

export async function engineThroughput(
  distributed: boolean,
  extraEnv: Record<string, string> = {},
): Promise<EngineRun> {
  return withEngine(
    distributed,
    async ({ services, pgDatabase, onEnded }) => {
      const account = await services.accounts.register(
        `bench-${randomBase62(6)}@example.com`,
        'bench-password',
      );
      const processing = services.jobs;
      // Counted where the runner ends a job (its row committed), like raw BullMQ's worker event;
      // checked against the table afterwards.
      let ended = 0;
      onEnded((job) => {
        if (job.status === 'completed') ended++;
      });
      let submitTotal = 0;
      const meter = cpuMeter(pgDatabase);
      const t0 = performance.now();
      const allDone = completion(() => ended, N, distributed ? 'BullMQ adapter' : 'embedded adapter');
      await pool(N, IN_FLIGHT_SUBMITS, async (i) => {
        const s = performance.now();
        await processing.service.submit({ accountId: account.accountId, kind: 'noop', input: { n: i } });
        submitTotal += performance.now() - s;
      });
      const submittedIn = (performance.now() - t0) / 1000;
      await allDone;
      const seconds = (performance.now() - t0) / 1000;
      const cpu = meter.stop();
      const stats = await services.store.db
        .selectFrom('jobs')
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.avg<number>(eb('started_at', '-', eb.ref('created_at'))).as('wait'),
          eb.fn.avg<number>(eb('completed_at', '-', eb.ref('started_at'))).as('run'),
        ])
        .where('status', '=', 'completed')
        .where('attempts', '=', 1)
        .executeTakeFirstOrThrow();
      if (Number(stats.n) !== N) throw new Error(`${stats.n} of ${N} jobs completed on their first attempt`);
      return {
        jobsPerSecond: N / seconds,
        submitsPerSecond: N / submittedIn,
        submitMs: submitTotal / N,
        queueWaitMs: Number(stats.wait),
        runAndRecordMs: Number(stats.run),
        cpu,
      };
    },
    extraEnv,
  );
}

async function idleLatency(distributed: boolean, samples = 40): Promise<{ p50: number; p95: number }> {
  return withEngine(distributed, async ({ services }) => {
    const app = await buildApp(services, {
      logger: false,
      extraRoutes: (a) =>
        jobRoute(a, services, {
          path: '/v1/bench/noop',
          kind: 'noop',
          summary: 'bench',
          tags: ['Bench'],
          body: Type.Object({ n: Type.Integer() }),
        }),
    });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const { apiKey } = await services.accounts.register(
      `lat-${randomBase62(6)}@example.com`,
      'bench-password',
    );
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      const res = await fetch(`${address}/v1/bench/noop`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ n: i }),
      });
      const { jobId } = (await res.json()) as { jobId: string };
      for (;;) {
        const row = await services.jobs.records.get(jobId);
        if (row?.status === 'completed') break;
        await new Promise((r) => setImmediate(r));
      }
      times.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    await app.close();
    times.sort((a, b) => a - b);
    return { p50: times[Math.floor(samples * 0.5)]!, p95: times[Math.floor(samples * 0.95)]! };
  });
}

export async function benchJobs(): Promise<void> {
  console.log(
    `\n## jobs — ${N} trivial unbilled jobs, worker concurrency ${CONCURRENCY}, ${IN_FLIGHT_SUBMITS} submits in flight`,
  );
  // This machine's CPU time is shared (steal): interleave rounds and keep each side's best.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  let raw: RawRun | null = null;
  let embedded: EngineRun | null = null;
  let distributed: EngineRun | null = null;
  let unbundled: EngineRun | null = null;
  const best = <R extends { jobsPerSecond: number }>(a: R | null, b: R) =>
    a && a.jobsPerSecond >= b.jobsPerSecond ? a : b;
  for (let r = 0; r < rounds; r++) {
    raw = best(raw, await rawBullmq());
    embedded = best(embedded, await engineThroughput(false));
    distributed = best(distributed, await engineThroughput(true));
    unbundled = best(unbundled, await engineThroughput(true, { UNFURL_JOB_BUNDLE_MAX: '1' }));
  }
  const fmt = (n: number) => n.toFixed(0).padStart(7);
  const perK = (c: CpuSplit) => {
    const k = 1000 / N;
    const total = (c.nodeMs + c.redisMs + c.postgresMs) * k;
    return `CPU per 1000 jobs ${total.toFixed(0)} ms = node ${(c.nodeMs * k).toFixed(0)} + redis ${(c.redisMs * k).toFixed(0)} + postgres ${(c.postgresMs * k).toFixed(0)}`;
  };
  console.log(`best of ${rounds} interleaved rounds each`);
  console.log(
    `raw BullMQ add+process          ${fmt(raw!.jobsPerSecond)} jobs/s  (baseline)  | ${perK(raw!.cpu)}`,
  );
  for (const [name, r] of [
    ['Unfurl embedded (SQLite)', embedded!],
    ['Unfurl BullMQ (PostgreSQL+Redis)', distributed!],
    ['  same, one message per job', unbundled!],
  ] as const) {
    console.log(
      `${name.padEnd(32)} ${fmt(r.jobsPerSecond)} jobs/s  = ${((r.jobsPerSecond / raw!.jobsPerSecond) * 100).toFixed(0)} % of raw BullMQ  | ${perK(r.cpu)}`,
    );
    console.log(
      `${''.padEnd(32)} accepting alone ${r.submitsPerSecond.toFixed(0)}/s; submit ${r.submitMs.toFixed(2)} ms, queue wait ${r.queueWaitMs.toFixed(1)} ms, run+record ${r.runAndRecordMs.toFixed(2)} ms (means)`,
    );
  }
  const latE = await idleLatency(false);
  const latD = await idleLatency(true);
  console.log(
    `idle POST→completed, embedded   p50 ${latE.p50.toFixed(1)} ms  p95 ${latE.p95.toFixed(1)} ms  (target p50 < 50 ms)`,
  );
  console.log(`idle POST→completed, BullMQ     p50 ${latD.p50.toFixed(1)} ms  p95 ${latD.p95.toFixed(1)} ms`);
}
