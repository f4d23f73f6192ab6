// Authentication over the live route table: every route that is not public refuses a request without
// a valid key, whatever is wrong with the key, and does nothing for it. The public routes are exactly
// DESIGN §4's list. Plus object-level authorisation: one account never reaches another's objects.
import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/accounts/secrets.js';
import { isFirecrawlPath } from '../../src/firecrawl/paths.js';
import { newId, randomBase62 } from '../../src/ids.js';
import type { Db } from '../../src/store/db.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { confirmCheckout } from '../support/checkout.js';
import { errorParts } from '../support/error-body.js';
import { closeTestApp } from '../support/teardown.js';
import { registerTestKinds, standInKinds, testJobRoutes } from '../support/test-kinds.js';

const EXPECTED_PUBLIC = [
  'POST /v1/auth/register',
  'POST /v1/auth/login',
  'GET /v1/credits/packages',
  'GET /v1/credits/checkout/:id',
  'POST /v1/credits/checkout/:id/confirm',
  'POST /v1/credits/webhook',
  'GET /health',
  'GET /ready',
  'GET /metrics',
  'GET /openapi.json',
  'GET /',
  'GET /dashboard/:file',
  // Redirects to / and the site icon: no data behind them.
  'GET /dashboard',
  'GET /dashboard/',
  'GET /favicon.ico',
  // A monitor's Atom feed: feed readers cannot send headers, so the token in its URL authorises it.
  'GET /v1/monitors/:id/feed.atom',
].sort();

const PASSWORD = 'correct horse battery';

/** Fills path parameters with plausible ids (or the given ones) and wildcards with a file name. */
function fillPath(url: string, ids: Record<string, string> = {}): string {
  return url
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
      if (ids[name]) return ids[name]!;
      const n = name.toLowerCase();
      if (n.includes('job')) return newId('job');
      if (n.includes('key')) return newId('key');
      if (n.includes('txn') || n.includes('transaction')) return newId('txn');
      if (n.includes('account')) return newId('acc');
      return newId('chk');
    })
    .replace(/\*$/, 'index.html');
}

function expectErrorShape(body: unknown, code: string, url = '') {
  if (isFirecrawlPath(url)) {
    // Firecrawl's routes answer in its shape: `error` is the message, `code` ours.
    expect(Object.keys(body as object).sort()).toEqual(['code', 'details', 'error', 'success']);
    const b = body as { success: boolean; error: string; code: string };
    expect(b.success).toBe(false);
    expect(b.code).toBe(code);
    expect(b.error.length).toBeGreaterThan(0);
    return;
  }
  expect(Object.keys(body as object).sort()).toEqual(['details', 'documentationUrl', 'error', 'message']);
  const b = body as { error: string; message: string; details: unknown; documentationUrl: string };
  expect(b.error).toBe(code);
  expect(typeof b.message).toBe('string');
  expect(b.message.length).toBeGreaterThan(0);
  expect(b.details === null || typeof b.details === 'string').toBe(true);
  expect(b.documentationUrl).toBe(`http://127.0.0.1:8080/docs/reference#${code}`);
}

/** Every row of every table (without last-use times, which authenticated setup calls touch lazily). */
async function snapshot(db: Db): Promise<Record<string, string[]>> {
  const tables = (await db.introspection.getTables()).map((t) => t.name).sort();
  const out: Record<string, string[]> = {};
  for (const name of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    out[name] = rows.map(({ last_used_at: _ignored, ...rest }) => JSON.stringify(rest)).sort();
  }
  return out;
}

async function login(t: TestApp, email: string): Promise<string> {
  const res = await t.call(null, {
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email, password: PASSWORD },
  });
  expect(res.statusCode).toBe(200);
  return res.json().token as string;
}

const routeKey = (r: { method: string; url: string }) => `${r.method} ${r.url}`;

