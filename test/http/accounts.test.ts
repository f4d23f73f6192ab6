import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, uniqueEmail } from '../support/app.js';
import { changeLastChar } from '../support/strings.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('POST /v1/auth/register', () => {
  it('creates an account with a key and 100 free credits', async () => {
    const email = uniqueEmail();
    const res = await t.call(null, {
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: `  ${email.toUpperCase()} `, password: 'longenough' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ email, credits: 100 });
    expect(body.accountId).toMatch(/^acc_[0-9A-Za-z]{25}$/);
    expect(body.keyId).toMatch(/^key_/);
    expect(body.apiKey).toMatch(/^uf_[0-9A-Za-z]{43}$/);

    const account = await t.call(body.apiKey, { method: 'GET', url: '/v1/account' });
    expect(account.statusCode).toBe(200);
    expect(account.json()).toMatchObject({ id: body.accountId, email, credits: 100 });
    expect(account.json().webhookSecret).toMatch(/^whsec_/);

    const usage = await t.call(body.apiKey, { method: 'GET', url: '/v1/account/usage' });
    expect(usage.json()).toMatchObject({ limit: 20, offset: 0, total: 1 });
    expect(usage.json().transactions[0]).toMatchObject({ amount: 100, type: 'grant', job_id: null });
  });

  it('answers 409 conflict on a duplicate e-mail, whatever its case', async () => {
    const email = uniqueEmail();
    await t.register(email);
    const res = await t.call(null, {
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: email.toUpperCase(), password: 'longenough' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('conflict');
  });

  it.each([
    [{ password: 'longenough' }, 'email'],
    [{ email: 'a@b.co' }, 'password'],
    [{ email: 'not-an-email', password: 'longenough' }, 'email'],
    [{ email: 'a@b.co', password: 'short' }, 'password'],
    [{ email: 5, password: 'longenough' }, 'email'],
  ])('400 names the bad parameter (%j)', async (payload, param) => {
    const res = await t.call(null, { method: 'POST', url: '/v1/auth/register', payload });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.error).toBe('invalid_request');
    expect(body.message).toContain(`'${param}'`);
    expect(body.details).toBe(param);
    expect(body.documentationUrl).toMatch(/\/docs\/reference#invalid_request$/);
  });

  it('stores neither the key nor the password in clear', async () => {
    const { apiKey, accountId } = await t.register();
    const db = t.services.store.db;
    const account = await db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(account.password_hash).toMatch(/^scrypt\$/);
    expect(account.password_hash).not.toContain('correct horse');
    const keys = await db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).execute();
    expect(JSON.stringify(keys)).not.toContain(apiKey);
  });
});

describe('passwords and e-mail addresses', () => {
  const register = (email: string, password: string) =>
    t.call(null, { method: 'POST', url: '/v1/auth/register', payload: { email, password } });

  it.each([
    ['only spaces', '            '],
    ['only tabs and newlines', '\t\t\n\n\t\t\n\n'],
    ['a common password', 'password123'],
    ['a common password in another case', 'QwertyUIOP'],
    ['a common password with spaces around it', '  iloveyou1  '],
    ['a long common password', 'correcthorsebatterystaple'],
  ])('refuses %s with a 400 naming password, and creates nothing', async (_, password) => {
    const email = uniqueEmail('weak');
    const res = await register(email, password);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    expect(res.json().details).toBe('password');
    const rows = await t.services.store.db
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', email)
      .execute();
    expect(rows).toEqual([]);
  });

  it('accepts a password that merely contains a common one', async () => {
    const res = await register(uniqueEmail(), 'password123 but longer and mine');
    expect(res.statusCode).toBe(200);
  });

  it('a trailing dot and case variants of an e-mail are one account, on register and on login', async () => {
    const email = uniqueEmail('dots');
    const first = await register(`${email.toUpperCase()}.`, 'correct horse battery');
    expect(first.statusCode).toBe(200);
    expect(first.json().email).toBe(email);
    for (const variant of [email, `${email}.`, ` ${email}.. `, email.replace('example', 'EXAMPLE')]) {
      const again = await register(variant, 'correct horse battery');
      expect(again.statusCode, variant).toBe(409);
      expect(again.json().error).toBe('conflict');
      const login = await t.call(null, {
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email: variant.toUpperCase(), password: 'correct horse battery' },
      });
      expect(login.statusCode, variant).toBe(200);
      expect(login.json()).toMatchObject({ accountId: first.json().accountId, email });
    }
  });

  it('400 naming email for an address with a control character, on register and on login', async () => {
    for (const url of ['/v1/auth/register', '/v1/auth/login']) {
      const res = await t.call(null, {
        method: 'POST',
        url,
        payload: { email: 'a\u0000b@example.com', password: 'correct horse battery' },
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details).toBe('email');
    }
  });
});

