// The shared outbound HTTP layer against loopback servers: decompression, caps, redirects, timeouts,
// proxies, and the SSRF guard when a proxy stands between us and the target.
import net from 'node:net';
import os from 'node:os';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { ProxyPool } from '../../src/net/proxies.js';
import { BlockedAddressError, SafeFetcher } from '../../src/net/safe-fetch.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../support/loopback.js';

const text = 'Unfurl '.repeat(2000);
let site: Loopback;
let proxy: LoopbackProxy;
let fetcher: SafeFetcher;

beforeAll(async () => {
  site = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const hop = Number(url.searchParams.get('n') ?? 0);
    switch (url.pathname) {
      case '/gzip':
        return res
          .writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'Text/Plain; charset=utf-8' })
          .end(zlib.gzipSync(text));
      case '/br':
        return res.writeHead(200, { 'content-encoding': 'br' }).end(zlib.brotliCompressSync(text));
      case '/deflate':
        return res.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateSync(text));
      case '/broken-gzip':
        return res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('not gzip at all'));
      case '/chain':
        if (hop < Number(url.searchParams.get('to'))) {
          return res
            .writeHead(302, { location: `/chain?n=${hop + 1}&to=${url.searchParams.get('to')}` })
            .end();
        }
        return res.writeHead(200).end(`end at ${hop}`);
      case '/slow':
        setTimeout(() => res.writeHead(200).end('late'), 2000).unref();
        return;
      case '/bomb':
        // 50 MB of zeros that compress to ~50 KB: the cap counts decoded bytes.
        return res
          .writeHead(200, { 'content-encoding': 'gzip' })
          .end(zlib.gzipSync(Buffer.alloc(50 * 1024 * 1024)));
      default:
        return res.writeHead(200, { 'content-type': 'text/html' }).end(text);
    }
  });
  proxy = await startConnectProxy();
  fetcher = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 5000, maxBytes: 1024 * 1024 });
});

afterAll(async () => {
  await fetcher.close();
  await site.close();
  await proxy.close();
});

