// 429 handling: against the real server with a tiny per-key bucket, the SDK waits what Retry-After
// says and then succeeds; with retries off it throws rate_limited with the wait. Against a loopback
// server that answers 429 without Retry-After, it backs off exponentially from 1 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRetryAfter, Unfurl, UnfurlError } from '../../packages/sdk/src/index.js';
import { uniqueEmail } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';
import { type ClientTestServer, startClientTestServer } from './server.js';

let s: ClientTestServer;

beforeAll(async () => {
  // One request per second, no burst beyond one: the second request at once is limited.
  s = await startClientTestServer({ UNFURL_RATE_LIMIT_RPS: '1', UNFURL_RATE_LIMIT_BURST: '1' });
});
afterAll(async () => {
  await s?.close();
});

function recordingFetch(log: { status: number; at: number; retryAfter: string | null }[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    log.push({ status: res.status, at: Date.now(), retryAfter: res.headers.get('retry-after') });
    return res;
  };
}

async function freshKey() {
  const reg = await new Unfurl({ baseUrl: s.url }).auth.register({
    email: uniqueEmail('retry'),
    password: 'correct horse battery',
  });
  return reg.apiKey;
}

describe('429 from the real server', () => {
  it('waits out Retry-After, then succeeds', async () => {
    const log: { status: number; at: number; retryAfter: string | null }[] = [];
    const client = new Unfurl({ baseUrl: s.url, apiKey: await freshKey(), fetch: recordingFetch(log) });
    await client.account.get();
    const started = Date.now();
    const account = await client.account.get();
    expect(account.credits).toBe(100);
    const statuses = log.map((l) => l.status);
    expect(statuses[0]).toBe(200);
    expect(statuses.slice(1)).toContain(429);
    expect(statuses.at(-1)).toBe(200);
    const limited = log.find((l) => l.status === 429)!;
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    // The retry came no sooner than the server asked.
    const retried = log[log.indexOf(limited) + 1]!;
    expect(retried.at - limited.at).toBeGreaterThanOrEqual(Number(limited.retryAfter) * 1000 - 20);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('throws rate_limited with the wait when retries are off', async () => {
    const client = new Unfurl({ baseUrl: s.url, apiKey: await freshKey(), retry: { maxRetries: 0 } });
    await client.account.get();
    const err = await client.account.get().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnfurlError);
    expect(err).toMatchObject({ code: 'rate_limited', status: 429 });
    expect((err as UnfurlError).retryAfterMs).toBeGreaterThanOrEqual(1000);
  });

  it('does not wait a Retry-After longer than maxDelayMs', async () => {
    const client = new Unfurl({ baseUrl: s.url, apiKey: await freshKey(), retry: { maxDelayMs: 100 } });
    await client.account.get();
    const started = Date.now();
    await expect(client.account.get()).rejects.toMatchObject({ code: 'rate_limited' });
    expect(Date.now() - started).toBeLessThan(900);
  });
});

describe('429 without Retry-After (a loopback server)', () => {
  let server: Loopback;
  const hits: number[] = [];
  beforeAll(async () => {
    server = await startServer((_req, res) => {
      hits.push(Date.now());
      if (hits.length <= 2) {
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'rate_limited', message: 'slow down', details: null }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('backs off 1 s, then 2 s', async () => {
    const client = new Unfurl({ baseUrl: server.url });
    expect(await client.health()).toEqual({ status: 'ok' });
    expect(hits.length).toBe(3);
    const first = hits[1]! - hits[0]!;
    const second = hits[2]! - hits[1]!;
    expect(first).toBeGreaterThanOrEqual(980);
    expect(first).toBeLessThan(1500);
    expect(second).toBeGreaterThanOrEqual(1980);
    expect(second).toBeLessThan(2600);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
