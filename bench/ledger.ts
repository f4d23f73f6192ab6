// What a paid request's ledger write costs as the ledger grows: `Ledger.chargeRequest` (one settled
// entry, the balance, the hour/day/all-time sums; what a cache hit costs) from 50 concurrent callers,
// as the API's concurrent requests call it, on a ledger that already holds 0, then 100k, then 300k
// entries. Each point is BENCH_LEDGER_CHARGES (default 20,000) charges of their own; the history
// between points is written by the same calls. Printed: µs of CPU per charge at each size (the whole
// process, and its event-loop thread alone: on SQLite the WAL checkpoints run on a worker thread),
// the wall time per charge, and the ratio largest ÷ first of the CPU (goal ≤ 1.3: a write costs the
// same however long the history). Ids that
// begin with their creation time keep it flat: on SQLite, 47 → 35 µs from 0 to 300k entries, where
// the random ids before went 71 → 96 µs (1.35×), every commit writing one index page per entry
// scattered over the id, reference and request indexes. Charges arriving together share a
// transaction and each account's share three statements (entries, balance, sums): 22–26 → 12–17 µs
// on SQLite (stop 31), where each had its own transaction of three statements.
// Embedded SQLite, or PostgreSQL when BENCH_DATABASE_URL names a server (a scratch database is made;
// there a charge takes ~0.4 ms of CPU here, so BENCH_LEDGER_SIZES=0,100000 keeps the run to minutes).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ledger } from '../src/billing/ledger.js';
import { newId } from '../src/ids.js';
import { openMigratedStore } from '../src/store/db.js';
import { eventLoopThreadCpuMs } from './lib/cpu.js';
import { intEnv } from './lib/http.js';
import { scratchDatabase } from './lib/pg.js';

const GOAL_RATIO = 1.3;
const CONCURRENCY = 50;

/** µs per charge: CPU of the whole process, CPU of its event-loop thread, and wall time. */
interface PerCharge {
  cpu: number;
  loopCpu: number;
  wall: number;
}

async function charges(ledger: Ledger, accountId: string, n: number): Promise<PerCharge> {
  let left = n;
  const cpu = process.cpuUsage();
  const loopCpu = eventLoopThreadCpuMs();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await ledger.chargeRequest(accountId, newId('req'), 1, 'Transcript', 'transcript');
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    cpu: (used.user + used.system) / n,
    loopCpu: ((eventLoopThreadCpuMs() - loopCpu) * 1000) / n,
    wall: ((performance.now() - start) * 1000) / n,
  };
}

export async function benchLedger(): Promise<void> {
  const perPoint = intEnv('BENCH_LEDGER_CHARGES', 20_000);
  const SIZES = (process.env.BENCH_LEDGER_SIZES ?? '0,100000,300000').split(',').map(Number);
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const scratch = pgUrl ? await scratchDatabase(pgUrl) : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-ledger-'));
  const store = await openMigratedStore({ databaseUrl: scratch?.url ?? null, dataDir });
  try {
    const ledger = new Ledger(store.db, store.dialect);
    const accountId = newId('acc');
    await store.db
      .insertInto('accounts')
      .values({
        id: accountId,
        email: 'bench-ledger@example.com',
        password_hash: '-',
        webhook_secret: '-',
        balance: 0,
        created_at: Date.now(),
      })
      .execute();
    await ledger.grant(accountId, 1_000_000_000, 'benchmark');
    console.log(
      `\n## ledger — Ledger.chargeRequest from ${CONCURRENCY} concurrent callers, ${perPoint} charges per point (${store.dialect})`,
    );
    let written = 0;
    let first = 0;
    let last = 0;
    for (const size of SIZES) {
      // The history up to this size, written by the same calls (not measured).
      if (size > written) await charges(ledger, accountId, size - written);
      const per = await charges(ledger, accountId, perPoint);
      written = size + perPoint;
      if (size === 0) first = per.cpu;
      last = per.cpu;
      const us = (v: number) => v.toFixed(1).padStart(6);
      console.log(
        `${String(size).padStart(8)} entries before: ${us(per.cpu)} µs CPU per charge ` +
          `(event-loop thread ${us(per.loopCpu)}), ${us(per.wall)} µs wall`,
      );
    }
    const ratio = last / first;
    console.log(
      `ratio ${SIZES.at(-1)} ÷ 0 = ${ratio.toFixed(2)} (goal ≤ ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? 'met' : 'MISSED'})`,
    );
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
  }
}
