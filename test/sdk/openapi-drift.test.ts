// The SDK cannot drift from the API: every operation the server publishes in /openapi.json (aliases are
// hidden there) has a route in the SDK's table, every route of the table is published, and every route
// of the table is called by some client method.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../packages/sdk/src/routes.js';
import { createTestApp, type TestApp } from '../support/app.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const sdkSrc = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../packages/sdk/src');

let t: TestApp;
let published: string[];

beforeAll(async () => {
  // The app exactly as `unfurl serve` builds it: no test routes.
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  const doc = res.json() as { paths: Record<string, Record<string, unknown>> };
  published = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.keys(ops)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${p}`),
  );
});
afterAll(async () => {
  await t?.close();
});

const inTable = () => Object.values(routes).map((r) => `${r.method} ${r.path}`);

describe('SDK route table against /openapi.json', () => {
  it('publishes operations (sanity: the document was read)', () => {
    expect(published).toContain('POST /v1/auth/register');
    expect(published.length).toBeGreaterThan(20);
    // Aliases are hidden from the document, so they never count as operations of their own.
    expect(published.some((op) => op.includes('/v1/youtube/'))).toBe(false);
  });

  it('has an SDK route for every published operation', () => {
    const missing = published.filter((op) => !inTable().includes(op));
    expect(missing, 'published operations without an SDK method').toEqual([]);
  });

  it('calls only published operations', () => {
    const unknown = inTable().filter((op) => !published.includes(op));
    expect(unknown, 'SDK routes the server does not publish').toEqual([]);
  });

  it('lists each operation once', () => {
    expect(new Set(inTable()).size).toBe(inTable().length);
  });

  it('has a client method calling every route of the table', () => {
    const source = fs.readFileSync(path.join(sdkSrc, 'client.ts'), 'utf8');
    const polling = fs.readFileSync(path.join(sdkSrc, 'polling.ts'), 'utf8');
    const called = new Set(
      [...`${source}\n${polling}`.matchAll(/(?:callRaw|call<[^>]*>|call|fillPath)\(\s*'(\w+)'/g)].map(
        (m) => m[1],
      ),
    );
    const uncalled = Object.keys(routes).filter((name) => !called.has(name));
    expect(uncalled, 'routes no client method calls').toEqual([]);
  });
});
