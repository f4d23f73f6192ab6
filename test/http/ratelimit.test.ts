// Rate limits (DESIGN §4, §9, §11): a token bucket per API key (UNFURL_RATE_LIMIT_RPS/BURST), one per
// account shared by all its keys and sessions (UNFURL_ACCOUNT_RATE_LIMIT_RPS/BURST), and one per client
// IP on register and login (UNFURL_AUTH_RATE_LIMIT_PER_MINUTE). With REDIS_URL the buckets live in
// Redis and are shared by every process; without it each process has its own.
import { randomInt } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiblingApp, createTestApp, type TestApp, uniqueEmail } from '../support/app.js';
import { usingRedis } from '../support/env.js';
import { PAID_PATH, paidTestRoutes } from '../support/paid-route.js';
import { closeTestApp } from '../support/teardown.js';

const RPS = 1;
const BURST = 3;
const PASSWORD = 'correct horse battery';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statuses = (rs: LightMyRequestResponse[]) => rs.map((r) => r.statusCode).sort();
/** A client address of our own, so that no other test (or earlier run, with Redis) shares its bucket. */
const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function expectRateLimited(res: LightMyRequestResponse, burst = BURST) {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['details', 'documentationUrl', 'error', 'message']);
  expect(body.error).toBe('rate_limited');
  expect(body.documentationUrl).toMatch(/\/docs\/reference#rate_limited$/);
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(res.headers['ratelimit-policy']).toMatch(new RegExp(`^"default";q=${burst};w=\\d+$`));
  expect(res.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
  expect(res.headers['x-credits-charged']).toBeUndefined();
  return Number(retryAfter);
}

describe('per-key token bucket', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(
      {
        UNFURL_RATE_LIMIT_RPS: String(RPS),
        UNFURL_RATE_LIMIT_BURST: String(BURST),
        // The account's own bucket is tested below; here it stays out of the way.
        UNFURL_ACCOUNT_RATE_LIMIT_RPS: '100000',
        UNFURL_ACCOUNT_RATE_LIMIT_BURST: '100000',
      },
      {
        extraRoutes: (app, services) => {
          paidTestRoutes(app, services);
          // A route with onRequest hooks of its own (an array, shared with its HEAD twin by Fastify).
          app.get('/v1/test/own-hooks', { onRequest: [async () => {}] }, async () => ({ ok: true }));
        },
      },
    );
  });
  afterAll(async () => closeTestApp(t));

  const many = (key: string, n: number, opts: InjectOptions = { method: 'GET', url: '/v1/account' }) =>
    Promise.all(Array.from({ length: n }, () => t.call(key, opts)));

  it(`the request after a burst of ${BURST} gets 429 rate_limited with Retry-After and RateLimit headers`, async () => {
    const { apiKey } = await t.register();
    const rs = await many(apiKey, BURST + 1);
    expect(statuses(rs)).toEqual([...Array(BURST).fill(200), 429]);
    const ok = rs.filter((r) => r.statusCode === 200);
    // Each allowed request reports the tokens left after it: BURST-1 … 0.
    expect(ok.map((r) => Number(/r=(\d+)/.exec(String(r.headers.ratelimit))![1])).sort()).toEqual(
      Array.from({ length: BURST }, (_, i) => i),
    );
    for (const r of ok)
      expect(r.headers['ratelimit-policy']).toBe(`"default";q=${BURST};w=${Math.ceil(BURST / RPS)}`);
    const retryAfter = expectRateLimited(rs.find((r) => r.statusCode === 429)!);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(1 / RPS));
  });

  it("another key of the same account, and another account's key, are not affected", async () => {
    const a = await t.register();
    const second = await t.services.accounts.createKey(a.accountId, 'second');
    const b = await t.register();
    const first = await many(a.apiKey, BURST + 1);
    expect(statuses(first)).toEqual([...Array(BURST).fill(200), 429]);
    const [again, other, elsewhere] = await Promise.all([
      t.call(a.apiKey, { method: 'GET', url: '/v1/account' }),
      t.call(second.key, { method: 'GET', url: '/v1/account' }),
      t.call(b.apiKey, { method: 'GET', url: '/v1/account' }),
    ]);
    expectRateLimited(again);
    expect(other.statusCode).toBe(200);
    expect(other.json().id).toBe(a.accountId);
    expect(elsewhere.statusCode).toBe(200);
  });

  it('a rate-limited request to a paid route costs nothing', async () => {
    const { apiKey, accountId } = await t.register();
    const rs = await many(apiKey, BURST + 1, { method: 'GET', url: PAID_PATH });
    expect(statuses(rs)).toEqual([...Array(BURST).fill(200), 429]);
    for (const r of rs.filter((x) => x.statusCode === 200)) expect(r.headers['x-credits-charged']).toBe('1');
    expectRateLimited(rs.find((r) => r.statusCode === 429)!);
    expect(await t.services.ledger.balance(accountId)).toBe(100 - BURST);
    const rows = await t.services.store.db
      .selectFrom('credit_transactions')
      .select(['type', 'amount'])
      .where('account_id', '=', accountId)
      .execute();
    // Each request that ran held its price, then released the hold and settled it; the refused one left nothing.
    expect(rows.map((r) => `${r.type}:${r.amount}`).sort()).toEqual(
      [
        'grant:100',
        ...Array(BURST).fill('hold:-1'),
        ...Array(BURST).fill('release:1'),
        ...Array(BURST).fill('settled:-1'),
      ].sort(),
    );
  });

  it('HEAD is not served, so it can neither run nor bill a paid GET', async () => {
    const { apiKey, accountId } = await t.register();
    const res = await t.call(apiKey, { method: 'HEAD', url: PAID_PATH });
    // The path exists with GET only: a 405 naming it.
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(await t.services.ledger.balance(accountId)).toBe(100);
  });

  it('tokens refill at the configured rate: after Retry-After seconds one more request passes', async () => {
    const { apiKey } = await t.register();
    const rs = await many(apiKey, BURST + 1);
    const retryAfter = expectRateLimited(rs.find((r) => r.statusCode === 429)!);
    await sleep(retryAfter * 1000 + 150);
    const refilled = await t.call(apiKey, { method: 'GET', url: '/v1/account' });
    expect(refilled.statusCode).toBe(200);
    // One token came back, not the whole bucket.
    expectRateLimited(await t.call(apiKey, { method: 'GET', url: '/v1/account' }));
  });

  it('a route with onRequest hooks of its own spends one token per request', async () => {
    const { apiKey } = await t.register();
    const rs = await many(apiKey, BURST + 1, { method: 'GET', url: '/v1/test/own-hooks' });
    expect(statuses(rs)).toEqual([...Array(BURST).fill(200), 429]);
  });
});

