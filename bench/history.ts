// How listing and summing cost as an account's history grows. For each database (embedded SQLite,
// and PostgreSQL when BENCH_DATABASE_URL names a server: a scratch database is made there), three
// accounts get 10k, 100k and 1M ledger transactions and as many jobs, spread over the last 90 days,
// by bulk SQL (then the same rebuild the migration runs over existing data fills the ledger sums
// and job counts). Each is then asked, in process, what the API asks the database: the first page,
// a deep page (by cursor from the middle of the history), a filtered page (type=grant, 1 in 100 rows;
// status=failed, 1 in 50 jobs) and a month's summary by day. The median of BENCH_ROUNDS (default 25)
// runs is printed with the ratio 1M ÷ 10k; goal: each < 20 ms and ratio ≤ 1.5. Printed beside them,
// not held to the goal: the spec's offset paging to the same depth (the baseline, which counts and
// skips) and a month by hour, whose cost follows how many (hour, type, operation) cells the month
// fills — here the accounts' density, since all three histories span the same 90 days.
// Env: BENCH_DATABASE_URL, BENCH_ROUNDS, BENCH_HISTORY_SIZES (e.g. 10000,100000 for a quick run).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { CreditHistory } from '../src/billing/usage.js';
import { JobReads } from '../src/jobs/records/reads.js';
import { openMigratedStore, type Store } from '../src/store/db.js';
import { encodeCursor } from '../src/store/keyset.js';
import { rebuildJobCounts, rebuildLedgerRollups } from '../src/store/rollups.js';
import { intEnv } from './lib/http.js';
import { scratchDatabase } from './lib/pg.js';

const DAY = 24 * 3_600_000;
const SPAN = 90 * DAY;
const GOAL_MS = 20;
const GOAL_RATIO = 1.5;

function sizes(): number[] {
  const env = process.env.BENCH_HISTORY_SIZES;
  return env ? env.split(',').map((s) => Number.parseInt(s, 10)) : [10_000, 100_000, 1_000_000];
}

/** Row i (1…n) of an account's history is at `now − SPAN + i·step`: evenly spread, all distinct. */
const timeOf = (now: number, n: number, i: number) => now - SPAN + Math.floor((i * SPAN) / n);

/** 1…n as a row source, in the store's dialect. */
const series = (store: Store, n: number) =>
  store.dialect === 'pg'
    ? sql`s(i) as (select generate_series(1, ${sql.lit(n)}))`
    : sql`recursive s(i) as (select 1 union all select i + 1 from s where i < ${sql.lit(n)})`;

async function fill(store: Store, accountId: string, n: number, now: number) {
  const db = store.db;
  await db
    .insertInto('accounts')
    .values({
      id: accountId,
      email: `${accountId}@example.com`,
      password_hash: 'x',
      webhook_secret: 'x',
      balance: 0,
      created_at: now - SPAN - DAY,
    })
    .execute();
  const at = sql`${sql.lit(now - SPAN)} + (i * ${sql.lit(SPAN)}) / ${sql.lit(n)}`;
  const op = sql`case (i / 3) % 4 when 0 then 'scrape' when 1 then 'crawl' when 2 then 'transcript' else 'map' end`;
  // 1 in 100 a grant; the rest hold, release, settled in turn, per operation.
  await sql`
    insert into credit_transactions (id, account_id, amount, type, description, job_id, reference, flagged, created_at, operation)
    with ${series(store, n)}
    select cast(${`txn_${accountId}_`} as text) || i, ${accountId},
      case when i % 100 = 0 then 1000 when i % 3 = 0 then -5 when i % 3 = 1 then 5 else -3 end,
      case when i % 100 = 0 then 'grant' when i % 3 = 0 then 'hold' when i % 3 = 1 then 'release' else 'settled' end,
      'bench entry', cast(${`job_${accountId}_`} as text) || (i / 3), null, 0, ${at},
      case when i % 100 = 0 then '' else ${op} end
    from s`.execute(db);
  await sql`
    insert into jobs (id, account_id, kind, status, input, max_attempts, attempts, held, cost, run_at, created_at, completed_at, duration_ms)
    with ${series(store, n)}
    select cast(${`job_${accountId}_`} as text) || i, ${accountId}, ${op},
      case when i % 50 = 0 then 'failed' else 'completed' end, '{}', 3, 1, 0, 3, ${at}, ${at}, ${at} + 1000, 1000
    from s`.execute(db);
  await rebuildLedgerRollups(db, [accountId]);
  await rebuildJobCounts(db, [accountId]);
}