describe('authentication on every non-public route', () => {
  let t: TestApp;
  let owner: { email: string; accountId: string; apiKey: string; keyId: string };
  let otherKeyId: string;
  let revokedKey: string;
  let expiredSession: string;
  let liveSession: string;
  const ownHookCalls: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(
      {},
      {
        // A route with its own onRequest hook: the hook must run only after authentication.
        extraRoutes: (app: FastifyInstance) => {
          app.get(
            '/v1/test/own-hook',
            { onRequest: [async (request) => void ownHookCalls.push(request.id)] },
            async () => ({ ok: true }),
          );
        },
      },
    );
    owner = await t.register();
    const other = await t.call(owner.apiKey, {
      method: 'POST',
      url: '/v1/keys/create',
      payload: { name: 'still active' },
    });
    otherKeyId = other.json().id;
    const toRevoke = await t.call(owner.apiKey, {
      method: 'POST',
      url: '/v1/keys/create',
      payload: { name: 'revoked' },
    });
    revokedKey = toRevoke.json().key;
    const revoked = await t.call(owner.apiKey, { method: 'DELETE', url: `/v1/keys/${toRevoke.json().id}` });
    expect(revoked.statusCode).toBe(200);

    expiredSession = await login(t, owner.email);
    await t.services.store.db
      .updateTable('api_keys')
      .set({ expires_at: Date.now() - 1000 })
      .where('key_hash', '=', hashToken(expiredSession))
      .execute();
    liveSession = await login(t, owner.email);
  });
  afterAll(async () => closeTestApp(t));

  it('the public routes are exactly DESIGN §4 list, plus swagger-ui and the reference under /docs', () => {
    const table = t.app.routeTable;
    const isDocs = (url: string) => url === '/docs' || url.startsWith('/docs/');
    const publicRoutes = table.filter((r) => r.public);
    expect(
      publicRoutes
        .filter((r) => !isDocs(r.url))
        .map(routeKey)
        .sort(),
    ).toEqual(EXPECTED_PUBLIC);
    const docs = publicRoutes.filter((r) => isDocs(r.url));
    expect(docs.map(routeKey)).toEqual(expect.arrayContaining(['GET /docs', 'GET /docs/reference']));
    for (const r of docs) expect(r.method).toBe('GET');
    // Nothing under /docs is behind auth, nothing else is public.
    for (const r of table)
      expect(r.public, routeKey(r)).toBe(EXPECTED_PUBLIC.includes(routeKey(r)) || isDocs(r.url));
    // The table is the live one: the account routes and the extra test route are in it.
    expect(table.map(routeKey)).toEqual(
      expect.arrayContaining(['GET /v1/keys', 'DELETE /v1/keys/:key_id', 'GET /v1/test/own-hook']),
    );
  });

  it('public routes answer without a key', async () => {
    for (const r of t.app.routeTable.filter((e) => e.public)) {
      const res = await t.call(null, {
        method: r.method as InjectOptions['method'],
        url: fillPath(r.url),
        ...(r.method === 'POST' ? { payload: {} } : {}),
      });
      expect(res.statusCode, routeKey(r)).not.toBe(401);
      expect(res.statusCode, routeKey(r)).toBeLessThan(500);
    }
  });

  it('every other route answers 401 unauthorized to a missing, malformed, unknown, revoked or expired key — and does nothing', async () => {
    const unknownKey = `uf_${randomBase62(43)}`;
    const cases: Array<[string, Record<string, string>]> = [
      ['no header', {}],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['scheme only', { authorization: 'Bearer' }],
      [
        'basic auth',
        { authorization: `Basic ${Buffer.from(`${owner.email}:${PASSWORD}`).toString('base64')}` },
      ],
      ['valid key, wrong scheme', { authorization: `Token ${owner.apiKey}` }],
      ['valid key, no scheme', { authorization: owner.apiKey }],
      ['valid key with trailing garbage', { authorization: `Bearer ${owner.apiKey} x` }],
      ['valid key truncated', { authorization: `Bearer ${owner.apiKey.slice(0, -1)}` }],
      ['not our prefix', { authorization: `Bearer sk_${randomBase62(43)}` }],
      ['overlong', { authorization: `Bearer uf_${'a'.repeat(5000)}` }],
      ['key in a header we do not read', { 'x-auth-token': owner.apiKey }],
      ['unknown key in x-api-key', { 'x-api-key': unknownKey }],
      ['revoked key in x-api-key', { 'x-api-key': revokedKey }],
      ['unknown well-formed key', { authorization: `Bearer ${unknownKey}` }],
      ['unknown well-formed session', { authorization: `Bearer uf_sess_${randomBase62(43)}` }],
      ['revoked key', { authorization: `Bearer ${revokedKey}` }],
      ['expired session', { authorization: `Bearer ${expiredSession}` }],
    ];
    const routes = t.app.routeTable.filter((r) => !r.public);
    expect(routes.length).toBeGreaterThanOrEqual(10);
    const before = await snapshot(t.services.store.db);
    let checked = 0;
    for (const r of routes) {
      // Real ids of the caller's own objects where the route takes them, so a bypass would show.
      const url = fillPath(r.url, { key_id: otherKeyId });
      for (const method of [r.method]) {
        for (const [label, headers] of cases) {
          const res = await t.app.inject({
            method: method as InjectOptions['method'],
            url,
            headers: { ...headers, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
            ...(method === 'POST'
              ? { payload: JSON.stringify({ name: 'x', package_id: 'credits_500' }) }
              : {}),
          });
          const where = `${method} ${r.url} (${label})`;
          expect(res.statusCode, where).toBe(401);
          expect(res.headers['x-request-id'], where).toMatch(/^req_/);
          expectErrorShape(res.json(), 'unauthorized', r.url);
          const message = errorParts(r.url, res.json()).message;
          if (label === 'no header') expect(message, where).toMatch(/Missing API key/);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(routes.length * cases.length);
    expect(ownHookCalls).toEqual([]);
    expect(await snapshot(t.services.store.db)).toEqual(before);
  });

  it('the same routes get past authentication with a valid key or live session (the 401s above are about the key)', async () => {
    for (const token of [owner.apiKey, liveSession]) {
      for (const r of t.app.routeTable.filter((e) => !e.public && e.method === 'GET')) {
        const res = await t.call(token, { method: 'GET', url: fillPath(r.url) });
        expect(res.statusCode, `${routeKey(r)} with ${token.slice(0, 8)}`).not.toBe(401);
      }
    }
    expect(ownHookCalls).toHaveLength(2);
  });
});

describe('pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => closeTestApp(t));

  it('every page any GET route serves, with a key or without, refuses to be framed by another site', async () => {
    const { apiKey } = await t.register();
    const pages: string[] = [];
    const checkout = await t.call(apiKey, {
      method: 'POST',
      url: '/v1/credits/purchase',
      payload: { package_id: 'credits_500' },
    });
    const ids = { id: checkout.json().id as string, file: 'index.html' };
    const urls = t.app.routeTable.filter((r) => r.method === 'GET').map((r) => fillPath(r.url, ids));
    for (const url of urls) {
      for (const key of [null, apiKey]) {
        const res = await t.call(key, { method: 'GET', url });
        if (!String(res.headers['content-type'] ?? '').startsWith('text/html')) continue;
        pages.push(url);
        expect(res.headers['x-frame-options'], url).toBe('DENY');
        expect(String(res.headers['content-security-policy']), url).toContain("frame-ancestors 'none'");
        expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      }
    }
    // The pages we know of were among them: the dashboard, the docs, the reference, the checkout page.
    for (const url of ['/', '/docs', '/docs/reference', `/v1/credits/checkout/${ids.id}`]) {
      expect(pages, url).toContain(url);
    }
  });
});

describe('object-level authorisation between accounts', () => {
  let t: TestApp;
  let a: { email: string; accountId: string; apiKey: string; keyId: string };
  let b: { email: string; accountId: string; apiKey: string; keyId: string };
  let bExtra: { id: string; key: string; prefix: string };
  const bJobs: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(
      // A provider is configured so the AI routes accept jobs (nothing runs them here).
      { UNFURL_AI_BASE_URL: 'http://127.0.0.1:9/v1' },
      {
        extraRoutes: (app, services) => {
          registerTestKinds(services.jobs.registry);
          testJobRoutes(app, services);
        },
      },
    );
    a = await t.register();
    b = await t.register();
    bExtra = (
      await t.call(b.apiKey, { method: 'POST', url: '/v1/keys/create', payload: { name: 'b2' } })
    ).json();
    // B buys credits (a purchase entry) and starts jobs of every test kind (hold entries).
    const purchase = await t.call(b.apiKey, {
      method: 'POST',
      url: '/v1/credits/purchase',
      payload: { package_id: 'credits_500' },
    });
    expect(purchase.statusCode).toBe(200);
    const confirm = await confirmCheckout(t, purchase.json().id);
    expect(confirm.statusCode).toBe(200);
    for (const kind of standInKinds(t.services.jobs.registry)) {
      const res = await t.call(b.apiKey, {
        method: 'POST',
        url: `/v1/test/jobs/${kind}`,
        payload: { value: `b-${kind}`, estimate: 2 },
      });
      expect(res.statusCode).toBe(202);
      bJobs.push(res.json().jobId);
    }
    // Real kinds through their real routes (nothing runs them here).
    const crawl = await t.call(b.apiKey, {
      method: 'POST',
      url: '/v1/web/crawl',
      payload: { url: 'https://example.com/docs', limit: 2 },
    });
    expect(crawl.statusCode).toBe(202);
    bJobs.push(crawl.json().jobId);
    const speech = await t.call(b.apiKey, {
      method: 'GET',
      url: `/v1/transcript?mode=generate&url=${encodeURIComponent('https://example.com/b-talk.mp3')}`,
    });
    expect(speech.statusCode, speech.body).toBe(202);
    bJobs.push(speech.json().jobId);
    for (const [url, payload] of [
      ['/v1/video/describe', { url: 'https://example.com/b-clip.mp4', maxFrames: 2 }],
      ['/v1/extract', { url: 'https://example.com/b-clip.mp4', prompt: 'the products shown' }],
      ['/v1/video/ocr', { url: 'https://example.com/b-clip.mp4' }],
      ['/v1/vidsite/transcript/batch', { videoIds: ['GJLlxj_dtq8'], lang: 'en' }],
      ['/v1/youtube/video/batch', { videoIds: ['GJLlxj_dtq8', 'dsMFmonKDD4'] }],
    ] as const) {
      const batch = await t.call(b.apiKey, { method: 'POST', url, payload });
      expect(batch.statusCode).toBe(202);
      bJobs.push(batch.json().jobId);
    }
  });
  afterAll(async () => closeTestApp(t));

  it("another account's key id is a 404 on DELETE /v1/keys/:id, and that key keeps working", async () => {
    for (const id of [b.keyId, bExtra.id]) {
      const res = await t.call(a.apiKey, { method: 'DELETE', url: `/v1/keys/${id}` });
      expect(res.statusCode).toBe(404);
      expectErrorShape(res.json(), 'not_found');
      // Indistinguishable from an id that does not exist.
      const unknown = await t.call(a.apiKey, { method: 'DELETE', url: `/v1/keys/${newId('key')}` });
      expect(unknown.statusCode).toBe(404);
      expect(res.json().message).toBe(unknown.json().message);
    }
    for (const key of [b.apiKey, bExtra.key]) {
      const res = await t.call(key, { method: 'GET', url: '/v1/account' });
      expect(res.statusCode).toBe(200);
      expect(res.json().id).toBe(b.accountId);
    }
    const bKeys = await t.call(b.apiKey, { method: 'GET', url: '/v1/keys' });
    for (const k of bKeys.json().keys) expect(k.revokedAt).toBeNull();
  });

  it("A's lists never show B's keys, transactions or jobs", async () => {
    const keys = await t.call(a.apiKey, { method: 'GET', url: '/v1/keys' });
    expect(keys.json().keys.map((k: { id: string }) => k.id)).toEqual([a.keyId]);
    const keysText = keys.body;
    for (const s of [b.keyId, bExtra.id, bExtra.prefix, b.apiKey, bExtra.key])
      expect(keysText).not.toContain(s);

    const bTxns = await t.services.store.db
      .selectFrom('credit_transactions')
      .select(['id', 'type'])
      .where('account_id', '=', b.accountId)
      .execute();
    // Jobs still running hold; the speech request's sizing hold was given back (release).
    expect(new Set(bTxns.map((x) => x.type))).toEqual(new Set(['grant', 'purchase', 'hold', 'release']));
    const aTxns = await t.services.store.db
      .selectFrom('credit_transactions')
      .select('id')
      .where('account_id', '=', a.accountId)
      .execute();
    for (const type of [undefined, 'grant', 'purchase', 'hold']) {
      const res = await t.call(a.apiKey, {
        method: 'GET',
        url: '/v1/account/usage',
        query: { limit: '100', ...(type ? { type } : {}) },
      });
      expect(res.statusCode).toBe(200);
      const ids = res.json().transactions.map((x: { id: string }) => x.id);
      for (const id of ids) expect(aTxns.map((x) => x.id)).toContain(id);
      for (const x of bTxns) expect(ids).not.toContain(x.id);
      expect(res.json().total).toBe(ids.length);
    }
    const bUsage = await t.call(b.apiKey, {
      method: 'GET',
      url: '/v1/account/usage',
      query: { limit: '100' },
    });
    expect(bUsage.json().total).toBe(bTxns.length);

    const jobs = await t.call(a.apiKey, { method: 'GET', url: '/v1/jobs' });
    expect(jobs.json()).toMatchObject({ jobs: [], total: 0 });
    const bJobList = await t.call(b.apiKey, { method: 'GET', url: '/v1/jobs', query: { limit: '100' } });
    expect(bJobList.json().total).toBe(bJobs.length);
  });

  it('every job route answers 404 to another account for a job its owner can read', async () => {
    const jobRoutes = t.app.routeTable.filter(
      (r) => !r.public && r.method === 'GET' && r.url.includes(':jobId'),
    );
    const readable = new Map<string, number>();
    for (const r of jobRoutes) {
      for (const jobId of bJobs) {
        const url = fillPath(r.url, { jobId });
        const mine = await t.call(b.apiKey, { method: 'GET', url });
        if (mine.statusCode !== 200) continue;
        readable.set(r.url, (readable.get(r.url) ?? 0) + 1);
        const theirs = await t.call(a.apiKey, { method: 'GET', url });
        expect(theirs.statusCode, `${r.url} for ${jobId}`).toBe(404);
        expectErrorShape(theirs.json(), 'not_found');
        expect(theirs.body).not.toContain('b-');
      }
    }
    // Non-vacuous: the owner could read every job through /v1/jobs/:jobId and each kind's poll route.
    expect(readable.get('/v1/jobs/:jobId')).toBe(bJobs.length);
    for (const url of [
      '/v1/transcript/:jobId',
      '/v1/video/ocr/:jobId',
      '/v1/video/describe/:jobId',
      '/v1/extract/:jobId',
      '/v1/web/crawl/:jobId',
      '/v1/vidsite/batch/:jobId',
      '/v1/youtube/batch/:jobId',
    ]) {
      expect(readable.get(url), url).toBeGreaterThanOrEqual(1);
    }
  });
});
