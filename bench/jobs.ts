// Job engine throughput and latency, beside raw BullMQ measured in the same run.
//  1. raw BullMQ: add N trivial jobs, process them with one Worker (the baseline);
//  2. our engine on the embedded queue (SQLite) and on BullMQ (PostgreSQL + Redis), same N,
//     same concurrency, an unbilled trivial job kind, submitted through JobService.submit;
//  3. idle latency: POST /v1/… over HTTP to `completed`, one job at a time.
// Env: BENCH_JOBS (default 2000), BENCH_DATABASE_URL, BENCH_REDIS_URL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { jobRoute } from '../src/http/job-route.js';
import { startJobProcessing } from '../src/jobs/processing.js';
import { createServices, type Services } from '../src/services.js';
import { randomBase62 } from '../src/store/ids.js';
import { scratchDatabase } from './lib/pg.js';

const N = Number(process.env.BENCH_JOBS ?? 2000);
const CONCURRENCY = 16;
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

async function rawBullmq(): Promise<number> {
  const prefix = `bench-${randomBase62(8)}`;
  const conn = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('raw', { connection: conn, prefix });
  let done = 0;
  let finish: () => void = () => {};
  const allDone = new Promise<void>((r) => {
    finish = r;
  });
  const worker = new Worker(
    'raw',
    async (job) => {
      if (++done === N) finish();
      return job.data;
    },
    { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), concurrency: CONCURRENCY, prefix },
  );
  await worker.waitUntilReady();
  const t0 = performance.now();
  await pool(N, IN_FLIGHT_SUBMITS, (i) => queue.add('run', { n: i }, { removeOnComplete: true }));
  await allDone;
  const seconds = (performance.now() - t0) / 1000;
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  conn.disconnect();
  return N / seconds;
}

async function withEngine<T>(distributed: boolean, fn: (s: Services) => Promise<T>): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-'));
  const db = distributed ? await scratchDatabase(PG_URL) : null;
  const env: Record<string, string> = {
    UNFURL_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    UNFURL_RATE_LIMIT_RPS: '1000000',
    UNFURL_RATE_LIMIT_BURST: '1000000',
    UNFURL_QUEUE_PREFIX: `bench-${randomBase62(8)}`,
    UNFURL_JOB_POLL_MS: '500',
  };
  if (db) Object.assign(env, { DATABASE_URL: db.url, REDIS_URL });
  const services = await createServices(loadConfig(env));
  services.jobs.registry.register(noopKind);
  const processing = await startJobProcessing(services, quiet);
  try {
    return await fn(services);
  } finally {
    await processing.stop();
    await services.close();
    await db?.drop();
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
}

export async function engineThroughput(distributed: boolean): Promise<EngineRun> {
  return withEngine(distributed, async (services) => {
    const account = await services.accounts.register(
      `bench-${randomBase62(6)}@example.com`,
      'bench-password',
    );
    const processing = services.jobs;
    let ended = 0;
    const allDone = new Promise<void>((resolve) => {
      const timer = setInterval(async () => {
        const row = await services.store.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'completed')
          .executeTakeFirst();
        ended = Number(row?.n ?? 0);
        if (ended >= N) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    let submitTotal = 0;
    const t0 = performance.now();
    await pool(N, IN_FLIGHT_SUBMITS, async (i) => {
      const s = performance.now();
      await processing.service.submit({ accountId: account.accountId, kind: 'noop', input: { n: i } });
      submitTotal += performance.now() - s;
    });
    const submittedIn = (performance.now() - t0) / 1000;
    await allDone;
    const seconds = (performance.now() - t0) / 1000;
    const stats = await services.store.db
      .selectFrom('jobs')
      .select((eb) => [
        eb.fn.avg<number>(eb('started_at', '-', eb.ref('created_at'))).as('wait'),
        eb.fn.avg<number>(eb('completed_at', '-', eb.ref('started_at'))).as('run'),
      ])
      .executeTakeFirstOrThrow();
    return {
      jobsPerSecond: N / seconds,
      submitsPerSecond: N / submittedIn,
      submitMs: submitTotal / N,
      queueWaitMs: Number(stats.wait),
      runAndRecordMs: Number(stats.run),
    };
  });
}

async function idleLatency(distributed: boolean, samples = 40): Promise<{ p50: number; p95: number }> {
  return withEngine(distributed, async (services) => {
    const app = await buildApp(services, {
      logger: false,
      extraRoutes: (a) =>
        jobRoute(a, {
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
  let raw = 0;
  let embedded: EngineRun | null = null;
  let distributed: EngineRun | null = null;
  const best = (a: EngineRun | null, b: EngineRun) => (a && a.jobsPerSecond >= b.jobsPerSecond ? a : b);
  for (let r = 0; r < rounds; r++) {
    raw = Math.max(raw, await rawBullmq());
    embedded = best(embedded, await engineThroughput(false));
    distributed = best(distributed, await engineThroughput(true));
  }
  const fmt = (n: number) => n.toFixed(0).padStart(7);
  console.log(`raw BullMQ add+process          ${fmt(raw)} jobs/s  (baseline)`);
  console.log(`best of ${rounds} interleaved rounds each`);
  for (const [name, r] of [
    ['Unfurl embedded (SQLite)', embedded!],
    ['Unfurl BullMQ (PostgreSQL+Redis)', distributed!],
  ] as const) {
    console.log(
      `${name.padEnd(32)} ${fmt(r.jobsPerSecond)} jobs/s  = ${((r.jobsPerSecond / raw) * 100).toFixed(0)} % of raw BullMQ` +
        `  | accepting alone ${r.submitsPerSecond.toFixed(0)}/s; submit ${r.submitMs.toFixed(2)} ms, queue wait ${r.queueWaitMs.toFixed(1)} ms, run+record ${r.runAndRecordMs.toFixed(2)} ms (means)`,
    );
  }
  const latE = await idleLatency(false);
  const latD = await idleLatency(true);
  console.log(
    `idle POST→completed, embedded   p50 ${latE.p50.toFixed(1)} ms  p95 ${latE.p95.toFixed(1)} ms  (target p50 < 50 ms)`,
  );
  console.log(`idle POST→completed, BullMQ     p50 ${latD.p50.toFixed(1)} ms  p95 ${latD.p95.toFixed(1)} ms`);
}
