// Credit packages, purchases and the built-in test-mode checkout (UNFURL_CHECKOUT=test, the
// harness default): its page's security headers, and a confirm accepted only with the page's token
// and never from another site; plus purchases refused with UNFURL_CHECKOUT=off.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { confirmCheckout, confirmToken } from '../support/checkout.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

interface Txn {
  id: string;
  amount: number;
  type: string;
  description: string;
  job_id: string | null;
  created_at: number;
}

const balance = async (app: TestApp, key: string) => {
  const res = await app.call(key, { method: 'GET', url: '/v1/account' });
  expect(res.statusCode).toBe(200);
  return res.json().credits as number;
};

const usage = async (app: TestApp, key: string, query = 'limit=100') => {
  const res = await app.call(key, { method: 'GET', url: `/v1/account/usage?${query}` });
  expect(res.statusCode).toBe(200);
  return res.json() as { transactions: Txn[]; total: number; limit: number; offset: number };
};

const purchase = (app: TestApp, key: string | null, payload: unknown) =>
  app.call(key, { method: 'POST', url: '/v1/credits/purchase', payload: payload as object });

const pathOf = (url: string) => new URL(url).pathname;

/** The hidden confirm token of the page's form. */
const formToken = (html: string) =>
  /<input type="hidden" name="token" value="([0-9A-Za-z]+)">/.exec(html)?.[1];

/** What Chromium sends with the page's own form post (the server's public URL is http://127.0.0.1:8080). */
const ownPage = {
  'content-type': 'application/x-www-form-urlencoded',
  accept: 'text/html',
  origin: 'http://127.0.0.1:8080',
  'sec-fetch-site': 'same-origin',
};

describe('GET /v1/credits/packages', () => {
  it('lists exactly the four packages of the spec, without a key', async () => {
    const res = await t.call(null, { method: 'GET', url: '/v1/credits/packages' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      // How a purchase is paid on this server: the dashboard's test-mode banner reads it.
      checkout: 'test',
      packages: [
        { id: 'credits_500', credits: 500, priceUsd: '5.00' },
        { id: 'credits_2000', credits: 2000, priceUsd: '15.00' },
        { id: 'credits_5000', credits: 5000, priceUsd: '35.00' },
        { id: 'credits_15000', credits: 15000, priceUsd: '100.00' },
      ],
    });
  });

  it('answers the same with a key', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, { method: 'GET', url: '/v1/credits/packages' });
    expect(res.statusCode).toBe(200);
    expect(res.json().packages.map((p: { id: string }) => p.id)).toEqual([
      'credits_500',
      'credits_2000',
      'credits_5000',
      'credits_15000',
    ]);
  });
});

