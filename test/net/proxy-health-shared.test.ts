// Two processes, played by two pools on two Redis connections under one key prefix: with REDIS_URL
// the bench is shared — a proxy one benches the other avoids, a process started later knows it, and
// after the bench one probe serves them all. Without REDIS_URL each keeps its own (the in-process
// bench), as the rate limiters do.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/ids.js';
import type { ProxyPoolOptions } from '../../src/net/proxies.js';
import { usingRedis } from '../support/env.js';
import { type Exit, eventually, isBotCheck, type Rig, rig, startExit } from './proxy-health-exits.js';

const connections: Redis[] = [];
let open: Array<Exit | Rig> = [];
beforeAll(() => {
  if (usingRedis) for (let i = 0; i < 3; i++) connections.push(new Redis(process.env.REDIS_URL!));
});
afterEach(async () => {
  for (const o of open) await o.close();
  open = [];
});
afterAll(() => {
  for (const c of connections) c.disconnect();
});

/** Processes' pools over the same proxies, sharing Redis (when configured) under one fresh prefix. */
function processes(urls: string[], options: ProxyPoolOptions) {
  const prefix = `unfurl-test-${randomBase62(10)}`;
  return (index: number): Rig => {
    const r = rig(urls, { ...options, shared: usingRedis ? { redis: connections[index]!, prefix } : null });
    open.push(r);
    return r;
  };
}

async function exits(...answers: Array<'ok' | 'block'>): Promise<Exit[]> {
  const started = await Promise.all(answers.map((a) => startExit(a)));
  open.push(...started);
  return started;
}

const watch = (i: number | string) => `https://www.youtube.com/watch?v=${i}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(usingRedis ? 'the bench shared through Redis' : 'the bench of each process (no REDIS_URL)', () => {
  it(
    usingRedis
      ? "serves one process's lesson to the others, a process started later included"
      : 'is learnt by each process for itself',
    async () => {
      const [burned, good] = await exits('block', 'ok');
      const start = processes([burned!.url, good!.url], { benchMs: 60_000 });
      const first = start(0);
      const second = start(1);
      await first.up.fetch('youtube', watch(0), { blocked: isBotCheck });
      expect(burned!.hits).toHaveLength(1);
      expect(first.pool.benched(0, 'youtube')).toBe(true);
      if (usingRedis) {
        expect(await eventually(() => second.pool.benched(0, 'youtube'))).toBe(true);
        for (let i = 1; i <= 6; i++) await second.up.fetch('youtube', watch(i), { blocked: isBotCheck });
        expect(burned!.hits).toHaveLength(1);
        expect(good!.hits).toHaveLength(7);
        // One started now reads the board from Redis.
        const later = start(2);
        expect(await eventually(() => later.pool.benched(0, 'youtube'))).toBe(true);
        expect((await later.pool.report())[0]!.platforms[0]).toMatchObject({
          platform: 'youtube',
          benched: true,
          failures: 1,
          blocks: 1,
        });
      } else {
        expect(second.pool.benched(0, 'youtube')).toBe(false);
        await second.up.fetch('youtube', watch(1), { blocked: isBotCheck });
        expect(burned!.hits).toHaveLength(2);
      }
    },
  );

  it(
    usingRedis ? 'lets one probe through for every process' : 'lets each process send its own probe',
    async () => {
      const [back, good] = await exits('block', 'ok');
      const start = processes([back!.url, good!.url], { benchMs: 400 });
      const rigs = [start(0), start(1)];
      await rigs[0]!.up.fetch('youtube', watch(0), { blocked: isBotCheck });
      if (!usingRedis) await rigs[1]!.up.fetch('youtube', watch(1), { blocked: isBotCheck });
      const before = back!.hits.length;
      expect(before).toBe(usingRedis ? 1 : 2);
      if (usingRedis) expect(await eventually(() => rigs[1]!.pool.benched(0, 'youtube'))).toBe(true);
      back!.answer = () => 'ok';
      await sleep(450);
      const burst = await Promise.all(
        rigs.flatMap((r, p) =>
          Array.from({ length: 4 }, (_, i) =>
            r.up.fetch('youtube', watch(`p${p}-${i}`), { blocked: isBotCheck }),
          ),
        ),
      );
      expect(burst.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(back!.hits.length - before).toBe(usingRedis ? 1 : 2);
      // Its success brings it back for both.
      expect(
        await eventually(() => !rigs[0]!.pool.benched(0, 'youtube') && !rigs[1]!.pool.benched(0, 'youtube')),
      ).toBe(true);
    },
  );
});
