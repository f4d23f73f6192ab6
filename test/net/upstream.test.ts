// Platform clients' way out: base-URL overrides, and proxy rotation with retries when the first
// proxy's exit is blocked (it answers a bot check) and the next one gets through. Proxy health
// (benches, probes, Retry-After, every proxy benched) is in proxy-health*.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../src/errors.js';
import { retryAfterHeader } from '../../src/http/error-status.js';
import { ProxyPool } from '../../src/net/proxies.js';
import { SafeFetcher } from '../../src/net/safe-fetch.js';
import { Upstreams } from '../../src/net/upstream.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../support/loopback.js';

let platform: Loopback;
let botCheck: Loopback;
let blockedProxy: LoopbackProxy;
let goodProxy: LoopbackProxy;
const seen: string[] = [];

beforeAll(async () => {
  platform = await startServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url?.startsWith('/flaky')) return res.writeHead(503).end('busy');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }));
  });
  botCheck = await startServer((_req, res) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<form action="/sorry/index">unusual traffic</form>'),
  );
  // This proxy's exit is "blocked": whatever is asked, the tunnel lands on the bot-check page.
  blockedProxy = await startConnectProxy(() => `127.0.0.1:${botCheck.port}`);
  goodProxy = await startConnectProxy();
});

afterAll(async () => {
  await Promise.all([platform.close(), botCheck.close(), blockedProxy.close(), goodProxy.close()]);
});

const isBotCheck = (res: { body: Buffer }) => res.body.toString().includes('/sorry/index');

describe('Upstreams', () => {
  it('rewrites every host of a platform to its override, keeping path and query', () => {
    const fetcher = new SafeFetcher({ allowPrivateNetwork: true });
    const up = new Upstreams({ youtube: `${platform.url}/yt` }, fetcher, 0);
    expect(up.resolve('youtube', 'https://www.youtube.com/watch?v=abc')).toBe(
      `${platform.url}/yt/watch?v=abc`,
    );
    expect(up.resolve('youtube', 'https://youtubei.googleapis.com/youtubei/v1/player?x=1')).toBe(
      `${platform.url}/yt/youtubei/v1/player?x=1`,
    );
    expect(up.resolve('tiktok', 'https://www.tiktok.com/@a/video/1')).toBe(
      'https://www.tiktok.com/@a/video/1',
    );
  });

  it('retries a blocked answer through the next proxy and returns the good one', async () => {
    const proxies = new ProxyPool([blockedProxy.url, goodProxy.url]);
    const fetcher = new SafeFetcher({ allowPrivateNetwork: true, proxies });
    const up = new Upstreams({ youtube: platform.url }, fetcher, 10);
    try {
      const res = await up.fetch('youtube', 'https://www.youtube.com/watch?v=abc', { blocked: isBotCheck });
      expect(JSON.parse(res.body.toString())).toEqual({ path: '/watch?v=abc' });
      expect(blockedProxy.connects).toHaveLength(1);
      expect(goodProxy.connects).toEqual([`127.0.0.1:${platform.port}`]);
    } finally {
      await fetcher.close();
      await proxies.close();
    }
  });

  it('gives up with 502 upstream_error once every proxy is blocked (and benched)', async () => {
    const proxies = new ProxyPool([blockedProxy.url], { benchMs: 60_000 });
    const fetcher = new SafeFetcher({ allowPrivateNetwork: true, proxies });
    const up = new Upstreams({ youtube: platform.url }, fetcher, 5);
    try {
      const before = blockedProxy.connects.length;
      // The only proxy is benched for a minute after its block: no second try through it.
      const refused = up.fetch('youtube', 'https://www.youtube.com/watch?v=blocked', { blocked: isBotCheck });
      await expect(refused).rejects.toMatchObject({
        code: 'upstream_error',
        message: expect.stringMatching(
          /after 1 attempt \(last: a block \(a bot check, a captcha or an empty answer\)\); every proxy is now benched/,
        ),
      });
      const err = (await refused.catch((e: unknown) => e)) as AppError;
      expect(retryAfterHeader(err.retryAfterMs!)).toBe('60');
      expect(blockedProxy.connects.length - before).toBeGreaterThanOrEqual(1);
      // Only the blocked exit was tried: the platform itself never saw the request.
      expect(seen).not.toContain('/watch?v=blocked');
    } finally {
      await fetcher.close();
      await proxies.close();
    }
  });

  it('retries 5xx directly when no proxy is configured, as many times as asked', async () => {
    const fetcher = new SafeFetcher({ allowPrivateNetwork: true });
    const up = new Upstreams({ youtube: platform.url }, fetcher, 1);
    try {
      let before = seen.length;
      await expect(up.fetch('youtube', 'https://www.youtube.com/flaky')).rejects.toMatchObject({
        code: 'upstream_error',
        message: expect.stringContaining('HTTP 503'),
      });
      expect(seen.length - before).toBe(3);
      before = seen.length;
      await expect(up.fetch('youtube', 'https://www.youtube.com/flaky', { attempts: 2 })).rejects.toThrow();
      expect(seen.length - before).toBe(2);
    } finally {
      await fetcher.close();
    }
  });
});