describe('POST /v1/auth/login', () => {
  it('answers a 24-hour session token that works as a bearer but is not listed as a key', async () => {
    const { email } = await t.register();
    const res = await t.call(null, {
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email, password: 'correct horse battery' },
    });
    expect(res.statusCode).toBe(200);
    const { token, expiresAt } = res.json();
    expect(token).toMatch(/^uf_sess_/);
    expect(expiresAt - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
    const keys = await t.call(token, { method: 'GET', url: '/v1/keys' });
    expect(keys.statusCode).toBe(200);
    expect(keys.json().keys).toHaveLength(1);
  });

  it('gives the same 401 for a wrong password and an unknown e-mail', async () => {
    const { email } = await t.register();
    const wrong = await t.call(null, {
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email, password: 'not the password' },
    });
    const unknown = await t.call(null, {
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: uniqueEmail('nobody'), password: 'not the password' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
  });
});

describe('API keys', () => {
  it('creates, lists (without secrets) and revokes keys; a revoked key fails at once', async () => {
    const { apiKey, keyId } = await t.register();
    const created = await t.call(apiKey, { method: 'POST', url: '/v1/keys/create', payload: { name: 'ci' } });
    expect(created.statusCode).toBe(200);
    const second = created.json();
    expect(second).toMatchObject({ name: 'ci' });
    expect(second.key).toMatch(/^uf_/);
    expect(second.key.startsWith(second.prefix)).toBe(true);

    const list = await t.call(second.key, { method: 'GET', url: '/v1/keys' });
    const keys = list.json().keys;
    expect(keys.map((k: { id: string }) => k.id)).toEqual([keyId, second.id]);
    expect(JSON.stringify(list.json())).not.toContain(second.key);
    expect(JSON.stringify(list.json())).not.toContain(apiKey);
    for (const k of keys)
      expect(Object.keys(k).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt']);

    const revoked = await t.call(apiKey, { method: 'DELETE', url: `/v1/keys/${second.id}` });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: second.id, revoked: true });
    const after = await t.call(second.key, { method: 'GET', url: '/v1/account' });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe('unauthorized');

    const again = await t.call(apiKey, { method: 'DELETE', url: `/v1/keys/${second.id}` });
    expect(again.statusCode).toBe(200);
    const listed = await t.call(apiKey, { method: 'GET', url: '/v1/keys' });
    expect(listed.json().keys[1].revokedAt).toBe(revoked.json().revokedAt);
  });

  it('400 on an empty name; 404 on an unknown key id', async () => {
    const { apiKey } = await t.register();
    const empty = await t.call(apiKey, { method: 'POST', url: '/v1/keys/create', payload: { name: '' } });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details).toBe('name');
    const missing = await t.call(apiKey, { method: 'DELETE', url: '/v1/keys/key_doesnotexist0000000' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('not_found');
  });
});

describe('x-api-key (as the Supadata SDKs send the key)', () => {
  const get = (headers: Record<string, string>) =>
    t.call(null, { method: 'GET', url: '/v1/account', headers });

  it('is accepted wherever Authorization: Bearer is, with the same checks and errors', async () => {
    const { apiKey, accountId } = await t.register();
    const byHeader = await get({ 'x-api-key': apiKey });
    expect(byHeader.statusCode).toBe(200);
    expect(byHeader.json().id).toBe(accountId);
    // The same key in both headers is one caller.
    expect((await get({ 'x-api-key': apiKey, authorization: `Bearer ${apiKey}` })).statusCode).toBe(200);
    // Rate-limit headers come with it, as with a bearer.
    expect(byHeader.headers.ratelimit).toBeDefined();

    const wrong = await get({ 'x-api-key': changeLastChar(apiKey) });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({
      error: 'unauthorized',
      message: 'Invalid, revoked or expired API key',
    });
    expect((await get({ 'x-api-key': '' })).json()).toMatchObject({ error: 'unauthorized' });
  });

  it('a request naming two different keys is a 400 naming x-api-key, before either is used', async () => {
    const a = await t.register();
    const b = await t.register();
    const res = await get({ 'x-api-key': a.apiKey, authorization: `Bearer ${b.apiKey}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', details: 'x-api-key' });
    for (const key of [a.apiKey, b.apiKey]) {
      expect((await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits).toBe(100);
    }
  });

  it('a revoked key fails through x-api-key too', async () => {
    const { apiKey } = await t.register();
    const created = (
      await t.call(apiKey, { method: 'POST', url: '/v1/keys/create', payload: { name: 'short-lived' } })
    ).json();
    expect((await get({ 'x-api-key': created.key })).statusCode).toBe(200);
    await t.call(apiKey, { method: 'DELETE', url: `/v1/keys/${created.id}` });
    expect((await get({ 'x-api-key': created.key })).statusCode).toBe(401);
  });
});
