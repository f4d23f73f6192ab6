// Monitors under a crash, with REAL processes: twenty channel monitors tick every 800 ms for about 50 s
// (over 1,000 ticks) against a replay of the platform's captured channel page, which publishes its
// five newest videos one by one meanwhile. Distributed (PostgreSQL + Redis): an API process and two
// workers ticking through BullMQ's job schedulers, one worker killed with SIGKILL and restarted
// mid-run. Embedded: the one process, killed and restarted on the same data. Every monitor must
// report every published video exactly once — no duplicate, none lost — by event and by webhook.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import { createTestEnv, type TestEnv } from '../support/env.js';
import {
  api,
  disposeEnv,
  type JobProcess,
  killAllJobProcesses,
  registerOn,
  sleep,
  startJobProcess,
  until,
} from '../support/job-processes.js';
import { CAPTURES, startYouTubeReplay, type YouTubeReplay } from '../support/youtube-replay.js';

const distributed = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const CHANNEL = 'UCs6nmQViDpUw0nuIx9c_WvA';
const MONITORS = 20;
const EVERY_MS = 800;
const RUN_MS = 48_000;
const PUBLISHED = 5;

const hidden = new Set<string>();
const players: Record<string, Record<string, string>> = {};
const watch: Record<string, string> = {};
let replay: YouTubeReplay;
let env: TestEnv;
let store: Store;
const hooks: Array<{ id: string; body: { type: string; data: Record<string, unknown> } }> = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    hooks.push({
      id: String(req.headers['webhook-id']),
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
    });
    res.writeHead(200).end('ok');
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  replay = await startYouTubeReplay({ hiddenVideos: hidden, players, watch });
  env = await createTestEnv({
    UNFURL_UPSTREAM_YOUTUBE: replay.url,
    UNFURL_ALLOW_PRIVATE_NETWORK: 'true',
    UNFURL_UPSTREAM_RETRY_BASE_MS: '1',
    UNFURL_UPSTREAM_CACHE_TTL_SECONDS: '0',
    UNFURL_MONITOR_MIN_INTERVAL: '100ms',
    UNFURL_MONITOR_POLL_MS: '50',
    UNFURL_JOB_POLL_MS: '50',
    UNFURL_JOB_BACKOFF_MS: '100',
    UNFURL_JOB_SWEEP_MS: '500',
    UNFURL_JOB_LEASE_MS: '10000',
    UNFURL_WEBHOOK_RETRY_BASE_MS: '100',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS: '1000',
    UNFURL_ACCOUNT_MAX_MONITOR_CHECKS_PER_HOUR: '10000000',
  });
  if (!distributed) delete env.env.REDIS_URL;
  store = openStore(env.config);
});

afterAll(async () => {
  await killAllJobProcesses();
  await store.close();
  await disposeEnv(env);
  await replay.close();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
});

