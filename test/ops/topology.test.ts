// The distributed deployment of compose.yaml as plain processes of the built binary: `unfurl migrate`,
// then 2 × `unfurl serve` and 2 × `unfurl worker` on one PostgreSQL database and one Redis. Jobs
// submitted through both APIs wait until workers exist and are then completed by them; either API
// reads any job; a key revoked on one API is refused by the other within a second.
// Needs PostgreSQL and Redis: DATABASE_URL/REDIS_URL, or the CI defaults below when they answer.
// Under CI=true their absence is a failure, elsewhere a skip that says why.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/ids.js';
import { api, dropQueueKeys, registerOn, sleep, until } from '../support/job-processes.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { listeningSockets } from '../support/sockets.js';
import { assertBuilt, type CliProcess, freePort, runCli, startCli } from './cli-processes.js';
import { parsePrometheus, sumOf } from './prometheus-text.js';

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

async function pgAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const [hasPg, hasRedis] = await Promise.all([pgAnswers(databaseUrl), redisAnswers(redisUrl)]);
const missing = [!hasPg && `PostgreSQL at ${databaseUrl}`, !hasRedis && `Redis at ${redisUrl}`].filter(
  Boolean,
);
const runIt = missing.length === 0 || process.env.CI === 'true';
const title = '2 API + 2 workers as plain processes on PostgreSQL + Redis';

const PAGES: Record<string, string> = {
  '/': '<html><head><title>Home</title></head><body><main><h1>Home</h1><p>Welcome to the topology site, which has two pages.</p><a href="/about">About</a></main></body></html>',
  '/about':
    '<html><head><title>About</title></head><body><main><h1>About</h1><p>The about page of the topology site.</p></main></body></html>',
};

