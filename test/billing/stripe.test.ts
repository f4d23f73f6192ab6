// Stripe mode: purchases create a real Checkout Session through stripe-node against a loopback
// server speaking Stripe's protocol; Stripe's signed webhook credits each checkout exactly once.
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { FakeStripe } from '../support/stripe-server.js';

const SECRET_KEY = 'sk_test_x';
const WEBHOOK_SECRET = 'whsec_test';
// stripe-node is used here only as Stripe's own tool for signing test webhooks.
const signer = new Stripe(SECRET_KEY);

let stripe: FakeStripe;
let t: TestApp;

beforeAll(async () => {
  stripe = await FakeStripe.start(SECRET_KEY);
  t = await createTestApp({
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    UNFURL_CHECKOUT: 'stripe',
    UNFURL_UPSTREAM_STRIPE: stripe.url,
  });
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});
beforeEach(() => {
  stripe.failNext = null;
});

const balance = async (key: string) =>
  (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;

const purchases = async (key: string) => {
  const res = await t.call(key, { method: 'GET', url: '/v1/account/usage?type=purchase&limit=100' });
  expect(res.statusCode).toBe(200);
  return res.json() as { transactions: Array<{ amount: number; job_id: string }>; total: number };
};

/** Registers an account and starts a purchase; answers the checkout and the Stripe session id. */
async function startPurchase(packageId = 'credits_2000') {
  const account = await t.register();
  const res = await t.call(account.apiKey, {
    method: 'POST',
    url: '/v1/credits/purchase',
    payload: { package_id: packageId },
  });
  expect(res.statusCode).toBe(200);
  const checkout = res.json();
  const sessionId = [...stripe.sessions.values()].find((s) => s.metadata.checkoutId === checkout.id)?.id;
  if (!sessionId) throw new Error('no Stripe session was created for the checkout');
  return { ...account, checkout, sessionId };
}

const sign = (payload: string, opts: { secret?: string; timestamp?: number } = {}) =>
  signer.webhooks.generateTestHeaderString({
    payload,
    secret: opts.secret ?? WEBHOOK_SECRET,
    ...(opts.timestamp !== undefined && { timestamp: opts.timestamp }),
  });

const deliver = (payload: string, signature: string | null) =>
  t.call(null, {
    method: 'POST',
    url: '/v1/credits/webhook',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(signature !== null && { 'stripe-signature': signature }),
    },
    payload,
  });

const paid = { payment_status: 'paid' as const, status: 'complete' as const };

