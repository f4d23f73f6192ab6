// The error contract of the HTTP layer (DESIGN §4): every failure, whoever produces it (a route, the
// body parser, the router, an unexpected exception), answers {error, message, details,
// documentationUrl} with an X-Request-Id; plus the documentation and health endpoints.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/http/error-status.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { usingPostgres, usingRedis } from '../support/env.js';
import { closeTestApp } from '../support/teardown.js';

const SECRET = 'hunter2-db-password-at-/srv/unfurl';
const BODY_LIMIT = 2048;

/** Things a handler might throw that are not AppErrors; none may reach the client. */
const THROWN: Record<string, () => unknown> = {
  error: () => new Error(`connection to ${SECRET} refused`),
  typeError: () => {
    const o = null as unknown as { x: { y: number } };
    return (() => {
      try {
        return o.x.y;
      } catch (err) {
        return err;
      }
    })();
  },
  syntaxError: () => {
    try {
      JSON.parse(`{${SECRET}`);
    } catch (err) {
      return err;
    }
  },
  // Library errors carrying an HTTP status (the Stripe SDK's do) are ours to classify, not to forward.
  libraryStatus401: () =>
    Object.assign(new Error(`Invalid API Key provided: sk_test_${SECRET}`), { statusCode: 401 }),
  libraryStatus400: () =>
    Object.assign(new Error(`No such price: ${SECRET}`), {
      statusCode: 400,
      type: 'StripeInvalidRequestError',
    }),
  libraryStatus404: () =>
    Object.assign(new Error(`no such table ${SECRET}`), { status: 404, statusCode: 404 }),
  string: () => `plain string ${SECRET}`,
  object: () => ({ message: SECRET, statusCode: 418 }),
  null: () => null,
  undefined: () => undefined,
};

const seen: LightMyRequestResponse[] = [];

let t: TestApp;
let key: string;

async function call(token: string | null, opts: Parameters<TestApp['call']>[1]) {
  const res = await t.call(token, opts);
  seen.push(res);
  return res;
}

function expectError(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['details', 'documentationUrl', 'error', 'message']);
  expect(body.error).toBe(code);
  expect(errorStatus[code as keyof typeof errorStatus]).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(body.details === null || typeof body.details === 'string').toBe(true);
  expect(body.documentationUrl).toBe(`http://127.0.0.1:8080/docs/reference#${code}`);
  return body as { error: string; message: string; details: string | null; documentationUrl: string };
}

beforeAll(async () => {
  t = await createTestApp(
    { UNFURL_BODY_LIMIT_BYTES: String(BODY_LIMIT) },
    {
      extraRoutes: (app: FastifyInstance) => {
        app.get('/v1/test/throw/:what', async (request) => {
          throw THROWN[(request.params as { what: string }).what]!();
        });
      },
    },
  );
  key = (await t.register()).apiKey;
});
afterAll(async () => closeTestApp(t));