describe('POST /v1/credits/purchase (test mode)', () => {
  it.each([
    ['credits_500', 500, '5.00'],
    ['credits_2000', 2000, '15.00'],
    ['credits_5000', 5000, '35.00'],
    ['credits_15000', 15000, '100.00'],
  ])('answers a checkout for %s', async (packageId, credits, priceUsd) => {
    const { apiKey } = await t.register();
    const res = await purchase(t, apiKey, { package_id: packageId });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['checkoutUrl', 'credits', 'id', 'packageId', 'priceUsd']);
    expect(body).toMatchObject({ packageId, credits, priceUsd });
    expect(body.id).toMatch(/^chk_[0-9A-Za-z]{25}$/);
    expect(body.checkoutUrl).toBe(`http://127.0.0.1:8080/v1/credits/checkout/${body.id}`);
    // Starting a purchase credits nothing.
    expect(await balance(t, apiKey)).toBe(100);
  });

  it('400 naming package_id for an unknown package', async () => {
    const { apiKey } = await t.register();
    const res = await purchase(t, apiKey, { package_id: 'credits_999' });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('invalid_request');
    expect(body.message).toContain('package_id');
    expect(body.details).toBe('package_id');
    expect(body.documentationUrl).toMatch(/\/docs\/reference#invalid_request$/);
  });

  it.each([
    [{}, 'package_id'],
    [{ package_id: '' }, 'package_id'],
    [{ package_id: 500 }, 'package_id'],
    [{ package_id: 'credits_500', extra: 1 }, 'extra'],
  ])('400 on a bad body %j, naming %s', async (payload, param) => {
    const { apiKey } = await t.register();
    const res = await purchase(t, apiKey, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    expect(res.json().message).toContain(param);
    expect(res.json().details).toBe(param);
  });

  it('400 on a body that is not JSON at all', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/credits/purchase',
      headers: { 'content-type': 'application/json' },
      payload: '{"package_id":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
  });

  it('401 without a key, and nothing is created', async () => {
    const res = await purchase(t, null, { package_id: 'credits_500' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('unauthorized');
  });
});

describe('test-mode checkout page', () => {
  it('says plainly that no payment is taken, and offers a confirm form', async () => {
    const { apiKey } = await t.register();
    const { checkoutUrl, id } = (await purchase(t, apiKey, { package_id: 'credits_2000' })).json();
    const page = await t.call(null, { method: 'GET', url: pathOf(checkoutUrl) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toMatch(/no payment is taken/i);
    expect(page.body).toContain('2000 credits');
    expect(page.body).toContain(`action="/v1/credits/checkout/${id}/confirm"`);
    expect(page.body).toMatch(/method="post"/);
    expect(formToken(page.body)).toMatch(/^[0-9A-Za-z]{32}$/);
  });

  it('is never framed and runs nothing but its own inline style', async () => {
    const { apiKey } = await t.register();
    const { checkoutUrl } = (await purchase(t, apiKey, { package_id: 'credits_500' })).json();
    const page = await t.call(null, { method: 'GET', url: pathOf(checkoutUrl) });
    const csp = String(page.headers['content-security-policy']);
    for (const directive of [
      "default-src 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
      "base-uri 'none'",
    ])
      expect(csp).toContain(directive);
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('same-origin');
    // The page's one <style> block is allowed by its hash, and there is no script at all.
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.body)![1]!;
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(page.body).not.toMatch(/<script/i);
  });

  it('confirming by form post credits the package once and records one purchase', async () => {
    const { apiKey } = await t.register();
    const { checkoutUrl, id } = (await purchase(t, apiKey, { package_id: 'credits_500' })).json();
    const form = await t.call(null, { method: 'GET', url: pathOf(checkoutUrl) });
    const confirm = await t.call(null, {
      method: 'POST',
      url: `${pathOf(checkoutUrl)}/confirm`,
      headers: ownPage,
      payload: `token=${formToken(form.body)}`,
    });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.headers['content-type']).toMatch(/^text\/html/);
    expect(confirm.body).toContain('Purchase complete');
    expect(confirm.body).toMatch(/no payment was taken/i);
    expect(confirm.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await balance(t, apiKey)).toBe(600);

    const { transactions } = await usage(t, apiKey);
    const purchases = transactions.filter((x) => x.type === 'purchase');
    expect(purchases).toHaveLength(1);
    expect(purchases[0]).toMatchObject({ amount: 500, type: 'purchase', job_id: id });
    expect(purchases[0]!.id).toMatch(/^txn_/);

    // Afterwards the page says it is complete and offers no second confirm.
    const page = await t.call(null, { method: 'GET', url: pathOf(checkoutUrl) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Purchase complete');
    expect(page.body).not.toContain('/confirm');
  });

  it('from the shell: the page as JSON gives the token, a JSON confirm with it answers JSON; a repeat credits nothing more', async () => {
    const { apiKey } = await t.register();
    const { checkoutUrl, id } = (await purchase(t, apiKey, { package_id: 'credits_5000' })).json();
    const page = await t.call(null, {
      method: 'GET',
      url: pathOf(checkoutUrl),
      headers: { accept: 'application/json' },
    });
    expect(page.statusCode).toBe(200);
    const { confirmToken: token, ...rest } = page.json();
    expect(rest).toEqual({ id, status: 'open', packageId: 'credits_5000', credits: 5000, priceUsd: '35.00' });
    expect(token).toMatch(/^[0-9A-Za-z]{32}$/);
    const first = await confirmCheckout(t, checkoutUrl);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ id, status: 'completed', credited: true, credits: 5000 });
    const again = await t.call(null, {
      method: 'POST',
      url: `${pathOf(checkoutUrl)}/confirm`,
      headers: { accept: 'application/json' },
      payload: { token },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ id, status: 'completed', credited: false, credits: 5000 });
    expect(await balance(t, apiKey)).toBe(5100);
    expect((await usage(t, apiKey, 'type=purchase')).total).toBe(1);
    // A completed checkout offers no token any more.
    expect(await confirmToken(t, checkoutUrl)).toBeNull();
  });

  it('10 concurrent confirms (form and JSON mixed) credit exactly once', async () => {
    const { apiKey } = await t.register();
    const { checkoutUrl, id } = (await purchase(t, apiKey, { package_id: 'credits_15000' })).json();
    const url = `${pathOf(checkoutUrl)}/confirm`;
    const token = await confirmToken(t, checkoutUrl);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.call(null, {
          method: 'POST',
          url,
          ...(i % 2 === 0
            ? { headers: { accept: 'application/json' }, payload: { token } }
            : { headers: ownPage, payload: `token=${token}` }),
        }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    const json = answers.filter((_, i) => i % 2 === 0).map((a) => a.json());
    expect(json.filter((j) => j.credited === true).length).toBeLessThanOrEqual(1);
    expect(await balance(t, apiKey)).toBe(15100);
    const { transactions, total } = await usage(t, apiKey, 'type=purchase');
    expect(total).toBe(1);
    expect(transactions[0]).toMatchObject({ amount: 15000, job_id: id });
  });

  it('two checkouts of one account are credited independently', async () => {
    const { apiKey } = await t.register();
    const a = (await purchase(t, apiKey, { package_id: 'credits_500' })).json();
    const b = (await purchase(t, apiKey, { package_id: 'credits_2000' })).json();
    expect(a.id).not.toBe(b.id);
    // Each checkout's token confirms only that checkout.
    const wrong = await t.call(null, {
      method: 'POST',
      url: `${pathOf(a.checkoutUrl)}/confirm`,
      headers: { accept: 'application/json' },
      payload: { token: await confirmToken(t, b.checkoutUrl) },
    });
    expect(wrong.statusCode).toBe(403);
    for (const c of [a, b]) {
      const res = await confirmCheckout(t, c.checkoutUrl);
      expect(res.json().credited).toBe(true);
    }
    expect(await balance(t, apiKey)).toBe(2600);
    const { transactions } = await usage(t, apiKey, 'type=purchase');
    expect(transactions.map((x) => x.job_id).sort()).toEqual([a.id, b.id].sort());
  });

  it('credits the account that started the checkout, whoever confirms it', async () => {
    const buyer = await t.register();
    const other = await t.register();
    const { checkoutUrl } = (await purchase(t, buyer.apiKey, { package_id: 'credits_500' })).json();
    const res = await t.call(other.apiKey, {
      method: 'POST',
      url: `${pathOf(checkoutUrl)}/confirm`,
      headers: { accept: 'application/json' },
      payload: { token: await confirmToken(t, checkoutUrl) },
    });
    expect(res.statusCode).toBe(200);
    expect(await balance(t, buyer.apiKey)).toBe(600);
    expect(await balance(t, other.apiKey)).toBe(100);
  });

  it('404 for an unknown checkout; 400 for a malformed id', async () => {
    const unknown = 'chk_AAAAAAAAAAAAAAAAAAAA';
    const page = await t.call(null, { method: 'GET', url: `/v1/credits/checkout/${unknown}` });
    expect(page.statusCode).toBe(404);
    expect(page.json().error).toBe('not_found');
    const confirm = await t.call(null, {
      method: 'POST',
      url: `/v1/credits/checkout/${unknown}/confirm`,
      headers: { accept: 'application/json' },
    });
    expect(confirm.statusCode).toBe(404);
    expect(confirm.json().error).toBe('not_found');
    const bad = await t.call(null, { method: 'GET', url: '/v1/credits/checkout/not-a-checkout' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('invalid_request');
    const badConfirm = await t.call(null, {
      method: 'POST',
      url: '/v1/credits/checkout/chk_short/confirm',
      headers: { accept: 'application/json' },
    });
    expect(badConfirm.statusCode).toBe(400);
  });

  it('the Stripe webhook is not served in test mode (404)', async () => {
    const res = await t.call(null, {
      method: 'POST',
      url: '/v1/credits/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('not_found');
  });
});

describe('the confirm accepts only its own page', () => {
  const open = async () => {
    const { apiKey } = await t.register();
    const { checkoutUrl, id } = (await purchase(t, apiKey, { package_id: 'credits_500' })).json();
    return { apiKey, url: `${pathOf(checkoutUrl)}/confirm`, id, token: (await confirmToken(t, id))! };
  };
  const refused = async (apiKey: string, res: { statusCode: number; json(): { error: string } }) => {
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('forbidden');
    expect(await balance(t, apiKey)).toBe(100);
  };

  it('403 for a bare POST (curl -X POST …/confirm), a wrong token or an empty one; nothing is credited', async () => {
    const { apiKey, url } = await open();
    await refused(
      apiKey,
      await t.call(null, { method: 'POST', url, headers: { accept: 'application/json' } }),
    );
    await refused(
      apiKey,
      await t.call(null, {
        method: 'POST',
        url,
        headers: { accept: 'application/json' },
        payload: { token: 'A'.repeat(32) },
      }),
    );
    await refused(apiKey, await t.call(null, { method: 'POST', url, headers: ownPage, payload: 'token=' }));
    await refused(apiKey, await t.call(null, { method: 'POST', url, headers: ownPage, payload: '' }));
  });

  it('accepts the page’s own form as a browser sends it, fetch metadata deciding over Origin', async () => {
    const { apiKey, url, token } = await open();
    const res = await t.call(null, {
      method: 'POST',
      url,
      headers: { ...ownPage, origin: 'null' },
      payload: `token=${token}`,
    });
    expect(res.statusCode).toBe(200);
    expect(await balance(t, apiKey)).toBe(600);
  });

  it.each([
    [
      'another site (Sec-Fetch-Site: cross-site)',
      { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' },
    ],
    [
      'a sibling site (Sec-Fetch-Site: same-site)',
      { origin: 'http://127.0.0.1:8081', 'sec-fetch-site': 'same-site' },
    ],
    ['another Origin (a browser without fetch metadata)', { origin: 'https://attacker.example' }],
    ['an opaque Origin (a sandboxed frame)', { origin: 'null' }],
  ])('403 for a form posted from %s, even with the right token', async (_, headers) => {
    const { apiKey, url, token } = await open();
    const res = await t.call(null, {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
      payload: `token=${token}`,
    });
    await refused(apiKey, res);
    // The same token from the page itself still works afterwards.
    const own = await t.call(null, { method: 'POST', url, headers: ownPage, payload: `token=${token}` });
    expect(own.statusCode).toBe(200);
    expect(await balance(t, apiKey)).toBe(600);
  });
});

describe('UNFURL_CHECKOUT=off', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await createTestApp({ UNFURL_CHECKOUT: 'off' });
  });
  afterAll(async () => off?.close());

  it('refuses purchases with 403 forbidden and a clear message; packages are still listed', async () => {
    const { apiKey } = await off.register();
    const res = await purchase(off, apiKey, { package_id: 'credits_500' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('forbidden');
    expect(res.json().message).toMatch(/purchases are disabled/i);
    const rows = await off.services.store.db.selectFrom('checkouts').selectAll().execute();
    expect(rows).toHaveLength(0);
    const packages = await off.call(null, { method: 'GET', url: '/v1/credits/packages' });
    expect(packages.json().packages).toHaveLength(4);
    expect(await balance(off, apiKey)).toBe(100);
  });

  it('still names package_id first when the package is unknown', async () => {
    const { apiKey } = await off.register();
    const res = await purchase(off, apiKey, { package_id: 'nope' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toBe('package_id');
  });
});

describe('a test checkout left open when the server leaves test mode', () => {
  // The same database, first served in test mode, then with checkout switched off: a test checkout
  // opened before must not be confirmable for free any more.
  it('cannot be confirmed, and its page says so', async () => {
    const { apiKey } = await t.register();
    const { id } = (await purchase(t, apiKey, { package_id: 'credits_15000' })).json();
    const shared: Record<string, string> = { UNFURL_DATA_DIR: t.env.env.UNFURL_DATA_DIR! };
    if (t.env.env.DATABASE_URL) shared.DATABASE_URL = t.env.env.DATABASE_URL;
    const later = await createTestApp({ ...shared, UNFURL_CHECKOUT: 'off' });
    try {
      const page = await later.call(null, { method: 'GET', url: `/v1/credits/checkout/${id}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('/confirm');
      expect(page.body).toMatch(/not available|disabled/i);
      const confirm = await later.call(null, {
        method: 'POST',
        url: `/v1/credits/checkout/${id}/confirm`,
        headers: { accept: 'application/json' },
      });
      expect(confirm.statusCode).toBe(403);
      expect(confirm.json().error).toBe('forbidden');
      expect(await balance(later, apiKey)).toBe(100);
    } finally {
      await later.close();
    }
    // Back in test mode it still works, once.
    const res = await confirmCheckout(t, id);
    expect(res.json().credited).toBe(true);
    expect(await balance(t, apiKey)).toBe(15100);
  });
});