/**
 * Median ms of `rounds` runs of `fn` for each size. The sizes take turns within every round, so a
 * burst of load from elsewhere on the machine slows them alike instead of skewing the ratio.
 */
async function medians(
  rounds: number,
  count: number,
  fn: (i: number) => Promise<unknown>,
): Promise<number[]> {
  const times: number[][] = Array.from({ length: count }, () => []);
  for (let round = -3; round < rounds; round++) {
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      await fn(i);
      if (round >= 0) times[i]!.push(performance.now() - t0);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!);
}

interface Case {
  name: string;
  run: (accountId: string, n: number) => Promise<unknown>;
  /** Printed for comparison, not held to the goal (and why). */
  note?: string;
}

function cases(store: Store, now: number): Case[] {
  const usage = new CreditHistory(store.db);
  const jobs = new JobReads(store.db, store.dialect);
  const middle = (accountId: string, prefix: string, n: number) =>
    encodeCursor({ createdAt: timeOf(now, n, n / 2), id: `${prefix}_${accountId}_${n / 2}` });
  const month = { from: now - 30 * DAY, to: now };
  return [
    { name: 'usage: first page', run: (a) => usage.list(a, { limit: 20, offset: 0 }) },
    {
      name: 'usage: deep page (cursor, middle)',
      run: (a, n) => usage.list(a, { limit: 20, offset: 0, cursor: middle(a, 'txn', n) }),
    },
    { name: 'usage: type=grant page', run: (a) => usage.list(a, { limit: 20, offset: 0, type: 'grant' }) },
    {
      name: 'usage: type=grant deep (cursor)',
      run: (a, n) => usage.list(a, { limit: 20, offset: 0, type: 'grant', cursor: middle(a, 'txn', n) }),
    },
    { name: 'summary: month, daily', run: (a) => usage.summary(a, { ...month, bucket: 'day' }) },
    {
      name: 'summary: month, hourly',
      run: (a) => usage.summary(a, { ...month, bucket: 'hour' }),
      note: 'info: reads hours × active (type, operation) pairs, which grows with how busy the month is, not with history',
    },
    { name: 'jobs: first page', run: (a) => jobs.list(a, { limit: 20, offset: 0 }) },
    {
      name: 'jobs: deep page (cursor, middle)',
      run: (a, n) => jobs.list(a, { limit: 20, offset: 0, cursor: middle(a, 'job', n) }),
    },
    {
      name: 'jobs: status=failed page',
      run: (a) => jobs.list(a, { limit: 20, offset: 0, status: 'failed' }),
    },
    {
      name: 'baseline: usage offset=middle',
      run: (a, n) => usage.list(a, { limit: 20, offset: n / 2 }),
      note: 'baseline: the spec’s offset paging, which counts and skips',
    },
  ];
}

/**
 * PostgreSQL's own account of the work, which the load of a shared machine does not blur: shared
 * buffers touched and execution ms (EXPLAIN ANALYZE, median of 9) of the statements behind the first
 * and deep pages and the totals, per size. The SQL mirrors what the services build.
 */