describe('SafeFetcher', () => {
  it('asks for compression and decodes gzip, brotli and deflate', async () => {
    for (const path of ['/gzip', '/br', '/deflate']) {
      const res = await fetcher.fetch(`${site.url}${path}`);
      expect(res.body.toString(), path).toBe(text);
    }
    const res = await fetcher.fetch(`${site.url}/gzip`);
    expect(res.contentType).toBe('text/plain');
    expect(res.truncated).toBe(false);
  });

  it('answers a clear upstream_error for a body that is not validly compressed', async () => {
    await expect(fetcher.fetch(`${site.url}/broken-gzip`)).rejects.toMatchObject({ code: 'upstream_error' });
  });

  it('caps the decoded size: 413 payload_too_large, or a cut body with truncate', async () => {
    const err = await fetcher.fetch(`${site.url}/bomb`).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('payload_too_large');
    const cut = await fetcher.fetch(`${site.url}/bomb`, { truncate: true, maxBytes: 100_000 });
    expect(cut.truncated).toBe(true);
    expect(cut.body.length).toBe(100_000);
  });

  it('follows up to 10 redirects, listing them, and hands back the 11th as the answer', async () => {
    const ten = await fetcher.fetch(`${site.url}/chain?to=10`);
    expect(ten.status).toBe(200);
    expect(ten.body.toString()).toBe('end at 10');
    expect(ten.redirects).toHaveLength(10);
    expect(ten.url).toBe(`${site.url}/chain?n=10&to=10`);
    const eleven = await fetcher.fetch(`${site.url}/chain?to=11`);
    expect(eleven.status).toBe(302);
    expect(eleven.redirects).toHaveLength(10);
  });

  it('sends a GET again on a fresh connection when its kept-alive one was closed, never a POST', async () => {
    // Answers the first request of each connection and keeps it open; a second request on the same
    // connection is met with a reset, as from a server that closed an idle connection meanwhile.
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      let served = 0;
      socket.on('data', () => {
        if (served++ === 0) {
          socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: timeout=60\r\n\r\nok');
        } else socket.resetAndDestroy();
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
    const own = new SafeFetcher({ allowPrivateNetwork: true, timeoutMs: 5000 });
    try {
      expect((await own.fetch(url)).body.toString()).toBe('ok');
      expect((await own.fetch(url)).body.toString()).toBe('ok');
      expect(connections).toBe(2);
      await expect(own.fetch(url, { method: 'POST', body: 'x' })).rejects.toThrow();
      expect(connections).toBe(2);
    } finally {
      await own.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('gives up on a slow server at the time limit', async () => {
    const started = Date.now();
    await expect(fetcher.fetch(`${site.url}/slow`, { timeoutMs: 300 })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1900);
  });

  it('goes through the proxy pool when asked, in turn', async () => {
    const pooled = new SafeFetcher({ allowPrivateNetwork: true, proxies: new ProxyPool([proxy.url]) });
    try {
      const before = proxy.connects.length;
      const res = await pooled.fetch(`${site.url}/plain`, { proxy: true });
      expect(res.body.toString()).toBe(text);
      expect(proxy.connects.slice(before)).toEqual([`127.0.0.1:${site.port}`]);
      await pooled.fetch(`${site.url}/plain`); // not asked: direct
      expect(proxy.connects.length).toBe(before + 1);
    } finally {
      await pooled.close();
      await pooled.proxies?.close();
    }
  });

  it('checks the target itself when a proxy would hide it: a name resolving to loopback is refused', async () => {
    const strict = new SafeFetcher({ allowPrivateNetwork: false, proxies: new ProxyPool([proxy.url]) });
    try {
      const before = proxy.connects.length;
      const url = `http://${os.hostname()}:${site.port}/plain`; // resolves to 127.0.0.1 here (/etc/hosts)
      await expect(strict.fetch(url, { proxy: true })).rejects.toBeInstanceOf(BlockedAddressError);
      await expect(strict.fetch(url)).rejects.toBeInstanceOf(BlockedAddressError);
      expect(proxy.connects.length).toBe(before); // never even reached the proxy
    } finally {
      await strict.close();
      await strict.proxies?.close();
    }
  });
});

// One redirect walker serves fetch() and stream(): the same hop limit, checks and header rules.
describe('SafeFetcher redirects (fetch and stream alike)', () => {
  /** What the requests that were not redirected carried. */
  let received: { method: string; headers: Record<string, string | string[] | undefined>; body: string }[];
  let elsewhere: Loopback;
  let origin: Loopback;

  beforeAll(async () => {
    received = [];
    const record: Parameters<typeof startServer>[0] = (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ method: req.method ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('landed');
      });
    };
    // Two origins (two ports): /go redirects to ?to=… with the status ?status=…, anything else records.
    const handler: Parameters<typeof startServer>[0] = (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname !== '/go') return record(req, res);
      req.resume();
      const status = Number(url.searchParams.get('status') ?? 302);
      res.writeHead(status, { location: url.searchParams.get('to')! }).end();
    };
    elsewhere = await startServer(handler);
    origin = await startServer(handler);
  });

  afterAll(async () => {
    await elsewhere.close();
    await origin.close();
  });

  const secrets = { cookie: 'session=s3cret', authorization: 'Bearer s3cret', 'x-kept': 'yes' };
  const hop = (to: string, status = 302) => `${origin.url}/go?status=${status}&to=${encodeURIComponent(to)}`;
  const paths = {
    fetch: async (url: string) => (await fetcher.fetch(url, { headers: secrets })).url,
    stream: async (url: string) => {
      const res = await fetcher.stream(url, { headers: secrets });
      res.body.resume();
      return res.url;
    },
  };

  for (const [name, get] of Object.entries(paths)) {
    it(`${name}: drops cookie and authorization when a redirect leaves the origin`, async () => {
      received.length = 0;
      expect(await get(hop(`${elsewhere.url}/landing`))).toBe(`${elsewhere.url}/landing`);
      expect(received).toHaveLength(1);
      expect(received[0]!.headers.cookie).toBeUndefined();
      expect(received[0]!.headers.authorization).toBeUndefined();
      expect(received[0]!.headers['x-kept']).toBe('yes');
    });

    it(`${name}: keeps them on a redirect within the origin`, async () => {
      received.length = 0;
      await get(hop('/landing'));
      expect(received[0]!.headers.cookie).toBe(secrets.cookie);
      expect(received[0]!.headers.authorization).toBe(secrets.authorization);
    });

    it(`${name}: does not give them back when a later hop returns to the first origin`, async () => {
      received.length = 0;
      // origin → elsewhere (dropped there) → origin again: once dropped, they stay dropped.
      const back = `${elsewhere.url}/go?to=${encodeURIComponent(`${origin.url}/landing`)}`;
      expect(await get(hop(back))).toBe(`${origin.url}/landing`);
      expect(received[0]!.headers.cookie).toBeUndefined();
      expect(received[0]!.headers.authorization).toBeUndefined();
    });
  }

  it('fetch: 303 (and 301/302 after POST) turn into a GET without the body and its headers; 307/308 keep them', async () => {
    const post = (status: number) =>
      fetcher.fetch(hop('/landing', status), {
        method: 'POST',
        body: '{"a":1}',
        headers: { 'content-type': 'application/json' },
      });
    for (const status of [301, 302, 303]) {
      received.length = 0;
      await post(status);
      expect(received[0], String(status)).toMatchObject({ method: 'GET', body: '' });
      expect(received[0]!.headers['content-type'], String(status)).toBeUndefined();
    }
    for (const status of [307, 308]) {
      received.length = 0;
      await post(status);
      expect(received[0], String(status)).toMatchObject({ method: 'POST', body: '{"a":1}' });
      expect(received[0]!.headers['content-type'], String(status)).toBe('application/json');
    }
  });

  it('stream: follows at most maxRedirects hops, like fetch', async () => {
    const chain = `${site.url}/chain?to=3`;
    const res = await fetcher.stream(chain, { maxRedirects: 2 });
    res.body.resume();
    expect(res.status).toBe(302);
    expect(res.redirects).toHaveLength(2);
    const fetched = await fetcher.fetch(chain, { maxRedirects: 2 });
    expect(fetched.status).toBe(302);
    expect(fetched.redirects).toEqual(res.redirects);
  });
});
