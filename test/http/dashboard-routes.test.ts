// What the dashboard reads and where it lives (issue 35): `/dashboard/` leads to the dashboard rather
// than a 400 about a path parameter, `/favicon.ico` is an icon, and each usage row says what its
// `job_id` names (`ref_kind`), added beside the spec's fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

describe('dashboard routes and the usage rows it reads', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await closeTestApp(t);
  });

  it('/dashboard and /dashboard/ send the browser to the dashboard at /', async () => {
    for (const url of ['/dashboard/', '/dashboard']) {
      const res = await t.call(null, { method: 'GET', url });
      expect(res.statusCode, url).toBe(301);
      expect(res.headers.location, url).toBe('/');
    }
    // Its files are still served, and unknown names are still refused.
    expect((await t.call(null, { method: 'GET', url: '/dashboard/app.css' })).statusCode).toBe(200);
    expect((await t.call(null, { method: 'GET', url: '/dashboard/nope.js' })).statusCode).toBe(404);
  });

  it('/favicon.ico is a small ICO holding a 32×32 PNG of the mark', async () => {
    const res = await t.call(null, { method: 'GET', url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/x-icon');
    const ico = res.rawPayload;
    expect(ico.length).toBeLessThan(1024);
    expect([...ico.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]); // reserved, icon, one image
    expect([ico[6], ico[7]]).toEqual([32, 32]);
    const size = ico.readUInt32LE(14);
    const offset = ico.readUInt32LE(18);
    expect(offset + size).toBe(ico.length);
    const png = ico.subarray(offset);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBe(32); // IHDR width
    expect(png.readUInt32BE(20)).toBe(32); // IHDR height
    const again = await t.call(null, {
      method: 'GET',
      url: '/favicon.ico',
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    // The page names both icons.
    const index = await t.call(null, { method: 'GET', url: '/' });
    expect(index.body).toContain('href="/dashboard/favicon.svg"');
    expect(index.body).toContain('href="/favicon.ico"');
  });

  it('each usage row says whether its job_id is a job, a request or a checkout', async () => {
    const { apiKey, accountId } = await t.register();
    const { ledger } = t.services;
    await ledger.holdRequest(accountId, 'req_refkindtest000001', 1, 'Scrape', 'scrape');
    await ledger.endRequest(accountId, 'req_refkindtest000001', 1, 'Scrape');
    await ledger.hold(accountId, 'job_refkindtest000001', 5, 1, 'Hold for crawl job', 'crawl');
    await ledger.settleJob(accountId, 'job_refkindtest000001', 3, 'crawl job', 'crawl');
    await ledger.purchase(accountId, 500, 'chk_refkindtest000001', 'Purchase of credits_500');
    const res = await t.call(apiKey, { method: 'GET', url: '/v1/account/usage?limit=100' });
    expect(res.statusCode).toBe(200);
    const rows = res.json().transactions as Array<Record<string, unknown>>;
    const kinds = new Map(rows.map((r) => [r.job_id, r.ref_kind]));
    expect(kinds.get('req_refkindtest000001')).toBe('request');
    expect(kinds.get('job_refkindtest000001')).toBe('job');
    expect(kinds.get('chk_refkindtest000001')).toBe('checkout');
    const grant = rows.find((r) => r.type === 'grant')!;
    expect(grant.job_id).toBeNull();
    expect(grant.ref_kind).toBeNull();
    // The spec's fields are all still there, under their names.
    for (const row of rows)
      for (const field of ['id', 'amount', 'type', 'description', 'job_id', 'created_at'])
        expect(row, field).toHaveProperty(field);
    // Documented where the schema is defined.
    const spec = (await t.call(null, { method: 'GET', url: '/openapi.json' })).json();
    const row =
      spec.paths['/v1/account/usage'].get.responses['200'].content['application/json'].schema.properties
        .transactions.items;
    expect(row.properties.ref_kind.anyOf[0].enum).toEqual(['job', 'request', 'checkout']);
    expect(row.properties.ref_kind.description).toContain('What `job_id` names');
    expect(row.properties.job_id.description).toContain('`req_…`');
  });
});
