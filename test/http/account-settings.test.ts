// Settings a user changes from the dashboard: the webhook signing secret (rotated: the old one stops
// signing) and the password (the current one checked; every other login session ends, API keys stay
// unless asked to end too; no login racing the change keeps a session made with the old password).
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
    expect(res.json()).toEqual({ changed: true, sessionsEnded: 1, apiKeysRevoked: 0 });

    expect((await t.call(elsewhere, { method: 'GET', url: '/v1/account' })).statusCode).toBe(401);
    expect((await t.call(here, { method: 'GET', url: '/v1/account' })).statusCode).toBe(200);
    expect((await t.call(a.apiKey, { method: 'GET', url: '/v1/account' })).statusCode).toBe(200);
    expect((await login(a.email)).statusCode).toBe(401);
    expect((await login(a.email, 'a much better passphrase')).statusCode).toBe(200);
  });

  it('no session made with the old password outlives the change, however the logins interleave with it', async () => {
    const a = await t.register();
    const newPassword = 'a much better passphrase';
    // Three streams of logins with the old password, one after another, until the change has ended:
    // when it commits, some are between reading the password hash and inserting their session.
    let changed = false;
    const stream = async () => {
      const out: { statusCode: number; token?: string }[] = [];
      while (!changed) {
        const r = await login(a.email);
        out.push({ statusCode: r.statusCode, token: r.json().token });
      }
      return out;
    };
    const streams = [stream(), stream(), stream()];
    await new Promise((r) => setTimeout(r, 200));
    const change = t
      .call(a.apiKey, {
        method: 'POST',
        url: '/v1/auth/password',
        payload: { currentPassword: PASSWORD, newPassword },
      })
      .finally(() => {
        changed = true;
      });
    expect((await change).statusCode).toBe(200);
    const done = (await Promise.all(streams)).flat();
    const issued = done.filter((r) => r.statusCode === 200).map((r) => r.token!);
    expect(done.every((r) => r.statusCode === 200 || r.statusCode === 401)).toBe(true);
    expect(issued.length).toBeGreaterThan(0);
    const alive = [];
    for (const token of issued) {
      if ((await t.call(token, { method: 'GET', url: '/v1/account' })).statusCode !== 401) alive.push(token);
    }
    expect(alive).toEqual([]);
    expect((await login(a.email, newPassword)).statusCode).toBe(200);
  });

  it('revokeApiKeys: every API key ends too, the one asking included; without it they all stay', async () => {
    const a = await t.register();
    const second = (
      await t.call(a.apiKey, { method: 'POST', url: '/v1/keys/create', payload: { name: 'second' } })
    ).json().key as string;
    const session = (await login(a.email)).json().token as string;
    const res = await t.call(session, {
      method: 'POST',
      url: '/v1/auth/password',
      payload: { currentPassword: PASSWORD, newPassword: 'a much better passphrase', revokeApiKeys: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ changed: true, sessionsEnded: 0, apiKeysRevoked: 2 });
    for (const key of [a.apiKey, second]) {
      expect((await t.call(key, { method: 'GET', url: '/v1/account' })).statusCode).toBe(401);
    }
    expect((await t.call(session, { method: 'GET', url: '/v1/account' })).statusCode).toBe(200);

    const wrongType = await t.call(session, {
      method: 'POST',
      url: '/v1/auth/password',
      payload: {
        currentPassword: 'a much better passphrase',
        newPassword: 'another passphrase',
        revokeApiKeys: 'yes',
      },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().details).toBe('revokeApiKeys');
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