describe("per-account token bucket (by default as big as a key's)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ UNFURL_RATE_LIMIT_RPS: String(RPS), UNFURL_RATE_LIMIT_BURST: String(BURST) });
  });
  afterAll(async () => closeTestApp(t));

  const get = (key: string) => t.call(key, { method: 'GET', url: '/v1/account' });

  it('is shared by every key and session of the account: more keys add no requests', async () => {
    const a = await t.register();
    const keys = [a.apiKey];
    for (let i = 0; i < 4; i++) keys.push((await t.services.accounts.createKey(a.accountId, `k${i}`)).key);
    keys.push((await t.services.accounts.login(a.email, PASSWORD)).token);
    // One request per key or session: only BURST of them pass, whichever keys they used.
    const rs = await Promise.all(keys.map(get));
    expect(statuses(rs)).toEqual([...Array(BURST).fill(200), ...Array(keys.length - BURST).fill(429)]);
    for (const r of rs.filter((x) => x.statusCode === 429)) expectRateLimited(r);
    // A fresh key of the same account is refused too, while another account is served.
    const fresh = await t.services.accounts.createKey(a.accountId, 'fresh');
    expectRateLimited(await get(fresh.key));
    const b = await t.register();
    expect((await get(b.apiKey)).statusCode).toBe(200);
  });

  it('set tighter than the per-key bucket, it is the one that refuses (and fills the headers)', async () => {
    const tight = await createTestApp({
      UNFURL_RATE_LIMIT_RPS: '100',
      UNFURL_RATE_LIMIT_BURST: '100',
      UNFURL_ACCOUNT_RATE_LIMIT_RPS: String(RPS),
      UNFURL_ACCOUNT_RATE_LIMIT_BURST: '2',
    });
    try {
      const { apiKey } = await tight.register();
      const rs = await Promise.all(
        Array.from({ length: 3 }, () => tight.call(apiKey, { method: 'GET', url: '/v1/account' })),
      );
      expect(statuses(rs)).toEqual([200, 200, 429]);
      for (const r of rs) expect(r.headers['ratelimit-policy']).toMatch(/^"default";q=2;/);
      expectRateLimited(rs.find((r) => r.statusCode === 429)!, 2);
    } finally {
      await closeTestApp(tight);
    }
  });
});

