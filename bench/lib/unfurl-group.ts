// `unfurl serve --processes N` as the benchmarks run it: the real CLI (under tsx) in the distributed
// deployment, on a fresh PostgreSQL database and its own Redis key prefix, with one account granted
// plenty of credits. Ready once the kernel lists N listening sockets on the port and /health answers.
// Needs PostgreSQL and Redis: DATABASE_URL/REDIS_URL, or the local defaults.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { randomBase62 } from '../../src/ids.js';
import { createServices } from '../../src/services.js';
import { openStore } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrator.js';
import { dropQueueKeys } from '../../test/support/job-processes.js';
import { freePort, listeningSockets } from '../../test/support/sockets.js';

const CLI = fileURLToPath(new URL('../../src/main/cli.ts', import.meta.url));

export interface BenchGroup {
  address: string;
  apiKey: string;
  /** The supervisor's pid. */
  pid: number;
  /** The members' pids (the processes that serve). */
  memberPids: number[];
  stop(): Promise<void>;
}

export async function startUnfurlGroup(
  processes: number,
  appEnv: Record<string, string>,
  credits = 100_000_000,
): Promise<BenchGroup> {
  const baseDb = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const dbName = `unfurl_bench_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: baseDb });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const dbUrl = new URL(baseDb);
  dbUrl.pathname = `/${dbName}`;
  const prefix = `unfurl-bench-${randomBase62(8)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-bench-group-'));
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...appEnv,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redisUrl,
    UNFURL_QUEUE_PREFIX: prefix,
    UNFURL_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
  };

  const config = loadConfig(env);
  const store = openStore(config);
  await migrateToLatest(store);
  await store.close();
  const services = await createServices(config);
  const { accountId, apiKey } = await services.accounts.register('bench-group@example.com', 'bench-password');
  await services.ledger.grant(accountId, credits, 'benchmark');
  await services.close();

  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'serve', '--processes', String(processes)],
    {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`unfurl serve --processes ${processes} exited (${child.exitCode})`);
    if (Date.now() > deadline)
      throw new Error(`unfurl serve --processes ${processes} not listening within 180 s`);
    if (listeningSockets(port) === processes) {
      const ok = await fetch(`${address}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // One process serves itself; a group's supervisor has the members as its children.
  const memberPids =
    processes === 1
      ? [child.pid!]
      : fs
          .readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .map(Number);
  return {
    address,
    apiKey,
    pid: child.pid!,
    memberPids,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      const drop = new pg.Client({ connectionString: baseDb });
      await drop.connect();
      await drop.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await drop.end();
      await dropQueueKeys(redisUrl, prefix);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
