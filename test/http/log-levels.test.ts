// A platform or AI provider failing is expected weather and is logged at warn, without a stack; only
// our own faults (internal_error) are logged at error. Every request writes one info line, when it is
// answered: method, URL, status and its time in ms rounded to hundredths.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { roundedMs } from '../../src/http/app.js';
import { formatLogLine } from '../../src/main/log-format.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

interface Line {
  level: number;
  msg: string;
  err?: unknown;
  reqId?: string;
  route?: string;
  accountId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  error?: string;
}
const lines: Line[] = [];
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp(
    {},
    {
      logger: { level: 'info', stream: { write: (l: string) => void lines.push(JSON.parse(l)) } },
      extraRoutes: (app: FastifyInstance) => {
        app.get('/v1/test/fail/:how', async (request) => {
          const how = (request.params as { how: string }).how;
          if (how === 'upstream') throw new AppError('upstream_error', 'The platform answered 503');
          if (how === 'provider')
            throw new AppError('provider_unavailable', 'The AI provider is not answering');
          throw new Error('a bug of ours');
        });
      },
    },
  );
  key = (await t.register()).apiKey;
});
afterAll(async () => closeTestApp(t));

describe('log levels of failed requests', () => {
  it('upstream and provider failures: warn, no stack; our own fault: error with the stack', async () => {
    for (const how of ['upstream', 'provider', 'bug']) {
      await t.call(key, { method: 'GET', url: `/v1/test/fail/${how}` });
    }
    const upstream = lines.find((l) => l.msg === 'The platform answered 503');
    expect(upstream?.level).toBe(40);
    expect(upstream?.err).toBeUndefined();
    expect(lines.find((l) => l.msg === 'The AI provider is not answering')?.level).toBe(40);
    const bug = lines.find((l) => l.msg === 'request failed');
    expect(bug?.level).toBe(50);
    expect(JSON.stringify(bug?.err)).toContain('a bug of ours');
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1);
  });
});

describe('one log line per request', () => {
  const ofRequest = (id: unknown) => lines.filter((l) => l.reqId === id);

  it('an answered request: one info line with method, URL, status, route, account and a rounded time', async () => {
    const { apiKey, accountId } = await t.register();
    const res = await t.call(apiKey, { method: 'GET', url: '/v1/account' });
    expect(res.statusCode).toBe(200);
    const own = ofRequest(res.headers['x-request-id']);
    expect(own).toHaveLength(1);
    const [line] = own;
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', url: '/v1/account' },
      res: { statusCode: 200 },
      route: '/v1/account',
      accountId,
    });
    expect(typeof line?.responseTime).toBe('number');
    expect(String(line?.responseTime)).toMatch(/^\d+(\.\d{1,2})?$/);
    expect(lines.some((l) => l.msg === 'incoming request')).toBe(false);
  });

  it("a monitor feed's token stays out of the request line", async () => {
    const secret = 'a0b1c2d3e4f5a0b1c2d3e4f5a0b1c2d3';
    const res = await t.call(null, { method: 'GET', url: `/v1/monitors/mon_x/feed.atom?token=${secret}` });
    expect(res.statusCode).toBe(404);
    const own = ofRequest(res.headers['x-request-id']);
    expect(own.at(-1)).toMatchObject({ req: { url: '/v1/monitors/mon_x/feed.atom?token=…' } });
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it('a failed request: its error line and its one request line', async () => {
    const res = await t.call(key, { method: 'GET', url: '/v1/test/fail/bug' });
    expect(res.statusCode).toBe(500);
    const own = ofRequest(res.headers['x-request-id']);
    expect(own.map((l) => [l.level, l.msg])).toEqual([
      [50, 'request failed'],
      [30, 'request completed'],
    ]);
    expect(own[1]).toMatchObject({
      res: { statusCode: 500 },
      req: { method: 'GET', url: '/v1/test/fail/bug' },
    });
  });

  it('a refused request (no key) and an unknown path: one request line each, with the error code', async () => {
    for (const [url, code] of [
      ['/v1/account', 'unauthorized'],
      ['/v1/no/such/path', 'not_found'],
    ] as const) {
      const res = await t.call(null, { method: 'GET', url });
      const own = ofRequest(res.headers['x-request-id']);
      const done = own.filter((l) => l.msg === 'request completed');
      expect(done, JSON.stringify(own)).toHaveLength(1);
      expect(done[0]).toMatchObject({ res: { statusCode: res.statusCode }, error: code });
      // Besides it, only the reason the error handler gives (plugins/errors.ts).
      expect(own.length).toBeLessThanOrEqual(2);
    }
  });

  it('rounds the time to hundredths of a ms', () => {
    expect(roundedMs(3.9518620000003466)).toBe(3.95);
    expect(roundedMs(12)).toBe(12);
    expect(roundedMs(0.004)).toBe(0);
  });

  it('reads on a terminal as `request completed: GET /url 200 3.95 ms`, the rest after it', () => {
    const json = JSON.stringify({
      level: 30,
      time: 0,
      reqId: 'req_1',
      req: { method: 'GET', url: '/v1/account', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: 3.95,
      route: '/v1/account',
      msg: 'request completed',
    });
    expect(formatLogLine(json, false)).toBe(
      '00:00:00.000 INFO  request completed: GET /v1/account 200 3.95 ms  reqId=req_1 route=/v1/account req.remoteAddress=127.0.0.1\n',
    );
  });
});