describe('per-IP limit on register and login', () => {
  const PER_MINUTE = 3;
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ UNFURL_AUTH_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
  });
  afterAll(async () => closeTestApp(t));

  const register = (ip: string, email = uniqueEmail()) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      remoteAddress: ip,
      payload: { email, password: PASSWORD },
    });
  const login = (ip: string, email: string, password = PASSWORD) =>
    t.app.inject({ method: 'POST', url: '/v1/auth/login', remoteAddress: ip, payload: { email, password } });

  it(`the ${PER_MINUTE + 1}th register or login from one address in a minute gets 429; other addresses do not`, async () => {
    const ip = randomIp();
    const first = await register(ip);
    expect(first.statusCode).toBe(200);
    const { email, apiKey } = { email: first.json().email as string, apiKey: first.json().apiKey as string };
    expect((await login(ip, email, 'wrong password')).statusCode).toBe(401);
    expect((await login(ip, email)).statusCode).toBe(200);

    const retryAfter = expectRateLimited(await register(ip), PER_MINUTE);
    expect(retryAfter).toBeLessThanOrEqual(60 / PER_MINUTE);
    expectRateLimited(await login(ip, email), PER_MINUTE);

    // Another address is unaffected.
    expect((await register(randomIp())).statusCode).toBe(200);
    // The key-authenticated API is limited per key, not per address.
    const account = await t.app.inject({
      method: 'GET',
      url: '/v1/account',
      remoteAddress: ip,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(account.statusCode).toBe(200);
    // And other public routes are not IP-limited.
    const packages = await t.app.inject({ method: 'GET', url: '/v1/credits/packages', remoteAddress: ip });
    expect(packages.statusCode).toBe(200);
  });
});

describe('password change: attempts limited per address and per account, as login', () => {
  const PER_MINUTE = 3;
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ UNFURL_AUTH_RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
  });
  afterAll(async () => closeTestApp(t));

  // Each from an address of its own: registering is limited per address too.
  const register = async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      remoteAddress: randomIp(),
      payload: { email: uniqueEmail(), password: PASSWORD },
    });
    return res.json() as { apiKey: string };
  };
  const guess = (ip: string, key: string, currentPassword: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/auth/password',
      remoteAddress: ip,
      headers: { authorization: `Bearer ${key}` },
      payload: { currentPassword, newPassword: 'a much better passphrase' },
    });
  const newKey = async (key: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/v1/keys/create',
        remoteAddress: randomIp(),
        headers: { authorization: `Bearer ${key}` },
        payload: { name: 'second' },
      })
    ).json().key as string;

  it(`the ${PER_MINUTE + 1}th guess from one address is a 429; other addresses and keys of the account too`, async () => {
    const { apiKey } = await register();
    const ip = randomIp();
    for (let i = 0; i < PER_MINUTE; i++) {
      expect((await guess(ip, apiKey, `wrong guess ${i}`)).statusCode).toBe(403);
    }
    expectRateLimited(await guess(ip, apiKey, 'wrong guess again'), PER_MINUTE);
    // Per account: another address with another key of the same account is refused before any check,
    // even with the right password.
    expectRateLimited(await guess(randomIp(), await newKey(apiKey), PASSWORD), PER_MINUTE);
    // Another account, from its own address, is not affected.
    const other = await register();
    expect((await guess(randomIp(), other.apiKey, PASSWORD)).statusCode).toBe(200);
  });

  it('per address: fresh accounts guessing from one address are cut at the limit', async () => {
    const ip = randomIp();
    const codes: number[] = [];
    for (let i = 0; i <= PER_MINUTE; i++) {
      const { apiKey } = await register();
      codes.push((await guess(ip, apiKey, 'wrong guess')).statusCode);
    }
    expect(codes).toEqual([...Array(PER_MINUTE).fill(403), 429]);
  });
});

describe('two app instances on the same database (and Redis, when configured)', () => {
  let t: TestApp;
  let sibling: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ UNFURL_RATE_LIMIT_RPS: String(RPS), UNFURL_RATE_LIMIT_BURST: String(BURST) });
    sibling = await createSiblingApp(t);
  });
  afterAll(async () => closeTestApp(t, async () => sibling?.close()));

  it(
    usingRedis
      ? 'share one bucket per key through Redis'
      : 'each keep their own bucket (in-process limiter, no REDIS_URL)',
    async () => {
      const { apiKey } = await t.register();
      const get = (app: FastifyInstance) =>
        app.inject({ method: 'GET', url: '/v1/account', headers: { authorization: `Bearer ${apiKey}` } });
      const onFirst = await Promise.all(Array.from({ length: BURST }, () => get(t.app)));
      expect(statuses(onFirst)).toEqual(Array(BURST).fill(200));
      const onSecond = await get(sibling.app);
      if (usingRedis) {
        expectRateLimited(onSecond);
      } else {
        expect(onSecond.statusCode).toBe(200);
        expect(onSecond.headers.ratelimit).toBe(`"default";r=${BURST - 1};t=1`);
      }
      expectRateLimited(await get(t.app));
    },
  );
});