describe.skipIf(!runIt)(
  runIt ? title : `${title} (skipped: no ${missing.join(' or ')}; CI=true makes this a failure)`,
  () => {
    let site: Loopback;
    let dbName: string;
    let dbUrl: string;
    let dataDir: string;
    const prefix = `unfurl-topo-${randomBase62(10)}`;
    const procs: CliProcess[] = [];
    let env: Record<string, string>;
    let apis: CliProcess[] = [];

    beforeAll(async () => {
      if (missing.length) throw new Error(`CI=true and there is no ${missing.join(' or ')}`);
      assertBuilt();
      site = await startServer((req, res) => {
        const body = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
        if (body) res.writeHead(200, { 'content-type': 'text/html' }).end(body);
        else res.writeHead(404).end();
      });
      dbName = `unfurl_topo_${randomBase62(12).toLowerCase()}`;
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      await admin.end();
      const u = new URL(databaseUrl);
      u.pathname = `/${dbName}`;
      dbUrl = u.toString();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unfurl-topo-'));
      env = {
        DATABASE_URL: dbUrl,
        REDIS_URL: redisUrl,
        UNFURL_QUEUE_PREFIX: prefix,
        UNFURL_DATA_DIR: dataDir,
        UNFURL_PUBLIC_URL: 'http://127.0.0.1:8080',
        UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
        UNFURL_CHECKOUT: 'test',
        UNFURL_RATE_LIMIT_RPS: '100000',
        UNFURL_RATE_LIMIT_BURST: '100000',
        UNFURL_AUTH_RATE_LIMIT_PER_MINUTE: '100000',
        // One account submits crawls through both APIs at once.
        UNFURL_ACCOUNT_MAX_CRAWLS: '100',
      };
    }, 60_000);

    afterAll(async () => {
      await Promise.all(procs.map((p) => p.stop()));
      await site?.close();
      if (dbUrl) {
        // The processes have exited; wait until PostgreSQL has let go of their sessions, then drop.
        const admin = new pg.Client({ connectionString: databaseUrl });
        await admin.connect();
        await until(
          'no session on the test database',
          async () => {
            const { rows } = await admin.query(
              'select count(*)::int as n from pg_stat_activity where datname = $1',
              [dbName],
            );
            return rows[0].n === 0 ? true : undefined;
          },
          15_000,
          50,
        ).catch(() => {});
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        await admin.end();
      }
      if (hasRedis) await dropQueueKeys(redisUrl, prefix);
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    it('`unfurl migrate` creates the schema once, then finds it up to date', () => {
      const first = runCli(['migrate'], env);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/^applied: /);
      const again = runCli(['migrate'], env);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe('schema up to date');
    });

    it('serves from both APIs, runs jobs only on the workers, and revokes keys everywhere', async () => {
      apis = await Promise.all([startCli('serve', env), startCli('serve', env)]);
      procs.push(...apis);
      const [a, b] = apis.map((p) => p.url!) as [string, string];
      for (const p of apis) {
        // Distributed mode: PostgreSQL, BullMQ, and no job processing inside the API.
        const line = p
          .output()
          .split('\n')
          .find((l) => l.includes('"unfurl listening"'))!;
        expect(JSON.parse(line)).toMatchObject({ database: 'pg', queue: 'bullmq', jobs: false });
      }

      // The built server finds the dashboard's files (they live in the source tree, not in dist/).
      const dashboard = await fetch(`${a}/`);
      expect(dashboard.status).toBe(200);
      expect(await dashboard.text()).toContain('<title>Unfurl dashboard</title>');
      expect((await fetch(`${b}/dashboard/main.js`)).status).toBe(200);

      // One account, seen the same from both APIs.
      const { apiKey, accountId } = await registerOn(a);
      expect((await api(b, 'GET', '/v1/account', { key: apiKey })).body).toMatchObject({
        id: accountId,
        credits: 100,
      });

      // Jobs through both APIs; with no worker running they stay queued.
      const jobs: Array<{ id: string; via: string; other: string }> = [];
      for (const [via, other] of [
        [a, b],
        [b, a],
        [a, b],
        [b, a],
      ] as const) {
        const res = await api(via, 'POST', '/v1/web/crawl', {
          key: apiKey,
          body: { url: `${site.url}/`, limit: 2 },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        jobs.push({ id: res.body.jobId, via, other });
      }
      await sleep(1500);
      for (const j of jobs) {
        expect((await api(j.other, 'GET', `/v1/jobs/${j.id}`, { key: apiKey })).body.status).toBe('queued');
      }

      const starting = Date.now();
      // Each worker also answers /metrics on its own port (UNFURL_WORKER_METRICS_PORT).
      const metricsPorts = [await freePort(), await freePort()];
      const workers = await Promise.all(
        metricsPorts.map((port) => startCli('worker', { ...env, UNFURL_WORKER_METRICS_PORT: String(port) })),
      );
      procs.push(...workers);
      const started = Date.now();
      const workerStartMs = started - starting;
      for (const j of jobs) {
        const done = await until(
          `job ${j.id} to complete`,
          async () => {
            const res = await api(j.other, 'GET', `/v1/jobs/${j.id}`, { key: apiKey });
            return ['completed', 'failed'].includes(res.body.status) ? res.body : undefined;
          },
          60_000,
          100,
        );
        expect(done, JSON.stringify(done)).toMatchObject({ status: 'completed', queue: 'crawl' });
        const pages = await api(j.via, 'GET', `/v1/web/crawl/${j.id}`, { key: apiKey });
        expect(pages.body.pages.map((p: { url: string }) => p.url).sort()).toEqual([
          `${site.url}/`,
          `${site.url}/about`,
        ]);
      }
      const jobsMs = Date.now() - started;
      // Each crawl: held 1 + limit, settled 1 + pages = 3.
      expect((await api(a, 'GET', '/v1/account', { key: apiKey })).body.credits).toBe(100 - 4 * 3);
      expect((await api(b, 'GET', '/v1/account', { key: apiKey })).body.credits).toBe(100 - 4 * 3);

      // The credits were settled by the workers, and their own /metrics say so.
      let settledByWorkers = 0;
      for (const [i, w] of workers.entries()) {
        const url = await until(`worker ${i} metrics listener`, async () => {
          const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"worker metrics listening"/.exec(w.output());
          return m ? m[1] : undefined;
        });
        expect(url).toBe(`http://127.0.0.1:${metricsPorts[i]}/metrics`);
        const samples = parsePrometheus(await (await fetch(url)).text());
        settledByWorkers += sumOf(samples, 'unfurl_credits_spent_total', { source: 'job' });
        expect(sumOf(samples, 'unfurl_http_requests_total')).toBe(0); // a worker serves no API
      }
      expect(settledByWorkers).toBe(4 * 3);

      // Metrics of either API read the shared jobs table.
      const metrics = parsePrometheus(await (await fetch(`${b}/metrics`)).text());
      expect(sumOf(metrics, 'unfurl_jobs', { state: 'completed' })).toBe(4);
      expect(sumOf(metrics, 'unfurl_queue_depth', { queue: 'crawl' })).toBe(0);

      // A key revoked on API a: refused there at once, and on API b within a second.
      const created = await api(a, 'POST', '/v1/keys/create', { key: apiKey, body: { name: 'short-lived' } });
      expect(created.status).toBe(200);
      const key = created.body.key as string;
      expect((await api(b, 'GET', '/v1/account', { key })).status).toBe(200); // now in b's auth cache
      const revoked = await fetch(`${a}/v1/keys/${created.body.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(revoked.status).toBe(200);
      const revokedAt = Date.now();
      expect((await api(a, 'GET', '/v1/account', { key })).status).toBe(401);
      await until(
        'the revoked key to be refused by API b',
        async () => ((await api(b, 'GET', '/v1/account', { key })).status === 401 ? true : undefined),
        1000,
        25,
      );
      const refusedAfterMs = Date.now() - revokedAt;
      expect(refusedAfterMs).toBeLessThanOrEqual(1000);
      console.log(
        `topology: workers ready in ${workerStartMs} ms, 4 crawls done ${jobsMs} ms later; revoked key refused by the other API after ${refusedAfterMs} ms`,
      );

      // Both workers and both APIs stop cleanly on SIGTERM.
      for (const p of [...workers, ...apis]) {
        await p.stop();
        expect(p.child.exitCode, `${p.role}:\n${p.output().slice(-2000)}`).toBe(0);
      }
    }, 180_000);

    it('`serve --processes 2`: two processes on one port, connections spread over both, one /metrics for the group, a killed one replaced', async () => {
      // Only the distributed deployment runs a group, and the flag is checked.
      const embedded = runCli(['serve', '--processes', '2'], { UNFURL_DATA_DIR: dataDir });
      expect(embedded.status).toBe(1);
      expect(embedded.stderr).toMatch(/--processes above 1 needs the distributed deployment/);
      const bad = runCli(['serve', '--processes', 'many'], env);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/--processes takes a whole number/);

      const port = await freePort();
      const group = await startCli('serve', { ...env, PORT: String(port) }, 60_000, ['--processes', '2']);
      procs.push(group);
      const memberPids = () =>
        [...group.output().matchAll(/"memberPid":(\d+),"msg":"unfurl group: process started"/g)].map((m) =>
          Number(m[1]),
        );
      const listening = () => (group.output().match(/"msg":"unfurl listening"/g) ?? []).length;
      await until('both members listening', async () => (listening() >= 2 ? true : undefined), 30_000, 50);
      expect(listeningSockets(port)).toBe(2);

      const healthCount = async () =>
        sumOf(
          parsePrometheus(await (await fetch(`${group.url}/metrics`)).text()),
          'unfurl_http_requests_total',
          {
            route: '/health',
            status: '200',
          },
        );
      const before = await healthCount();
      // Each on a connection of its own: the kernel picks a process per connection.
      for (let i = 0; i < 40; i++) expect(await getOnNewConnection(`${group.url}/health`)).toBe(200);
      // Whichever process answers /metrics, it counts the whole group's requests.
      for (let i = 0; i < 4; i++) expect((await healthCount()) - before).toBe(40);
      const servedBy = new Set(
        [...group.output().matchAll(/"pid":(\d+),[^\n]*"route":"\/health"/g)].map((m) => Number(m[1])),
      );
      expect([...servedBy].sort()).toEqual([...memberPids()].sort());

      // A member that dies is replaced; the port keeps answering meanwhile.
      const [victim] = memberPids();
      process.kill(victim!, 'SIGKILL');
      // (Connections the dying process had accepted or queued are reset with it; once it is gone,
      // the kernel gives new ones to the survivor only.)
      await until('the killed member gone', async () => (alive(victim!) ? undefined : true), 10_000, 10);
      for (let i = 0; i < 10; i++) expect(await getOnNewConnection(`${group.url}/health`)).toBe(200);
      await until('a replacement listening', async () => (listening() >= 3 ? true : undefined), 30_000, 50);
      expect(group.output()).toMatch(
        /"code":null,"signal":"SIGKILL","msg":"unfurl group: process exited unexpectedly"/,
      );
      expect(memberPids()).toHaveLength(3);
      expect(listeningSockets(port)).toBe(2);

      // SIGTERM to the group stops every member and exits 0.
      await group.stop();
      expect(group.child.exitCode, group.output().slice(-2000)).toBe(0);
      for (const pid of memberPids()) expect(alive(pid), `member ${pid} still running`).toBe(false);
      expect(listeningSockets(port)).toBe(0);
    }, 120_000);
  },
);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A GET on a new connection, closed after the answer; its status. */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { connection: 'close' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}
