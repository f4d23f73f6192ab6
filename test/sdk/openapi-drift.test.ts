// The SDK cannot drift from the API: its route table (packages/sdk/src/routes.ts) is generated from
// the server's /openapi.json by scripts/sdk-routes.ts, and the committed file must be what the script
// writes from the server now (run `npm run sdk:routes` after changing a route); every route of the
// table is called by some client method.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagedKinds, pollRouteOfKind, routes } from '../../packages/sdk/src/routes.js';
import {
  type RoutesDocument,
  SDK_ROUTES_FILE,
  sdkOperations,
  sdkRoutesSource,
} from '../../scripts/sdk-routes.js';
import { createTestApp, type TestApp } from '../support/app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sdkSrc = path.join(root, 'packages/sdk/src');

let t: TestApp;
let doc: RoutesDocument;
let published: string[];

beforeAll(async () => {
  // The app exactly as `unfurl serve` builds it: no test routes.
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json() as RoutesDocument;
  // Firecrawl's API (its own tag) is for Firecrawl's clients: our SDK leaves it out.
  published = sdkOperations(doc).map((o) => `${o.method} ${o.path}`);
});
afterAll(async () => {
  await t?.close();
});

describe('SDK route table against /openapi.json', () => {
  it('publishes operations (sanity: the document was read)', () => {
    expect(published).toContain('POST /v1/auth/register');
    expect(published.length).toBeGreaterThan(20);
    // Aliases are hidden from the document, so they never count as operations of their own.
    expect(published.some((op) => op.includes('/v1/youtube/'))).toBe(false);
  });

  it('is the file scripts/sdk-routes.ts writes from the server now (`npm run sdk:routes`)', () => {
    const committed = fs.readFileSync(path.join(root, SDK_ROUTES_FILE), 'utf8');
    expect(committed, `${SDK_ROUTES_FILE} is stale: run \`npm run sdk:routes\``).toBe(sdkRoutesSource(doc));
  });

  it('has one route per published operation, named by its operationId', () => {
    const inTable = Object.values(routes).map((r) => `${r.method} ${r.path}`);
    expect(inTable.sort()).toEqual([...published].sort());
    expect(routes.register).toEqual({ method: 'POST', path: '/v1/auth/register' });
    expect(routes.transcriptPoll).toEqual({ method: 'GET', path: '/v1/transcript/{jobId}' });
  });

  it('knows where the job kinds are polled and which poll answers are paged', () => {
    expect(pollRouteOfKind.crawl).toBe('crawlPoll');
    expect(pollRouteOfKind.transcript_batch).toBe('batchPoll');
    expect([...pagedKinds].sort()).toEqual(['batch_scrape', 'crawl', 'transcript_batch', 'video_batch']);
  });

  it('refuses an operation without an operationId', () => {
    expect(() => sdkRoutesSource({ paths: { '/v1/x': { get: {} } } })).toThrow(/GET \/v1\/x: no operationId/);
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
