// Load shedding on a real app over real sockets (it decides in the HTTP server's listener, which
// app.inject does not pass through): past the configured event-loop delay or number of requests in
// progress, a new request is answered at once with 503 service_unavailable and Retry-After, before
// authentication — nothing is held or charged — while /health keeps answering; the process admits
// requests again once it has caught up.
import type http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Loopback, startServer } from '../support/loopback.js';

const apps: TestApp[] = [];
let site: Loopback | undefined;
afterEach(async () => {
  await Promise.all(apps.splice(0).map((t) => t.close()));
});
afterAll(async () => site?.close());

interface Answer {
  statusCode: number;
  headers: Headers;
  body: string;
  json(): { error?: string; message?: string; credits?: number };
}

/** The app listening on a loopback port, and a GET over a real connection to it. */
async function appWith(env: Record<string, string>) {
  const t = await createTestApp({ UNFURL_ALLOW_PRIVATE_NETWORK: 'true', ...env });
  apps.push(t);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const get = async (key: string | null, path: string): Promise<Answer> => {
    const res = await fetch(`${base}${path}`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    const body = await res.text();
    return { statusCode: res.status, headers: res.headers, body, json: () => JSON.parse(body) };
  };
  return Object.assign(t, { get, base });
}
type ServedApp = Awaited<ReturnType<typeof appWith>>;

/** An account made through the service (a request of its own could be the one shed). */
async function account(t: TestApp) {
  const email = `shed-${Math.random().toString(36).slice(2)}@example.com`;
  return t.services.accounts.register(email, 'a long enough password');
}

/** GET /v1/account every `pauseMs` while it is shed (for up to 5 s); the status it ends with. */
async function accountOnceAdmitted(t: ServedApp, apiKey: string, pauseMs: number) {
  let status = 503;
  const deadline = Date.now() + 5000;
  while (status === 503 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, pauseMs));
    status = (await t.get(apiKey, '/v1/account')).statusCode;
  }
  return status;
}

const balance = async (t: TestApp, accountId: string) =>
  (await t.services.accounts.getAccount(accountId)).credits;

function blockEventLoop(ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: nothing else may run
  }
}

describe('load shedding', () => {
  it('sheds on event-loop delay: 503 with Retry-After, nothing charged, /health answers, then recovers', async () => {
    const t = await appWith({
      UNFURL_SHED_EVENT_LOOP_DELAY_MS: '20',
      UNFURL_SHED_MAX_IN_FLIGHT: '0',
      UNFURL_SHED_RETRY_AFTER_SECONDS: '3',
    });
    const { accountId, apiKey } = await account(t);
    const before = await balance(t, accountId);

    // Sustained overload: the loop is kept busy in 40 ms slices, so every sample of its delay is late
    // (a single stall followed by idle waits for the database is diluted in the window's mean).
    let busy = true;
    const spin = () => {
      if (!busy) return;
      blockEventLoop(40);
      setImmediate(spin);
    };
    spin();
    let shed: Answer | undefined;
    try {
      const until = Date.now() + 10_000;
      while (!shed && Date.now() < until) {
        const res = await t.get(apiKey, '/v1/credits/packages');
        if (res.statusCode === 503) shed = res;
        // A cached authentication answers in microtasks alone: yield so timers (and the spin) run.
        else await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      busy = false;
    }
    expect(shed, 'a request was shed after the stall').toBeDefined();
    expect(shed!.json()).toMatchObject({ error: 'service_unavailable' });
    expect(shed!.json().message).toMatch(/overloaded/);
    expect(shed!.json().message).toMatch(/retry after 3 s/);
    expect(shed!.headers.get('retry-after')).toBe('3');
    expect(shed!.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(shed!.headers.get('x-request-id')).toMatch(/^req_/);
    const health = await t.get(null, '/health');
    expect(health.statusCode).toBe(200);

    // Caught up: requests are admitted again, and only the admitted paid one is charged.
    expect(await accountOnceAdmitted(t, apiKey, 50)).toBe(200);
    expect(await balance(t, accountId)).toBe(before);
    const metrics = await t.get(null, '/metrics');
    expect(metrics.body).toMatch(/unfurl_http_shed_total\{reason="event_loop_delay"\} [1-9]/);
  });

  it('sheds past the requests in progress: a paid request in flight is charged, the one refused is not', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const handler: http.RequestListener = (req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      arrived();
      void gate.then(() =>
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<html><head><title>Slow</title></head><body><main><p>Slow page text.</p></main></body></html>',
          ),
      );
    };
    site = await startServer(handler);
    const t = await appWith({ UNFURL_SHED_EVENT_LOOP_DELAY_MS: '0', UNFURL_SHED_MAX_IN_FLIGHT: '1' });
    const { accountId, apiKey } = await account(t);
    const before = await balance(t, accountId);

    const slow = t.get(apiKey, `/v1/web/scrape?url=${encodeURIComponent(`${site.url}/slow`)}`);
    await reached;
    const refused = await t.get(apiKey, '/v1/account');
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ error: 'service_unavailable' });
    expect(refused.json().message).toMatch(/too many requests in progress/);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect((await t.get(null, '/health')).statusCode).toBe(200);
    expect((await t.get(null, '/ready')).statusCode).toBe(200);

    release();
    const done = await slow;
    expect(done.statusCode).toBe(200);
    expect(await balance(t, accountId)).toBe(before - 1);
    // The slot is free again.
    expect((await t.get(apiKey, '/v1/account')).statusCode).toBe(200);
  });

  it('frees the slot of a request whose client went away, though its work upstream never ends', async () => {
    let arrived: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // The page never answers: only the client going away can end the request's slot.
    const hanging = await startServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      arrived();
    });
    try {
      const t = await appWith({ UNFURL_SHED_EVENT_LOOP_DELAY_MS: '0', UNFURL_SHED_MAX_IN_FLIGHT: '1' });
      const { apiKey } = await account(t);
      const abort = new AbortController();
      const gone = fetch(`${t.base}/v1/web/scrape?url=${encodeURIComponent(`${hanging.url}/never`)}`, {
        headers: { authorization: `Bearer ${apiKey}` },
        signal: abort.signal,
      }).catch(() => 'aborted');
      await reached;
      expect((await t.get(apiKey, '/v1/account')).statusCode).toBe(503);
      abort.abort();
      expect(await gone).toBe('aborted');
      expect(await accountOnceAdmitted(t, apiKey, 20)).toBe(200);
    } finally {
      await hanging.close();
    }
  });

  it('is off when both limits are 0', async () => {
    const t = await appWith({ UNFURL_SHED_EVENT_LOOP_DELAY_MS: '0', UNFURL_SHED_MAX_IN_FLIGHT: '0' });
    const { apiKey } = await account(t);
    blockEventLoop(300);
    await new Promise((r) => setTimeout(r, 150));
    expect((await t.get(apiKey, '/v1/account')).statusCode).toBe(200);
  });
});