describe('error answers', () => {
  it('unknown route → 404 not_found, with or without a key', async () => {
    for (const token of [null, key]) {
      const res = await call(token, { method: 'GET', url: '/v1/no/such/route?x=1' });
      const body = expectError(res, 404, 'not_found');
      expect(body.message).toContain('/v1/no/such/route');
      expect(body.message).not.toContain('x=1');
    }
    // A path that exists with another method is a 405 instead (test/http/api-contract.test.ts).
    const wrong = await call(key, { method: 'PATCH', url: '/v1/keys' });
    expectError(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.allow).toBe('GET');
  });

  it('broken or empty JSON → 400 invalid_request', async () => {
    // The last two: prototype poisoning, refused by the parser rather than merged into objects.
    for (const payload of [
      '{"name":',
      '{name: "x"}',
      'null,',
      '',
      '{"name":"x","__proto__":{"admin":true}}',
      '{"name":"x","constructor":{"prototype":{"admin":true}}}',
    ]) {
      const res = await call(key, {
        method: 'POST',
        url: '/v1/keys/create',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expectError(res, 400, 'invalid_request');
    }
    // Public routes parse the same way.
    const res = await call(null, {
      method: 'POST',
      url: '/v1/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":"a@b.co","password":',
    });
    expectError(res, 400, 'invalid_request');
  });

  it(`a body over UNFURL_BODY_LIMIT_BYTES (${BODY_LIMIT}) → 413 payload_too_large; just under is parsed`, async () => {
    const big = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) });
    expectError(
      await call(key, {
        method: 'POST',
        url: '/v1/keys/create',
        headers: { 'content-type': 'application/json' },
        payload: big,
      }),
      413,
      'payload_too_large',
    );
    expectError(
      await call(null, {
        method: 'POST',
        url: '/v1/auth/register',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ email: 'a@b.co', password: 'p'.repeat(BODY_LIMIT) }),
      }),
      413,
      'payload_too_large',
    );
    const under = JSON.stringify({ name: 'y'.repeat(150) });
    expect(Buffer.byteLength(under)).toBeLessThan(BODY_LIMIT);
    const ok = await call(key, {
      method: 'POST',
      url: '/v1/keys/create',
      headers: { 'content-type': 'application/json' },
      payload: under,
    });
    expect(ok.statusCode).toBe(200);
  });

  it('a body that is not JSON → 415 unsupported_media_type', async () => {
    for (const [type, payload] of [
      ['text/plain', 'name=x'],
      ['text/plain; charset=utf-8', '{"name":"x"}'],
      ['application/x-www-form-urlencoded', 'name=x'],
      ['application/xml', '<name>x</name>'],
      ['multipart/form-data; boundary=abc', '--abc\r\n\r\nx\r\n--abc--'],
    ] as const) {
      const res = await call(key, {
        method: 'POST',
        url: '/v1/keys/create',
        headers: { 'content-type': type },
        payload,
      });
      expectError(res, 415, 'unsupported_media_type');
      const pub = await call(null, {
        method: 'POST',
        url: '/v1/auth/login',
        headers: { 'content-type': type },
        payload,
      });
      expectError(pub, 415, 'unsupported_media_type');
    }
    // JSON with parameters is JSON.
    const ok = await call(key, {
      method: 'POST',
      url: '/v1/keys/create',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"name":"charset"}',
    });
    expect(ok.statusCode).toBe(200);
  });

  it('a URL the router cannot read → 400 invalid_request in the same shape', async () => {
    expectError(await call(key, { method: 'GET', url: '/v1/jobs/%E0%A4%A' }), 400, 'invalid_request');
    expectError(
      await call(key, { method: 'DELETE', url: `/v1/keys/${'k'.repeat(300)}` }),
      400,
      'invalid_request',
    );
  });

  it.each(Object.keys(THROWN))(
    'an unexpected exception (%s) → 500 internal_error without internals',
    async (what) => {
      const res = await call(key, { method: 'GET', url: `/v1/test/throw/${what}` });
      const body = expectError(res, 500, 'internal_error');
      expect(body.details).toBeNull();
      expect(res.body).not.toContain('hunter2');
      expect(res.body).not.toMatch(
        /\bat .*\(|node_modules|\/src\/|\.ts:\d|TypeError|SyntaxError|Cannot read/,
      );
      expect(body.message).toMatch(/not charged/);
    },
  );

  it('validation errors name the parameter', async () => {
    const res = await call(key, { method: 'GET', url: '/v1/account/usage', query: { limit: '1000' } });
    const body = expectError(res, 400, 'invalid_request');
    expect(body.message).toContain("'limit'");
    expect(body.details).toBe('limit');
  });

  it('every answer carries its own X-Request-Id (a client-sent one is ignored)', async () => {
    const res = await call(key, {
      method: 'GET',
      url: '/v1/account',
      headers: { 'x-request-id': 'client-chosen-id' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{25}$/);
    const ids = seen.map((r) => r.headers['x-request-id']);
    for (const [i, id] of ids.entries())
      expect(id, `${seen[i]!.statusCode} ${seen[i]!.body}`).toMatch(/^req_[0-9A-Za-z]{25}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every error code used above has an anchor on /docs/reference; documentationUrl points at it', async () => {
    const errors = seen.filter((r) => r.statusCode >= 400);
    expect(errors.length).toBeGreaterThan(20);
    const html = (await t.call(null, { method: 'GET', url: '/docs/reference' })).body;
    for (const r of errors) {
      const { error, documentationUrl } = r.json();
      expect(documentationUrl).toBe(`http://127.0.0.1:8080/docs/reference#${error}`);
      expect(html).toContain(`id="${error}"`);
    }
  });
});

describe('documentation and system endpoints', () => {
  it('GET /openapi.json: OpenAPI 3.1.0, version 0.1.0, bearer scheme, the routes, public ones with security: []', async () => {
    const res = await t.call(null, { method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const spec = res.json();
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.info.version).toBe('0.1.0');
    expect(spec.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(spec.components.securitySchemes.apiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
    expect(spec.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    const paths = Object.keys(spec.paths);
    for (const p of [
      '/v1/auth/register',
      '/v1/auth/login',
      '/v1/keys/create',
      '/v1/keys',
      '/v1/keys/{key_id}',
      '/v1/account',
      '/v1/account/usage',
      '/v1/credits/packages',
      '/v1/credits/purchase',
      '/v1/jobs',
      '/v1/jobs/{jobId}',
      '/health',
      '/ready',
    ]) {
      expect(paths).toContain(p);
    }
    // Each documented operation's security matches whether the route really is public.
    const table = new Map(t.app.routeTable.map((r) => [`${r.method} ${r.url}`, r.public]));
    let operations = 0;
    for (const [p, item] of Object.entries(
      spec.paths as Record<string, Record<string, { security?: unknown }>>,
    )) {
      for (const [method, op] of Object.entries(item)) {
        const route = `${method.toUpperCase()} ${p.replace(/\{([^}]+)\}/g, ':$1')}`;
        expect(table.has(route), route).toBe(true);
        if (table.get(route)) expect(op.security, route).toEqual([]);
        else
          expect(op.security === undefined || JSON.stringify(op.security).includes('bearer'), route).toBe(
            true,
          );
        operations++;
      }
    }
    expect(operations).toBeGreaterThanOrEqual(13);
    expect(spec.paths['/v1/keys'].get.security).toBeUndefined();
  });

  it('/docs answers the HTML docs; /docs/reference has an anchor for every error code', async () => {
    const docs = await t.call(null, { method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/^text\/html/);
    expect(docs.body).toMatch(/<html/i);
    const ref = await t.call(null, { method: 'GET', url: '/docs/reference' });
    expect(ref.statusCode).toBe(200);
    expect(ref.headers['content-type']).toMatch(/^text\/html/);
    for (const code of Object.keys(errorStatus)) expect(ref.body).toContain(`id="${code}"`);
    for (const anchor of ['prices', 'packages', 'rate-limits']) expect(ref.body).toContain(`id="${anchor}"`);
  });

  it('/health 200; /ready 200 naming the database and Redis in use', async () => {
    const health = await t.call(null, { method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await t.call(null, { method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ready',
      database: usingPostgres ? 'pg' : 'sqlite',
      redis: usingRedis ? 'ok' : 'not configured',
    });
  });
});
