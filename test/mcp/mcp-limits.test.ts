// The limits of /mcp over real HTTP: a JSON-RPC batch is bounded and pays one rate-limit token per
// message, from the key's bucket and the account's, before any message is handled; a job tool's wait
// ends when its client goes away, with no poll after it.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH_MESSAGES } from '../../src/http/routes/mcp.js';
import { createTestApp, type TestApp } from '../support/app.js';

const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const batch = (n: number) => Array.from({ length: n }, (_, i) => list(i + 1));

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

function postMcp(url: string, apiKey: string, body: unknown): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'x-api-key': apiKey,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
}

describe('MCP batches', () => {
  const KEY_BURST = 6;
  const ACCOUNT_BURST = 10;
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    // Buckets that hardly refill during the test: what a request takes stays taken.
    t = await createTestApp({
      UNFURL_RATE_LIMIT_RPS: '0.001',
      UNFURL_RATE_LIMIT_BURST: String(KEY_BURST),
      UNFURL_ACCOUNT_RATE_LIMIT_RPS: '0.001',
      UNFURL_ACCOUNT_RATE_LIMIT_BURST: String(ACCOUNT_BURST),
    });
    url = await listen(t);
  });
  afterAll(async () => t?.close());

  it(`more than ${MAX_BATCH_MESSAGES} messages is a 400 naming the body`, async () => {
    const { apiKey } = await t.register();
    const res = await postMcp(url, apiKey, batch(MAX_BATCH_MESSAGES + 1));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', details: 'body' });
  });

  it('an answer carries X-Request-Id and the RateLimit headers, as every other route does', async () => {
    const { apiKey } = await t.register();
    const res = await postMcp(url, apiKey, list(1));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"default";q=\d+;w=\d+$/);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it("each message takes a token from the key's bucket", async () => {
    const { apiKey } = await t.register();
    const res = await postMcp(url, apiKey, batch(KEY_BURST));
    expect(res.status).toBe(200);
    const answers = (await res.json()) as Array<{ id: number; result: { tools: unknown[] } }>;
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    for (const a of answers) expect(a.result.tools.length).toBeGreaterThan(0);
    // The batch spent the whole bucket: the next request is refused.
    const next = await postMcp(url, apiKey, list(1));
    expect(next.status).toBe(429);
    expect(((await next.json()) as { error: string }).error).toBe('rate_limited');
  });

  it('a batch larger than what is left is a 429 with Retry-After, before any message is handled', async () => {
    const { apiKey } = await t.register();
    const res = await postMcp(url, apiKey, batch(KEY_BURST + 1));
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Our error body, not a JSON-RPC answer.
    expect(await res.json()).toMatchObject({ error: 'rate_limited' });
  });

  it("each message takes a token from the account's bucket, shared by its keys", async () => {
    const { apiKey } = await t.register();
    const made = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/keys/create',
      payload: { name: 'second' },
    });
    expect(made.statusCode, made.body).toBeLessThan(300);
    const second = made.json().key as string;
    expect(second).toMatch(/^uf_/);
    // The account has ACCOUNT_BURST - 1 left; five go with the first key's batch.
    expect((await postMcp(url, apiKey, batch(5))).status).toBe(200);
    // The second key's bucket is full, but the account's has too few left for five more.
    const res = await postMcp(url, second, batch(5));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeTruthy();
  });
});

describe('MCP job waits', () => {
  let t: TestApp;
  let url: string;
  /** When each poll of an OCR job reached the app. */
  const polls: number[] = [];

  beforeAll(async () => {
    // No job processing: an OCR job stays queued, so a wait on it never ends by itself.
    t = await createTestApp(
      {},
      {
        logger: {
          level: 'info',
          stream: {
            write(line: string) {
              const entry = JSON.parse(line) as { msg?: string; req?: { method?: string; url?: string } };
              if (
                entry.msg === 'request completed' &&
                entry.req?.method === 'GET' &&
                /^\/v1\/video\/ocr\/job_/.test(entry.req.url ?? '')
              ) {
                polls.push(Date.now());
              }
            },
          },
        },
      },
    );
    url = await listen(t);
  });
  afterAll(async () => t?.close());

  it('a client that stays polls until the wait runs out, then gets the job id', async () => {
    const { apiKey } = await t.register();
    const before = polls.length;
    const res = await postMcp(url, apiKey, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ocr', arguments: { url: 'GJLlxj_dtq8', waitSeconds: 2 } },
    });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { content: Array<{ text: string }> } };
    const answer = JSON.parse(result.content[0]!.text) as Record<string, unknown>;
    expect(answer.jobId).toMatch(/^job_/);
    expect(answer.message).toMatch(/job_status/);
    expect(polls.length - before).toBe(2);
  });

  it('a job tool stops polling when its client goes away', async () => {
    const { apiKey } = await t.register();
    const before = polls.length;
    // A connection of its own (not fetch's pool), destroyed as a client that goes away would.
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ocr', arguments: { url: 'GJLlxj_dtq8', waitSeconds: 40 } },
    });
    const req = http.request(`${url}/mcp`, {
      method: 'POST',
      agent: false,
      headers: {
        'x-api-key': apiKey,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    req.on('error', () => {});
    req.end(body);
    // The server polls once a second: wait for the first poll, then go away.
    const deadline = Date.now() + 10_000;
    while (polls.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(polls.length - before).toBe(1);
    req.destroy();
    const gone = Date.now();
    // Three poll intervals: a wait that goes on would poll about three more times.
    await new Promise((r) => setTimeout(r, 3000));
    expect(polls.filter((at) => at > gone)).toEqual([]);
  });
});