it(`reports each published video once per monitor through a kill -9 (${distributed ? 'PostgreSQL + Redis, 2 workers' : 'embedded'})`, async () => {
  let server: JobProcess = await startJobProcess('serve', env.env);
  const workers: JobProcess[] = distributed
    ? await Promise.all([startJobProcess('worker', env.env), startJobProcess('worker', env.env)])
    : [];
  const url = server.url!;
  const { apiKey: key, accountId } = await registerOn(url);
  // Credits through the ledger, as an operator's grant.
  await grant(accountId, 100_000);

  // The five newest videos are not published yet; their player and watch page answer from captures.
  const listed = await api(url, 'GET', `/v1/vidsite/channel/videos?id=${CHANNEL}&limit=${PUBLISHED}`, {
    key,
  });
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  const upcoming = (listed.body.videoIds as string[]).slice(0, PUBLISHED).reverse();
  for (const id of upcoming) {
    hidden.add(id);
    players[id] = { '*': CAPTURES.playerOk };
    watch[id] = CAPTURES.watchPage;
  }

  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const ids: string[] = [];
  for (let i = 0; i < MONITORS; i++) {
    const res = await api(url, 'POST', '/v1/monitors', {
      key,
      body: { kind: 'channel', target: CHANNEL, every: `${EVERY_MS}ms`, webhookUrl: hookUrl },
    });
    // A failure says why in the server's own log.
    const errors = () =>
      server
        .output()
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
    expect(res.status, `${JSON.stringify(res.body)}\n${errors().join('\n')}`).toBe(201);
    ids.push(res.body.id as string);
  }
  await until('every baseline', async () => ((await checksDone()) >= MONITORS ? true : undefined), 60_000);

  // Publish one video every RUN_MS / (PUBLISHED + 1); kill and restart a process in the middle.
  const started = Date.now();
  const step = RUN_MS / (PUBLISHED + 1);
  for (let i = 0; i < PUBLISHED; i++) {
    await sleep(step);
    hidden.delete(upcoming[i]!);
    if (i === 1) {
      const victim = distributed ? workers[0]! : server;
      await victim.kill9();
      await sleep(1500);
      if (distributed) workers[0] = await startJobProcess('worker', env.env);
      else server = await startJobProcess('serve', env.env);
    }
  }
  await sleep(Math.max(0, RUN_MS - (Date.now() - started)));

  const expected = ids.length * PUBLISHED;
  await until(
    async () => `${expected} video events (have ${await videoEvents()})`,
    async () => ((await videoEvents()) >= expected ? true : undefined),
    90_000,
  );
  const ticks = await ticksTaken();
  expect(ticks).toBeGreaterThanOrEqual(1000);

  // Exactly one event per monitor and video, each the one its webhook carried.
  const rows = await store.db
    .selectFrom('monitor_events')
    .selectAll()
    .where('type', '=', 'video.new')
    .execute();
  const pairs = rows.map((r) => `${r.monitor_id} ${(JSON.parse(r.data) as { videoId: string }).videoId}`);
  expect(new Set(pairs).size).toBe(pairs.length);
  expect(pairs.sort()).toEqual(ids.flatMap((m) => upcoming.map((v) => `${m} ${v}`)).sort());
  await until(
    () => `${expected} webhooks (have ${new Set(hooks.map((h) => h.id)).size})`,
    async () =>
      new Set(hooks.filter((h) => h.body.type === 'video.new').map((h) => h.id)).size >= expected
        ? true
        : undefined,
    60_000,
  );
  const delivered = new Map<string, Set<string>>();
  for (const h of hooks.filter((x) => x.body.type === 'video.new')) {
    const pair = `${h.body.data.monitorId} ${h.body.data.videoId}`;
    delivered.set(pair, (delivered.get(pair) ?? new Set()).add(String(h.body.data.eventId)));
  }
  expect([...delivered.keys()].sort()).toEqual([...new Set(pairs)].sort());
  for (const [pair, events] of delivered) expect(events.size, pair).toBe(1);

  // Billed once per check: the ledger's sum of settled check charges equals the jobs' costs.
  // Checks keep running while we read, and a check's ending settles and completes it in one
  // transaction, so both sums come from one statement: one snapshot of the database.
  const { rows: sums } = await sql<{ cost: number | string | null; charged: number | string | null }>`
    select
      (select sum(cost) from jobs where kind = 'monitor_check' and status = 'completed') as cost,
      (select sum(amount) from credit_transactions
        where type = 'settled' and operation = 'monitor_check') as charged`.execute(store.db);
  expect(-Number(sums[0]!.charged)).toBe(Number(sums[0]!.cost));
}, 300_000);

async function grant(accountId: string, amount: number) {
  const { Ledger } = await import('../../src/billing/ledger.js');
  await new Ledger(store.db, store.dialect).grant(accountId, amount, 'test: monitors run');
}

async function checksDone(): Promise<number> {
  const r = await store.db
    .selectFrom('monitors')
    .select((eb) => eb.fn.sum<number | string>('checks').as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n ?? 0);
}

async function ticksTaken(): Promise<number> {
  const r = await store.db
    .selectFrom('monitors')
    .select((eb) => eb.fn.sum<number | string>('ticks').as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n ?? 0);
}

async function videoEvents(): Promise<number> {
  const r = await store.db
    .selectFrom('monitor_events')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('type', '=', 'video.new')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
