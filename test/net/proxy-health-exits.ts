// Loopback proxy exits for the proxy-health tests: an HTTP CONNECT proxy whose every tunnel lands on
// a server of its own, so each request through it is counted (tunnels are kept alive: counting
// CONNECTs would undercount) and answered as the test says — the platform's page, a bot check, a 429
// with Retry-After, a 503.
import type http from 'node:http';
import { ProxyPool, type ProxyPoolOptions } from '../../src/net/proxies.js';
import { SafeFetcher } from '../../src/net/safe-fetch.js';
import { Upstreams } from '../../src/net/upstream.js';
import { startConnectProxy, startServer } from '../support/loopback.js';

export type ExitAnswer = 'ok' | 'block' | '429' | '503';

export interface Exit {
  /** The proxy URL (put credentials in with `withCredentials`). */
  url: string;
  port: number;
  /** The path (with query) of every request that came out of this exit, in order. */
  hits: string[];
  /** How the exit answers a request: change it to change the exit's fate. */
  answer: (req: http.IncomingMessage) => ExitAnswer;
  /** Retry-After sent with a 429. */
  retryAfter: string | null;
  close(): Promise<void>;
}

/** Every request through any exit, in arrival order: [exit name, x-req header]. */
export type ExitLog = Array<[string, string]>;

export async function startExit(
  answer: ExitAnswer | ((req: http.IncomingMessage) => ExitAnswer),
  log?: { name: string; into: ExitLog },
): Promise<Exit> {
  const exit: Exit = {
    url: '',
    port: 0,
    hits: [],
    answer: typeof answer === 'string' ? () => answer : answer,
    retryAfter: null,
    close: async () => {},
  };
  const server = await startServer((req, res) => {
    exit.hits.push(req.url ?? '');
    log?.into.push([log.name, String(req.headers['x-req'] ?? '')]);
    const what = exit.answer(req);
    if (what === 'ok') {
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ path: req.url }));
    }
    if (what === 'block') {
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<form action="/sorry/index">unusual traffic</form>');
    }
    if (what === '429') {
      return res.writeHead(429, exit.retryAfter ? { 'retry-after': exit.retryAfter } : {}).end('slow down');
    }
    res.writeHead(503).end('busy');
  });
  const proxy = await startConnectProxy(() => `127.0.0.1:${server.port}`);
  exit.url = proxy.url;
  exit.port = proxy.port;
  exit.close = async () => {
    await proxy.close();
    await server.close();
  };
  return exit;
}

export const isBotCheck = (res: { body: Buffer }) => res.body.toString().includes('/sorry/index');

/** `http://user:secret@host:port`: the same proxy, with credentials in its URL. */
export const withCredentials = (url: string, user: string, password: string) =>
  url.replace('http://', `http://${user}:${password}@`);

export interface Rig {
  pool: ProxyPool;
  up: Upstreams;
  close(): Promise<void>;
}

/** A pool over these exits and the Upstreams that goes through it; platforms point at a dummy origin (the exits answer). */
export function rig(urls: string[], options: ProxyPoolOptions = {}, retryBaseMs = 5): Rig {
  const pool = new ProxyPool(urls, options);
  const fetcher = new SafeFetcher({ allowPrivateNetwork: true, proxies: pool, timeoutMs: 5000 });
  const up = new Upstreams(
    { youtube: 'http://127.0.0.1:9/yt', tiktok: 'http://127.0.0.1:9/tt' },
    fetcher,
    retryBaseMs,
  );
  return {
    pool,
    up,
    async close() {
      await fetcher.close();
      await pool.close();
    },
  };
}

/** Polls `check` until it holds (another process's lesson travels through Redis pub/sub). */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}
