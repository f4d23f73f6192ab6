// Proxy health, on loopback exits that count every request: a proxy a platform blocks or fails is
// benched for that platform (longer while it keeps failing, as long as Retry-After says when there is
// one), a retry never goes back to the proxy that just failed while another is healthy, one probe
// request brings a proxy back after its bench, and when every proxy is benched the answer is a 503
// with Retry-After at once. Proxies are named by index and host only, never their credentials.
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { errorStatus, retryAfterHeader } from '../../src/http/error-status.js';
import { metricsRegistry } from '../../src/metrics.js';
import type { ProxyPoolOptions } from '../../src/net/proxies.js';
import {
  type Exit,
  type ExitLog,
  isBotCheck,
  type Rig,
  rig,
  startExit,
  withCredentials,
} from './proxy-health-exits.js';

let open: Array<Exit | Rig> = [];
afterEach(async () => {
  for (const o of open) await o.close();
  open = [];
});

async function exits(...answers: Parameters<typeof startExit>[0][]): Promise<Exit[]> {
  const started = await Promise.all(answers.map((a) => startExit(a)));
  open.push(...started);
  return started;
}

function rigOver(urls: string[], options?: ProxyPoolOptions, retryBaseMs?: number): Rig {
  const r = rig(urls, options, retryBaseMs);
  open.push(r);
  return r;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const watch = (i: number | string) => `https://www.youtube.com/watch?v=${i}`;

/** The error a call fails with (a failure of the test if it succeeds). */
async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('a burned proxy', () => {
  it('gets almost nothing after its first block, sequential and concurrent', async () => {
    const [burned, a, b] = await exits('block', 'ok', 'ok');
    const { up } = rigOver([burned!.url, a!.url, b!.url], { benchMs: 60_000 });
    for (let i = 0; i < 30; i++) {
      const res = await up.fetch('youtube', watch(i), { blocked: isBotCheck });
      expect(res.status).toBe(200);
    }
    expect(burned!.hits).toHaveLength(1);
    expect(a!.hits.length + b!.hits.length).toBe(30);
    // The healthy ones still share the load in turn.
    expect(Math.abs(a!.hits.length - b!.hits.length)).toBeLessThanOrEqual(1);

    const [burned2, c, d] = await exits('block', 'ok', 'ok');
    const second = rigOver([burned2!.url, c!.url, d!.url], { benchMs: 60_000 });
    let next = 0;
    const worker = async () => {
      while (next < 60) {
        const res = await second.up.fetch('youtube', watch(`c${next++}`), { blocked: isBotCheck });
        expect(res.status).toBe(200);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    // Only requests already on their way when it was benched (at most one per worker) reach it.
    expect(burned2!.hits.length).toBeLessThanOrEqual(4);
    expect(c!.hits.length + d!.hits.length).toBe(60);
  });
});

describe('retries', () => {
  it('never go back to the proxy that just failed while another is healthy', async () => {
    const log: ExitLog = [];
    const blocked = await startExit('block', { name: 'blocked', into: log });
    const good = await startExit('ok', { name: 'good', into: log });
    open.push(blocked, good);
    const { up } = rigOver([blocked.url, good.url], { benchMs: 60_000 }, 20);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        up.fetch('youtube', watch(i), { blocked: isBotCheck, headers: { 'x-req': String(i) } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    for (let i = 0; i < 8; i++) {
      const tries = log.filter(([, id]) => id === String(i)).map(([name]) => name);
      for (let k = 1; k < tries.length; k++)
        expect([i, tries[k - 1], tries[k]]).not.toEqual([i, 'blocked', 'blocked']);
      expect(tries.at(-1)).toBe('good');
    }
  });
});

describe('Retry-After', () => {
  it('benches the proxy for as long as the platform says (seconds or an HTTP date), not the usual bench', async () => {
    const [limited, good] = await exits('429', 'ok');
    limited!.retryAfter = '1';
    const { up, pool } = rigOver([limited!.url, good!.url], { benchMs: 60_000 });
    expect((await up.fetch('youtube', watch(1))).status).toBe(200);
    expect(limited!.hits).toHaveLength(1);
    for (let i = 0; i < 5; i++) await up.fetch('youtube', watch(`more${i}`));
    expect(limited!.hits).toHaveLength(1);
    const [first] = (await pool.report())[0]!.platforms;
    expect(first).toMatchObject({ platform: 'youtube', benched: true, failures: 1, blocks: 1 });
    expect(first!.benchLeftMs).toBeGreaterThan(0);
    expect(first!.benchLeftMs).toBeLessThanOrEqual(1000);

    // After that second, one request probes it; it is still limited, and again for one second
    // (without Retry-After the second bench would be 120 s).
    await sleep(1050);
    expect((await up.fetch('youtube', watch(2))).status).toBe(200);
    expect(limited!.hits).toHaveLength(2);
    const [again] = (await pool.report())[0]!.platforms;
    expect(again).toMatchObject({ benched: true, failures: 2, blocks: 2 });
    expect(again!.benchLeftMs).toBeLessThanOrEqual(1000);

    // An HTTP date three seconds ahead (whole seconds: 2 to 3 s from now).
    limited!.retryAfter = new Date(Date.now() + 1050 + 3000).toUTCString();
    await sleep(1050);
    expect((await up.fetch('youtube', watch(3))).status).toBe(200);
    expect(limited!.hits).toHaveLength(3);
    const [dated] = (await pool.report())[0]!.platforms;
    expect(dated!.benchLeftMs).toBeGreaterThan(1000);
    expect(dated!.benchLeftMs).toBeLessThanOrEqual(3000);
  });
});

describe('every proxy benched', () => {
  it('answers 503 service_unavailable with Retry-After at once, sending nothing', async () => {
    const [x, y] = await exits('block', '503');
    const { up } = rigOver([x!.url, y!.url], { benchMs: 30_000 }, 50);
    // The request that finds out: both exits tried, then no proxy left to try.
    const first = await failure(up.fetch('youtube', watch(1), { blocked: isBotCheck }));
    expect(first.code).toBe('upstream_error');
    expect(first.message).toMatch(/after 2 attempts.*every proxy is now benched/);
    expect(Number(retryAfterHeader(first.retryAfterMs!))).toBeGreaterThanOrEqual(29);
    expect(x!.hits.length + y!.hits.length).toBe(2);

    const started = performance.now();
    const err = await failure(up.fetch('youtube', watch(2), { blocked: isBotCheck }));
    const elapsed = performance.now() - started;
    expect(err.code).toBe('service_unavailable');
    expect(errorStatus[err.code]).toBe(503);
    expect(Number(retryAfterHeader(err.retryAfterMs!))).toBeGreaterThanOrEqual(29);
    expect(Number(retryAfterHeader(err.retryAfterMs!))).toBeLessThanOrEqual(30);
    expect(elapsed).toBeLessThan(250);
    expect(x!.hits.length + y!.hits.length).toBe(2);
  });

  it('waits for a bench that ends within a second, and sends the request as its probe', async () => {
    let calls = 0;
    const [flaky] = await exits(() => (++calls === 1 ? '503' : 'ok'));
    const { up, pool } = rigOver([flaky!.url], { benchMs: 300 }, 1);
    const started = performance.now();
    const res = await up.fetch('youtube', watch(1));
    expect(res.status).toBe(200);
    // Not retried after the 1 ms pause: after the bench, through the same (only) proxy.
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect(flaky!.hits).toHaveLength(2);
    expect(pool.benched(0, 'youtube')).toBe(false);
  });
});

describe('the probe', () => {
  it('is one request only; its success brings the proxy back into the turn', async () => {
    const [back, good] = await exits('block', 'ok');
    const { up, pool } = rigOver([back!.url, good!.url], { benchMs: 400 });
    await up.fetch('youtube', watch(0), { blocked: isBotCheck });
    expect(back!.hits).toHaveLength(1);
    back!.answer = () => 'ok';
    await sleep(450);
    expect(pool.benched(0, 'youtube')).toBe(true);
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) => up.fetch('youtube', watch(`b${i}`), { blocked: isBotCheck })),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(back!.hits).toHaveLength(2);
    expect(pool.benched(0, 'youtube')).toBe(false);
    for (let i = 0; i < 10; i++) await up.fetch('youtube', watch(`s${i}`), { blocked: isBotCheck });
    expect(back!.hits.length - 2).toBe(5);
  });

  it('that fails doubles the bench, and its request goes on through a healthy proxy without pausing', async () => {
    const [burned, good] = await exits('block', 'ok');
    // A retry pause of 2 s would show.
    const { up, pool } = rigOver([burned!.url, good!.url], { benchMs: 300 }, 2000);
    await up.fetch('youtube', watch(0), { blocked: isBotCheck }).catch(() => {});
    await sleep(350);
    const started = performance.now();
    expect((await up.fetch('youtube', watch(1), { blocked: isBotCheck })).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(burned!.hits).toHaveLength(2);
    const [state] = (await pool.report())[0]!.platforms;
    expect(state).toMatchObject({ benched: true, failures: 2, blocks: 2 });
    expect(state!.benchLeftMs).toBeGreaterThan(300);
    expect(state!.benchLeftMs).toBeLessThanOrEqual(600);
  });
});

describe('platforms', () => {
  it('bench a proxy each for itself: blocked by one, it still serves another', async () => {
    const [picky, good] = await exits((req) => (req.url?.startsWith('/yt') ? 'block' : 'ok'), 'ok');
    const { up, pool } = rigOver([picky!.url, good!.url], { benchMs: 60_000 });
    await up.fetch('youtube', watch(0), { blocked: isBotCheck });
    for (let i = 1; i <= 10; i++) await up.fetch('youtube', watch(i), { blocked: isBotCheck });
    for (let i = 1; i <= 10; i++) await up.fetch('tiktok', `https://www.tiktok.com/@a/video/${i}`);
    expect(picky!.hits.filter((h) => h.startsWith('/yt'))).toHaveLength(1);
    expect(picky!.hits.filter((h) => h.startsWith('/tt'))).toHaveLength(5);
    expect(pool.benched(0, 'youtube')).toBe(true);
    expect(pool.benched(0, 'tiktok')).toBe(false);
  });

  it('leave the open web out: one site failing benches nothing', async () => {
    const [failing, good] = await exits('503', 'ok');
    const { up, pool } = rigOver([failing!.url, good!.url], { benchMs: 60_000 });
    await up.fetch('web', 'http://127.0.0.1:9/page', { attempts: 2 });
    expect(pool.benched(0, 'web')).toBe(false);
    await up.fetch('web', 'http://127.0.0.1:9/other', { attempts: 2 });
    expect(failing!.hits).toHaveLength(2);
  });
});

describe('naming proxies', () => {
  it('shows index and host in /metrics, never the credentials of the proxy URL', async () => {
    const [blocked, good] = await exits('block', 'ok');
    const { up } = rigOver([withCredentials(blocked!.url, 'proxyuser', 'hunter2'), good!.url], {
      benchMs: 60_000,
    });
    await up.fetch('youtube', watch(0), { blocked: isBotCheck });
    const text = await metricsRegistry.metrics();
    const host = `127.0.0.1:${blocked!.port}`;
    expect(text).toContain(`unfurl_proxy_benched{proxy="0",host="${host}",platform="youtube"} 1`);
    expect(text).toContain(
      `unfurl_proxy_failures_total{proxy="0",host="${host}",platform="youtube",outcome="blocked"} 1`,
    );
    expect(text).toContain(
      `unfurl_proxy_benched{proxy="1",host="127.0.0.1:${good!.port}",platform="youtube"}`,
    );
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('proxyuser');
  });

  it('refuses a malformed UNFURL_PROXY_URLS at start, naming the setting but not the password', () => {
    for (const bad of [
      'http://u:pw1@proxy.example:8080,socks5://u:hunter2@proxy.example:1080',
      'http://u:pw1@proxy.example:8080, proxy.example:hunter2',
      'http://u:pw1@proxy.example:8080,http://',
    ]) {
      const err = (() => {
        try {
          loadConfig({ UNFURL_PROXY_URLS: bad });
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).variable).toBe('UNFURL_PROXY_URLS');
      expect((err as Error).message).toMatch(/UNFURL_PROXY_URLS: entry 2 is not an http/);
      expect((err as Error).message).not.toMatch(/hunter2|pw1/);
    }
    expect(
      loadConfig({ UNFURL_PROXY_URLS: 'http://u:p@a.example:8080, https://b.example' }).proxyUrls,
    ).toEqual(['http://u:p@a.example:8080', 'https://b.example']);
  });
});
