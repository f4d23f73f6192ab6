// `unfurl admin proxies`, run as the real built binary: every proxy of UNFURL_PROXY_URLS by index and
// host (never its credentials) with its state per platform. With REDIS_URL it shows the bench the
// processes share, here one benched by a pool on the same Redis and prefix; without, the configured
// proxies and a note that each process keeps its own bench.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/ids.js';
import { ensureBuilt, runCli } from '../support/cli.js';
import { usingRedis } from '../support/env.js';
import {
  type Exit,
  eventually,
  isBotCheck,
  type Rig,
  rig,
  startExit,
  withCredentials,
} from './proxy-health-exits.js';

const prefix = `unfurl-test-${randomBase62(10)}`;
let burned: Exit;
let good: Exit;
let redis: Redis | null = null;
let pool: Rig;
let urls: string[];

beforeAll(async () => {
  await ensureBuilt();
  [burned, good] = await Promise.all([startExit('block'), startExit('ok')]);
  urls = [withCredentials(burned.url, 'proxyuser', 'hunter2'), good.url];
  redis = usingRedis ? new Redis(process.env.REDIS_URL!) : null;
  pool = rig(urls, { benchMs: 60_000, shared: redis && { redis, prefix } });
  await pool.up.fetch('youtube', 'https://www.youtube.com/watch?v=a', { blocked: isBotCheck });
  // The shared write is not waited for by the request: wait for it here.
  if (redis) {
    expect(await eventually(async () => (await pool.pool.report())[0]!.platforms.length > 0)).toBe(true);
  }
}, 180_000);

afterAll(async () => {
  await pool?.close();
  redis?.disconnect();
  await burned?.close();
  await good?.close();
});

const admin = (...args: string[]) =>
  runCli(['admin', 'proxies', ...args], {
    UNFURL_PROXY_URLS: urls.join(','),
    UNFURL_QUEUE_PREFIX: prefix,
    UNFURL_DATA_DIR: '/nonexistent-unfurl-admin-proxies',
    ...(usingRedis && { REDIS_URL: process.env.REDIS_URL! }),
  });

describe('unfurl admin proxies', () => {
  it('lists every proxy by index and host with its state per platform, never its credentials', async () => {
    const r = await admin();
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^#\s+host\s+platform\s+state\s+bench left\s+failures\s+blocks\s+errors$/);
    const burnedHost = `127.0.0.1:${burned.port}`;
    const goodHost = `127.0.0.1:${good.port}`;
    if (usingRedis) {
      expect(lines[1]).toMatch(
        new RegExp(`^0\\s+${burnedHost}\\s+youtube\\s+benched\\s+(59|60)s\\s+1\\s+1\\s+0$`),
      );
      expect(r.stderr).toBe('');
    } else {
      expect(lines[1]).toMatch(new RegExp(`^0\\s+${burnedHost}\\s+-\\s+healthy\\s+-\\s+0\\s+0\\s+0$`));
      expect(r.stderr).toMatch(/without REDIS_URL each process keeps its own bench/);
    }
    expect(lines[2]).toMatch(new RegExp(`^1\\s+${goodHost}\\s+-\\s+healthy`));
    expect(lines).toHaveLength(3);
    expect(r.stdout + r.stderr).not.toMatch(/hunter2|proxyuser/);
  });

  it('answers JSON with --json', async () => {
    const r = await admin('--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toHaveLength(2);
    expect(report[0]).toMatchObject({ index: 0, host: `127.0.0.1:${burned.port}` });
    expect(report[0].platforms).toEqual(
      usingRedis
        ? [
            expect.objectContaining({
              platform: 'youtube',
              benched: true,
              failures: 1,
              blocks: 1,
              errors: 0,
            }),
          ]
        : [],
    );
    expect(r.stdout).not.toMatch(/hunter2|proxyuser/);
  });

  it('refuses arguments it does not know', async () => {
    const r = await admin('--all');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unfurl admin proxies \[--json\]/);
  });
});
