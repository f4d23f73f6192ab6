// Settings a user changes from the dashboard: the webhook signing secret (rotated: the old one stops
// signing) and the password (the current one checked; every other login session ends, API keys stay).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

const PASSWORD = 'correct horse battery';
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => closeTestApp(t));

async function login(email: string, password = PASSWORD) {
  return t.call(null, { method: 'POST', url: '/v1/auth/login', payload: { email, password } });
}

describe('webhook secret', () => {
  it('rotate answers a new secret that the account now shows; another account keeps its own', async () => {
    const a = await t.register();
    const b = await t.register();
    const before = (await t.call(a.apiKey, { method: 'GET', url: '/v1/account' })).json().webhookSecret;
    const otherBefore = (await t.call(b.apiKey, { method: 'GET', url: '/v1/account' })).json().webhookSecret;
    const res = await t.call(a.apiKey, { method: 'POST', url: '/v1/account/webhook-secret/rotate' });
    expect(res.statusCode).toBe(200);
    const { webhookSecret } = res.json();
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(webhookSecret).not.toBe(before);
    expect((await t.call(a.apiKey, { method: 'GET', url: '/v1/account' })).json().webhookSecret).toBe(
      webhookSecret,
    );
    expect((await t.call(b.apiKey, { method: 'GET', url: '/v1/account' })).json().webhookSecret).toBe(
      otherBefore,
    );
    expect(
      (await t.call(null, { method: 'POST', url: '/v1/account/webhook-secret/rotate' })).statusCode,
    ).toBe(401);
  });
});

describe('password change', () => {
  it('needs the current password, ends the other sessions, keeps this one and the API keys', async () => {
    const a = await t.register();
    const here = (await login(a.email)).json().token;
    const elsewhere = (await login(a.email)).json().token;
    const wrong = await t.call(here, {
      method: 'POST',
      url: '/v1/auth/password',
      payload: { currentPassword: 'not the password', newPassword: 'a much better passphrase' },
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toMatchObject({ error: 'forbidden', details: 'currentPassword' });

    const res = await t.call(here, {
      method: 'POST',
      url: '/v1/auth/password',
      payload: { currentPassword: PASSWORD, newPassword: 'a much better passphrase' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ changed: true, sessionsEnded: 1 });

    expect((await t.call(elsewhere, { method: 'GET', url: '/v1/account' })).statusCode).toBe(401);
    expect((await t.call(here, { method: 'GET', url: '/v1/account' })).statusCode).toBe(200);
    expect((await t.call(a.apiKey, { method: 'GET', url: '/v1/account' })).statusCode).toBe(200);
    expect((await login(a.email)).statusCode).toBe(401);
    expect((await login(a.email, 'a much better passphrase')).statusCode).toBe(200);
  });

  it('a new password is held to the registration rules, and must differ; nothing changes then', async () => {
    const a = await t.register();
    for (const [newPassword, pattern] of [
      ['short', /at least 8 characters/],
      ['password123', /most common passwords/],
      [PASSWORD, /must differ/],
    ] as const) {
      const res = await t.call(a.apiKey, {
        method: 'POST',
        url: '/v1/auth/password',
        payload: { currentPassword: PASSWORD, newPassword },
      });
      expect(res.statusCode, newPassword).toBe(400);
      expect(res.json().message).toMatch(pattern);
    }
    const missing = await t.call(a.apiKey, {
      method: 'POST',
      url: '/v1/auth/password',
      payload: { newPassword: 'a much better passphrase' },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details).toBe('currentPassword');
    expect((await login(a.email)).statusCode).toBe(200);
  });
});
