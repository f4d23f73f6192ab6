// Login sessions on the server: logout ends the caller's own session (at once on this process, within
// a second on another one on the same database), sessions are listed without secrets and revocable
// by their account only. Also the 100-key cap under concurrent creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEYS_PER_ACCOUNT } from '../../src/accounts/accounts.js';
import { hashToken } from '../../src/accounts/secrets.js';
import { createSiblingApp, createTestApp, type TestApp } from '../support/app.js';
import { usingPostgres } from '../support/env.js';

const PASSWORD = 'correct horse battery';

let t: TestApp;
/** A second app on the same database, as a second API process would be. */
let other: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  other = await createSiblingApp(t);
});
afterAll(async () => {
  await other?.close();
  await t?.close();
});

async function login(app: TestApp, email: string) {
  const res = await app.call(null, {
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { token: string; expiresAt: number };
}

const status = async (app: TestApp, token: string) =>
  (await app.call(token, { method: 'GET', url: '/v1/account' })).statusCode;

const logout = (app: TestApp, token: string | null) =>
  app.call(token, { method: 'POST', url: '/v1/auth/logout' });

const sessions = async (app: TestApp, token: string) => {
  const res = await app.call(token, { method: 'GET', url: '/v1/auth/sessions' });
  expect(res.statusCode).toBe(200);
  return res.json().sessions as Array<{ id: string; prefix: string; current: boolean; expiresAt: number }>;
};

describe('POST /v1/auth/logout', () => {
  it('ends the session on the server: the token is refused afterwards, other sessions live on', async () => {
    const { email } = await t.register();
    const { token } = await login(t, email);
    const { token: kept } = await login(t, email);
    expect(await status(t, token)).toBe(200);
    const res = await logout(t, token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ revoked: true });
    expect(res.json().id).toMatch(/^sess_/);
    const after = await t.call(token, { method: 'GET', url: '/v1/account' });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe('unauthorized');
    // A token that was logged out cannot log out (or do anything) again.
    expect((await logout(t, token)).statusCode).toBe(401);
    expect(await status(t, kept)).toBe(200);
  });

  it('is refused on another process within a second', async () => {
    const { email } = await t.register();
    const { token } = await login(t, email);
    // The other process has seen the token and cached it as valid.
    expect(await status(other, token)).toBe(200);
    expect((await logout(t, token)).statusCode).toBe(200);
    const loggedOutAt = Date.now();
    let refusedAfter = -1;
    while (Date.now() - loggedOutAt < 3000) {
      if ((await status(other, token)) === 401) {
        refusedAfter = Date.now() - loggedOutAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(refusedAfter).toBeGreaterThanOrEqual(0);
    expect(refusedAfter).toBeLessThanOrEqual(1000);
  });

  it('403 with an API key (keys are revoked by id), and the key keeps working; 401 without a token', async () => {
    const { apiKey } = await t.register();
    const res = await logout(t, apiKey);
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('forbidden');
    expect(res.json().message).toMatch(/DELETE \/v1\/keys/);
    expect(await status(t, apiKey)).toBe(200);
    const none = await logout(t, null);
    expect(none.statusCode).toBe(401);
  });
});

describe('GET /v1/auth/sessions', () => {
  it('lists the live sessions without secrets, marking the current one', async () => {
    const { email, apiKey } = await t.register();
    const a = await login(t, email);
    const b = await login(t, email);
    const c = await login(t, email);
    // c is logged out, and b's row is made to have expired: neither is listed.
    expect((await logout(t, c.token)).statusCode).toBe(200);
    await t.services.store.db
      .updateTable('api_keys')
      .set({ expires_at: Date.now() - 1 })
      .where('key_hash', '=', hashToken(b.token))
      .execute();
    const { token: d } = await login(t, email);

    const listed = await sessions(t, a.token);
    expect(listed).toHaveLength(2);
    for (const s of listed) {
      expect(Object.keys(s).sort()).toEqual([
        'createdAt',
        'current',
        'expiresAt',
        'id',
        'lastUsedAt',
        'prefix',
      ]);
      expect(s.id).toMatch(/^sess_/);
    }
    const text = JSON.stringify(listed);
    for (const token of [a.token, b.token, c.token, d]) expect(text).not.toContain(token);
    expect(listed.filter((s) => s.current).map((s) => s.prefix)).toEqual([a.token.slice(0, 12)]);
    expect(listed.find((s) => !s.current)!.prefix).toBe(d.slice(0, 12));
    expect(listed[0]!.expiresAt).toBe(a.expiresAt);

    // An API key sees the same sessions, none of them current; sessions are not keys.
    const byKey = await sessions(t, apiKey);
    expect(byKey.map((s) => s.id)).toEqual(listed.map((s) => s.id));
    expect(byKey.every((s) => !s.current)).toBe(true);
    const keys = await t.call(apiKey, { method: 'GET', url: '/v1/keys' });
    expect(keys.json().keys).toHaveLength(1);
    // Another account sees none of them.
    const stranger = await t.register();
    expect(await sessions(t, stranger.apiKey)).toEqual([]);
  });
});

describe('DELETE /v1/auth/sessions/{session_id}', () => {
  it('revokes one of the account’s sessions at once; another account’s or an unknown id is a 404', async () => {
    const owner = await t.register();
    const { token } = await login(t, owner.email);
    const [session] = await sessions(t, owner.apiKey);

    const stranger = await t.register();
    const foreign = await t.call(stranger.apiKey, {
      method: 'DELETE',
      url: `/v1/auth/sessions/${session!.id}`,
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe('not_found');
    expect(await status(t, token)).toBe(200);
    // A key id is not a session id.
    const keyAsSession = await t.call(owner.apiKey, {
      method: 'DELETE',
      url: `/v1/auth/sessions/${owner.keyId}`,
    });
    expect(keyAsSession.statusCode).toBe(404);
    expect(await status(t, owner.apiKey)).toBe(200);
    const unknown = await t.call(owner.apiKey, {
      method: 'DELETE',
      url: '/v1/auth/sessions/sess_doesnotexist00000000',
    });
    expect(unknown.statusCode).toBe(404);

    const revoked = await t.call(owner.apiKey, { method: 'DELETE', url: `/v1/auth/sessions/${session!.id}` });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: session!.id, revoked: true });
    expect(await status(t, token)).toBe(401);
    expect(await sessions(t, owner.apiKey)).toEqual([]);
    const again = await t.call(owner.apiKey, { method: 'DELETE', url: `/v1/auth/sessions/${session!.id}` });
    expect(again.statusCode).toBe(200);
    expect(again.json().revokedAt).toBe(revoked.json().revokedAt);
  });

  it('400 naming session_id for a malformed id', async () => {
    const { apiKey } = await t.register();
    const res = await t.call(apiKey, { method: 'DELETE', url: '/v1/auth/sessions/not%20an%20id' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toBe('session_id');
  });
});

describe('the key cap under concurrent creation', () => {
  it(`60 concurrent creations on an account holding 70 keys leave exactly ${MAX_KEYS_PER_ACCOUNT}`, async () => {
    const { apiKey, accountId } = await t.register();
    for (let i = 1; i < 70; i++) {
      const res = await t.call(apiKey, {
        method: 'POST',
        url: '/v1/keys/create',
        payload: { name: `k${i}` },
      });
      expect(res.statusCode).toBe(200);
    }
    // On PostgreSQL the creations are spread over two apps (two API processes). Two apps in this one
    // process cannot share a SQLite file's write lock (its busy wait would block the event loop that
    // the other must run to commit), so on SQLite one app takes them all, interleaved as requests are.
    const apps = usingPostgres ? [t, other] : [t];
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        apps[i % apps.length]!.call(apiKey, {
          method: 'POST',
          url: '/v1/keys/create',
          payload: { name: `race${i}` },
        }),
      ),
    );
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(30);
    expect(codes.filter((c) => c === 409)).toHaveLength(30);
    const active = await t.services.store.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('kind', '=', 'api')
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(active.n)).toBe(MAX_KEYS_PER_ACCOUNT);
  }, 30_000);
});