async function planCheck(store: Store, ns: number[], accounts: string[], now: number) {
  console.log(`\nPostgreSQL plan check: buffers touched / execution ms, per size`);
  const statements = (a: string, n: number) => {
    const mid = timeOf(now, n, n / 2);
    return {
      'usage first page': sql`select id, amount, type, description, operation, job_id, created_at from credit_transactions
        where account_id = ${a} order by created_at desc, id desc limit 21`,
      'usage deep page': sql`select id, amount, type, description, operation, job_id, created_at from credit_transactions
        where account_id = ${a} and (created_at, id) < (${mid}, ${`txn_${a}_${n / 2}`}) order by created_at desc, id desc limit 21`,
      'usage total': sql`select sum(entries) from ledger_sums where account_id = ${a} and period = 'all' and start = 0`,
      'jobs first page': sql`select id, kind, status, created_at from jobs where account_id = ${a}
        order by created_at desc, id desc limit 21`,
      'jobs total': sql`select sum(n) from job_counts where account_id = ${a}`,
    };
  };
  for (const name of Object.keys(statements('', 2))) {
    const cells: string[] = [];
    for (const [i, n] of ns.entries()) {
      const q = statements(accounts[i]!, n)[name as keyof ReturnType<typeof statements>];
      const runs: Array<{ ms: number; buffers: number }> = [];
      for (let r = 0; r < 9; r++) {
        const plan = await sql<Record<string, string>>`explain (analyze, buffers) ${q}`.execute(store.db);
        const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
        runs.push({
          ms: Number(/Execution Time: ([\d.]+)/.exec(text)?.[1] ?? Number.NaN),
          buffers:
            Number(/shared hit=(\d+)/.exec(text)?.[1] ?? 0) + Number(/read=(\d+)/.exec(text)?.[1] ?? 0),
        });
      }
      runs.sort((x, y) => x.ms - y.ms);
      const m = runs[4]!;
      cells.push(`${m.buffers} / ${m.ms.toFixed(3)}`.padStart(14));
    }
    console.log(`${name.padEnd(36)}${cells.join('')}`);
  }
}

async function benchStore(label: string, store: Store, rounds: number) {
  const now = Date.now();
  const ns = sizes();
  const accounts = ns.map((n) => `acc_hist${n}`);
  for (const [i, n] of ns.entries()) {
    const t0 = performance.now();
    await fill(store, accounts[i]!, n, now);
    console.log(
      `${label}: filled ${n.toLocaleString('en-US')} transactions and jobs in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  // PostgreSQL: statistics and the visibility map of the fresh rows, so the first case measured does
  // not pay for the bulk load's aftermath (autovacuum, hint bits) that later ones would not.
  if (store.dialect === 'pg') await sql`vacuum analyze`.execute(store.db);
  const header = ns.map((n) => `${n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`}`.padStart(10)).join('');
  console.log(`\n### ${label} (median of ${rounds}, ms)\n${'case'.padEnd(36)}${header}  ratio last÷first`);
  let missed = 0;
  for (const c of cases(store, now)) {
    const ms = await medians(rounds, ns.length, (i) => c.run(accounts[i]!, ns[i]!));
    const ratio = ms[ms.length - 1]! / ms[0]!;
    const ok = c.note !== undefined || (Math.max(...ms) < GOAL_MS && ratio <= GOAL_RATIO);
    if (!ok) missed++;
    console.log(
      `${c.name.padEnd(36)}${ms.map((m) => m.toFixed(2).padStart(10)).join('')}  ${ratio.toFixed(2).padStart(6)}` +
        (c.note ? `  (${c.note})` : ok ? '' : '  MISSED'),
    );
  }
  if (store.dialect === 'pg') await planCheck(store, ns, accounts, now);
  console.log(
    missed === 0
      ? `all cases < ${GOAL_MS} ms with ratio ≤ ${GOAL_RATIO}`
      : `${missed} case(s) missed < ${GOAL_MS} ms or ratio ≤ ${GOAL_RATIO}`,
  );
}

export async function benchHistory(): Promise<void> {
  const rounds = intEnv('BENCH_ROUNDS', 25);
  console.log(`\n## history — listing and summary cost against history size (${sizes().join(', ')} rows)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-history-'));
  try {
    const store = await openMigratedStore({ dataDir, databaseUrl: null });
    try {
      await benchStore('SQLite (embedded)', store, rounds);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const pgUrl = process.env.BENCH_DATABASE_URL;
  if (!pgUrl) {
    console.log(
      'PostgreSQL: skipped (set BENCH_DATABASE_URL to a server where a scratch database may be made)',
    );
    return;
  }
  const scratch = await scratchDatabase(pgUrl);
  try {
    const store = await openMigratedStore({ dataDir, databaseUrl: scratch.url });
    try {
      await benchStore('PostgreSQL', store, rounds);
    } finally {
      await store.close();
    }
  } finally {
    await scratch.drop();
  }
}
