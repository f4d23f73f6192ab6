// Test environments: a fresh SQLite directory, or — when DATABASE_URL is set — a fresh PostgreSQL
// database per call, so test files never see each other's rows. REDIS_URL is passed through.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.js';
import { randomBase62 } from '../../src/ids.js';

export const usingPostgres = Boolean(process.env.DATABASE_URL);
export const usingRedis = Boolean(process.env.REDIS_URL);

export interface TestEnv {
  env: Record<string, string>;
  config: Config;
  dispose(): Promise<void>;
}

async function createPgDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `unfurl_t_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A configuration for one test app or process group; `overrides` win over everything. */
export async function createTestEnv(overrides: Record<string, string> = {}): Promise<TestEnv> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-test-'));
  const env: Record<string, string> = {
    UNFURL_DATA_DIR: dataDir,
    UNFURL_RATE_LIMIT_RPS: '100000',
    UNFURL_RATE_LIMIT_BURST: '100000',
    UNFURL_AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    // Per-account limits are raised like the rate limits; the tests of those limits set their own.
    UNFURL_ACCOUNT_MAX_CRAWLS: '10000',
    UNFURL_ACCOUNT_MAX_MEDIA_JOBS: '10000',
    // Load shedding reads this process's event loop, which a busy test worker stalls at will: off
    // here, like the rate limits; test/http/load-shedding.test.ts sets its own.
    UNFURL_SHED_EVENT_LOOP_DELAY_MS: '0',
    UNFURL_PUBLIC_URL: 'http://127.0.0.1:8080',
    UNFURL_CHECKOUT: 'test',
    LOG_LEVEL: 'silent',
    UNFURL_QUEUE_PREFIX: `unfurl-test-${randomBase62(10)}`,
  };
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  let drop: (() => Promise<void>) | null = null;
  if (process.env.DATABASE_URL && !('DATABASE_URL' in overrides)) {
    const db = await createPgDatabase(process.env.DATABASE_URL);
    env.DATABASE_URL = db.url;
    drop = db.drop;
  }
  Object.assign(env, overrides);
  return {
    env,
    config: loadConfig(env),
    async dispose() {
      await drop?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
