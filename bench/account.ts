// Authenticated GET /v1/account on the full app, beside a bare Fastify app answering the same JSON
// from a static route, measured in the same run with the same load. The Unfurl side pays for what a
// real cheap request pays for: bearer-key authentication (cached lookup), the per-key token bucket
// (raised so it is measured, never hit), a database read, response-schema serialisation, request
// ids and the metrics hook. Target (issue 19): Unfurl ≥ 60 % of bare Fastify's requests/s, embedded.
// A row between them, the same app's GET /health, shows its floor: everything but the key, the token
// buckets and the database read. Each row also gives the server's CPU time per request.
// Env: BENCH_DATABASE_URL (also run on PostgreSQL: a scratch database is created on that server),
// BENCH_REDIS_URL (with it, that run uses Redis for the rate limiter too), BENCH_ROUNDS (each side is
// measured this many times, interleaved, and its best round kept — noise on a shared machine only
// slows), BENCH_CONNECTIONS, BENCH_DURATION, BENCH_WARMUP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBase62 } from '../src/ids.js';
import {
  type ChildServer,
  describeLoad,
  formatLoad,
  intEnv,
  type LoadResult,
  loadSettings,
  measure,
  startServer,
} from './lib/http.js';
import { scratchDatabase } from './lib/pg.js';

const TARGET = 0.6;

interface Target {
  name: string;
  server: ChildServer;
  path: string;
  headers: Record<string, string>;
  /** A row that shows where the time goes rather than a goal: no target, no verdict. */
  floor?: boolean;
  best: LoadResult | null;
}

/** Starts the full app with `extraEnv` and registers an account; answers its bearer header. */
async function startUnfurl(
  extraEnv: Record<string, string>,
  cleanups: Array<() => Promise<void>>,
): Promise<Pick<Target, 'server' | 'headers'>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer('unfurl', {
    UNFURL_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    UNFURL_CHECKOUT: 'test',
    UNFURL_RATE_LIMIT_RPS: '1000000000',
    UNFURL_RATE_LIMIT_BURST: '1000000',
    // Throughput, not overload: no load shedding (a busy machine would turn answers into 503s).
    UNFURL_SHED_EVENT_LOOP_DELAY_MS: '0',
    ...extraEnv,
  });
  cleanups.push(() => server.stop());
  const res = await fetch(`${server.address}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${randomBase62(8)}@example.com`, password: 'bench-password' }),
  });
  if (res.status !== 200) throw new Error(`register: ${res.status} ${await res.text()}`);
  const { apiKey } = (await res.json()) as { apiKey: string };
  const headers = { authorization: `Bearer ${apiKey}` };
  const check = await fetch(`${server.address}/v1/account`, { headers });
  if (check.status !== 200) throw new Error(`GET /v1/account: ${check.status} ${await check.text()}`);
  return { server, headers };
}

async function startTargets(cleanups: Array<() => Promise<void>>): Promise<Target[]> {
  const bare = await startServer('bare');
  cleanups.push(() => bare.stop());
  const embedded = await startUnfurl({}, cleanups);
  const targets: Target[] = [
    {
      name: 'bare Fastify, static JSON route',
      server: bare,
      path: '/v1/account',
      headers: { authorization: 'Bearer uf_bench' },
      best: null,
    },
    // The same app's public health check: its hooks, ids, headers and metrics without the key check,
    // the token buckets and the database read. The gap between this row and the next is theirs.
    {
      name: 'Unfurl GET /health (no key, no DB)',
      server: embedded.server,
      path: '/health',
      headers: {},
      floor: true,
      best: null,
    },
    { name: 'Unfurl embedded (SQLite)', ...embedded, path: '/v1/account', best: null },
  ];
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (pgUrl) {
    const db = await scratchDatabase(pgUrl);
    cleanups.push(db.drop);
    const env: Record<string, string> = { DATABASE_URL: db.url };
    if (redisUrl)
      Object.assign(env, { REDIS_URL: redisUrl, UNFURL_QUEUE_PREFIX: `bench-${randomBase62(8)}` });
    const name = redisUrl ? 'Unfurl PostgreSQL + Redis' : 'Unfurl PostgreSQL';
    targets.push({ name, ...(await startUnfurl(env, cleanups)), path: '/v1/account', best: null });
  }
  return targets;
}

export async function benchAccount(): Promise<void> {
  const settings = loadSettings();
  const rounds = intEnv('BENCH_ROUNDS', 1);
  console.log(
    `\n## account — authenticated GET /v1/account; ${describeLoad(settings)}; servers in child processes` +
      (rounds > 1 ? `; best of ${rounds} interleaved rounds` : ''),
  );
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const targets = await startTargets(cleanups);
    for (let round = 0; round < rounds; round++) {
      for (const t of targets) {
        const r = await measure(`${t.server.address}${t.path}`, t.headers, settings, t.server);
        if (!t.best || r.rps > t.best.rps) t.best = r;
      }
    }
    const [bare, ...unfurl] = targets as [Target, ...Target[]];
    const cpu = (t: Target) => `${t.best!.cpuUsPerRequest!.toFixed(0).padStart(5)} µs CPU/req`;
    console.log(`${bare.name.padEnd(36)}${formatLoad(bare.best!)}   ${cpu(bare)}   (baseline)`);
    for (const t of unfurl) {
      const ratio = t.best!.rps / bare.best!.rps;
      const cpuRatio = bare.best!.cpuUsPerRequest! / t.best!.cpuUsPerRequest!;
      const verdict = (r: number) =>
        t.floor ? '' : ` (target ≥ ${TARGET * 100} %, ${r >= TARGET ? 'met' : 'MISSED'})`;
      console.log(
        `${t.name.padEnd(36)}${formatLoad(t.best!)}   ${cpu(t)}   = ${(ratio * 100).toFixed(0)} % of bare ` +
          `Fastify's rate${verdict(ratio)}, ${(cpuRatio * 100).toFixed(0)} % of its requests per CPU ` +
          `second${verdict(cpuRatio)}`,
      );
    }
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((err) => console.error('cleanup failed:', err));
    }
  }
}