describe('POST /v1/credits/purchase (Stripe mode)', () => {
  it('creates a Checkout Session with stripe-node and answers its URL', async () => {
    const before = stripe.sessionRequests().length;
    const { checkout, sessionId, accountId, email, apiKey } = await startPurchase('credits_5000');
    const requests = stripe.sessionRequests().slice(before);
    expect(requests).toHaveLength(1);
    const req = requests[0]!;

    expect(checkout).toMatchObject({ packageId: 'credits_5000', credits: 5000, priceUsd: '35.00' });
    expect(checkout.id).toMatch(/^chk_/);
    expect(checkout.checkoutUrl).toBe(stripe.sessions.get(sessionId)!.url);
    expect(checkout.checkoutUrl).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);

    // What the real client put on the wire.
    expect(req.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(req.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(req.headers['idempotency-key']).toBe(checkout.id);
    expect(req.headers['stripe-version']).toBeTruthy();
    expect(req.params).toMatchObject({
      mode: 'payment',
      customer_email: email,
      client_reference_id: accountId,
      line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '3500' } }],
      metadata: { checkoutId: checkout.id, packageId: 'credits_5000', accountId },
    });
    expect(String((req.params as { success_url: string }).success_url)).toContain(checkout.id);

    // Nothing is credited until Stripe says the payment is done.
    expect(await balance(apiKey)).toBe(100);
    const row = await t.services.checkouts.get(checkout.id);
    expect(row).toMatchObject({ provider: 'stripe', provider_ref: sessionId, status: 'open' });
  });

  it.each([
    ['credits_500', '500'],
    ['credits_2000', '1500'],
    ['credits_15000', '10000'],
  ])('%s is charged %s cents', async (packageId, cents) => {
    const before = stripe.sessionRequests().length;
    await startPurchase(packageId);
    const req = stripe.sessionRequests()[before]!;
    expect(req.params).toMatchObject({
      line_items: [{ price_data: { currency: 'usd', unit_amount: cents } }],
    });
  });

  it('a Stripe failure is a 502 upstream_error, never Stripe’s own status, and no checkout is kept', async () => {
    const { apiKey, accountId } = await t.register();
    stripe.failNext = {
      status: 401,
      type: 'invalid_request_error',
      message: 'Invalid API Key provided: sk_test_x',
      times: 1,
    };
    const res = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/credits/purchase',
      payload: { package_id: 'credits_500' },
    });
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toBe('upstream_error');
    expect(res.body).not.toContain('sk_test');
    const rows = await t.services.store.db
      .selectFrom('checkouts')
      .selectAll()
      .where('account_id', '=', accountId)
      .execute();
    expect(rows).toHaveLength(0);

    stripe.failNext = { status: 400, type: 'invalid_request_error', message: 'Not a valid URL', times: 1 };
    const bad = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/credits/purchase',
      payload: { package_id: 'credits_500' },
    });
    expect(bad.statusCode).toBe(502);
    expect(bad.json().error).toBe('upstream_error');
  });

  it('Stripe unreachable is a 502 upstream_error too', async () => {
    const closed = await FakeStripe.start(SECRET_KEY);
    const deadUrl = closed.url;
    await closed.close();
    const down = await createTestApp({
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      UNFURL_CHECKOUT: 'stripe',
      UNFURL_UPSTREAM_STRIPE: deadUrl,
    });
    try {
      const { apiKey } = await down.register();
      const res = await down.call(apiKey, {
        method: 'POST',
        url: '/v1/credits/purchase',
        payload: { package_id: 'credits_500' },
      });
      expect(res.statusCode).toBe(502);
      expect(res.json().error).toBe('upstream_error');
      expect(await down.services.store.db.selectFrom('checkouts').selectAll().execute()).toHaveLength(0);
    } finally {
      await down.close();
    }
  });

  it('stripe-node retries a 500 with the same Idempotency-Key and the purchase succeeds', async () => {
    const before = stripe.sessionRequests().length;
    stripe.failNext = {
      status: 500,
      type: 'api_error',
      message: 'Something went wrong on our end',
      times: 1,
    };
    const { checkout } = await startPurchase('credits_500');
    const requests = stripe.sessionRequests().slice(before);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual([checkout.id, checkout.id]);
  });

  it('400 naming package_id for an unknown package, without calling Stripe', async () => {
    const { apiKey } = await t.register();
    const before = stripe.requests.length;
    const res = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/credits/purchase',
      payload: { package_id: 'credits_1' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toBe('package_id');
    expect(stripe.requests.length).toBe(before);
  });

  it('the test-mode confirm action refuses a Stripe checkout (403) and credits nothing', async () => {
    const { checkout, apiKey } = await startPurchase('credits_500');
    const res = await t.call(null, {
      method: 'POST',
      url: `/v1/credits/checkout/${checkout.id}/confirm`,
      headers: { accept: 'application/json' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('forbidden');
    const page = await t.call(null, {
      method: 'GET',
      url: `/v1/credits/checkout/${checkout.id}?result=success`,
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/no payment is taken/i);
    expect(page.body).not.toContain('/confirm');
    expect(await balance(apiKey)).toBe(100);
  });
});

describe('POST /v1/credits/webhook', () => {
  it('checkout.session.completed (paid) credits the package once', async () => {
    const { checkout, sessionId, apiKey } = await startPurchase('credits_2000');
    const payload = stripe.event('checkout.session.completed', sessionId, paid);
    const res = await deliver(payload, sign(payload));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ received: true, handled: true, outcome: 'credited' });
    expect(await balance(apiKey)).toBe(2100);
    const { transactions, total } = await purchases(apiKey);
    expect(total).toBe(1);
    expect(transactions[0]).toMatchObject({ amount: 2000, job_id: checkout.id });

    // Stripe redelivers: 200 again, nothing more.
    const again = await deliver(payload, sign(payload));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ handled: true, outcome: 'already' });
    expect(await balance(apiKey)).toBe(2100);

    // The checkout page now reports the purchase complete.
    const page = await t.call(null, {
      method: 'GET',
      url: `/v1/credits/checkout/${checkout.id}?result=success`,
    });
    expect(page.body).toContain('Purchase complete');
  });

  it('10 concurrent deliveries of the same event credit exactly once', async () => {
    const { sessionId, apiKey, checkout } = await startPurchase('credits_15000');
    const payload = stripe.event('checkout.session.completed', sessionId, paid);
    const signature = sign(payload);
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(payload, signature)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.json().outcome === 'credited')).toHaveLength(1);
    expect(answers.filter((a) => a.json().outcome === 'already')).toHaveLength(9);
    expect(await balance(apiKey)).toBe(15100);
    const { transactions, total } = await purchases(apiKey);
    expect(total).toBe(1);
    expect(transactions[0]).toMatchObject({ amount: 15000, job_id: checkout.id });
  });

  it('a bad signature is refused with 400 and credits nothing', async () => {
    const { sessionId, apiKey } = await startPurchase('credits_500');
    const payload = stripe.event('checkout.session.completed', sessionId, paid);
    for (const signature of [sign(payload, { secret: 'whsec_wrong' }), 't=123,v1=deadbeef', 'garbage']) {
      const res = await deliver(payload, signature);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.json().details).toBe('stripe-signature');
    }
    const missing = await deliver(payload, null);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_request');
    expect(await balance(apiKey)).toBe(100);
    expect((await purchases(apiKey)).total).toBe(0);
  });

  it('a stale timestamp (older than 300 s) is refused with 400 and credits nothing', async () => {
    const { sessionId, apiKey } = await startPurchase('credits_500');
    const payload = stripe.event('checkout.session.completed', sessionId, paid);
    const stale = sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 - 5 });
    const res = await deliver(payload, stale);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    expect(res.json().message).toMatch(/tolerance|timestamp/i);
    expect(await balance(apiKey)).toBe(100);
    // A fresh signature of the same event is accepted (the refusal was the timestamp's).
    const ok = await deliver(payload, sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 60 }));
    expect(ok.statusCode).toBe(200);
    expect(await balance(apiKey)).toBe(600);
  });

  it('a tampered body is refused with 400 and credits nothing', async () => {
    const { sessionId, apiKey } = await startPurchase('credits_500');
    const unpaidPayload = stripe.event('checkout.session.completed', sessionId, { payment_status: 'unpaid' });
    const signature = sign(unpaidPayload);
    const tampered = unpaidPayload.replace('"payment_status":"unpaid"', '"payment_status":"paid"');
    expect(tampered).not.toBe(unpaidPayload);
    const res = await deliver(tampered, signature);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    // Re-serialising the same JSON (whitespace) also breaks the signature: it is checked on raw bytes.
    const reformatted = JSON.stringify(JSON.parse(unpaidPayload), null, 2);
    expect((await deliver(reformatted, signature)).statusCode).toBe(400);
    expect(await balance(apiKey)).toBe(100);
    expect((await purchases(apiKey)).total).toBe(0);
  });

  it('completed but unpaid credits nothing; async_payment_succeeded then credits once', async () => {
    const { sessionId, apiKey, checkout } = await startPurchase('credits_2000');
    const pending = stripe.event('checkout.session.completed', sessionId, {
      payment_status: 'unpaid',
      status: 'complete',
    });
    const first = await deliver(pending, sign(pending));
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ received: true, handled: false });
    expect(await balance(apiKey)).toBe(100);
    expect((await t.services.checkouts.get(checkout.id))?.status).toBe('open');

    const succeeded = stripe.event('checkout.session.async_payment_succeeded', sessionId, paid);
    const second = await deliver(succeeded, sign(succeeded));
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({ handled: true, outcome: 'credited' });
    expect(await balance(apiKey)).toBe(2100);
    expect((await purchases(apiKey)).total).toBe(1);

    // If Stripe also sends the paid completion later, it is the same checkout: no second credit.
    const late = stripe.event('checkout.session.completed', sessionId, paid);
    expect((await deliver(late, sign(late))).json()).toMatchObject({ outcome: 'already' });
    expect(await balance(apiKey)).toBe(2100);
  });

  it('a failed async payment credits nothing', async () => {
    const { sessionId, apiKey } = await startPurchase('credits_500');
    const failed = stripe.event('checkout.session.async_payment_failed', sessionId, {
      payment_status: 'unpaid',
    });
    const res = await deliver(failed, sign(failed));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ received: true, handled: false });
    expect(await balance(apiKey)).toBe(100);
  });

  it('unknown event types answer 200 and change nothing', async () => {
    const { sessionId, apiKey } = await startPurchase('credits_500');
    for (const type of ['checkout.session.expired', 'payment_intent.succeeded', 'customer.created']) {
      const payload = stripe.event(type, sessionId, paid);
      const res = await deliver(payload, sign(payload));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true, handled: false });
    }
    expect(await balance(apiKey)).toBe(100);
    expect((await purchases(apiKey)).total).toBe(0);
  });

  it('finds the checkout by session id when metadata is missing; ignores sessions that are not ours', async () => {
    const { sessionId, apiKey, checkout } = await startPurchase('credits_500');
    const noMetadata = stripe.event('checkout.session.completed', sessionId, { ...paid, metadata: {} });
    const res = await deliver(noMetadata, sign(noMetadata));
    expect(res.json()).toMatchObject({ handled: true, outcome: 'credited' });
    expect(await balance(apiKey)).toBe(600);
    expect((await purchases(apiKey)).transactions[0]?.job_id).toBe(checkout.id);

    const foreign = JSON.parse(noMetadata);
    foreign.data.object.id = 'cs_test_not_ours';
    const payload = JSON.stringify(foreign);
    const other = await deliver(payload, sign(payload));
    expect(other.statusCode).toBe(200);
    expect(other.json()).toMatchObject({ received: true, handled: false });
    expect(await balance(apiKey)).toBe(600);
  });
});
