// The Python SDK cannot drift from the API: its route table and types (packages/python/unfurl/) are
// written from the server's /openapi.json by scripts/sdk-python.ts, its blocking client from its async
// one, its version from package.json; each committed file must be what the script writes now (run
// `npm run sdk:python` after changing a route), and every route of the table is called by a method.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ASYNC_CLIENT,
  PYTHON_GENERATED,
  PYTHON_PACKAGE,
  type PythonDocument,
  pythonSources,
  snakeName,
  syncClientSource,
} from '../../scripts/sdk-python.js';
import { sdkOperations } from '../../scripts/sdk-routes.js';
import { createTestApp, type TestApp } from '../support/app.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = path.join(root, PYTHON_PACKAGE);
const read = (name: string) => fs.readFileSync(path.join(pkg, name), 'utf8');

let t: TestApp;
let doc: PythonDocument;
let published: string[];

beforeAll(async () => {
  // The app exactly as `unfurl serve` builds it: no test routes.
  t = await createTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json() as PythonDocument;
  published = sdkOperations(doc).map((o) => `${o.method} ${o.path}`);
});
afterAll(async () => {
  await t?.close();
});

/** The table of _routes.py: name → "METHOD /path". */
function routeTable(): Record<string, string> {
  const source = read('_routes.py');
  return Object.fromEntries(
    [...source.matchAll(/^ {4}"(\w+)": Route\("(\w+)", "([^"]+)"/gm)].map((m) => [m[1]!, `${m[2]} ${m[3]}`]),
  );
}

describe('the Python SDK against /openapi.json', () => {
  it('has every generated file as `npm run sdk:python` writes it now', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    const sources = pythonSources(doc, read(ASYNC_CLIENT), version);
    for (const name of PYTHON_GENERATED) {
      expect(read(name), `${PYTHON_PACKAGE}/${name} is stale: run \`npm run sdk:python\``).toBe(
        sources[name],
      );
    }
    expect(read('_version.py')).toContain(`__version__ = "${version}"`);
  });

  it('has one route per published operation, named by its operationId', () => {
    const table = routeTable();
    expect(Object.values(table).sort()).toEqual([...published].sort());
    expect(table.transcript).toBe('GET /v1/transcript');
    expect(table.crawlPoll).toBe('GET /v1/web/crawl/{jobId}');
  });

  it('has a client method calling every route of the table', () => {
    const source = read(ASYNC_CLIENT);
    const called = new Set([...source.matchAll(/_(?:call|follow|cursor)\(\s*"(\w+)"/g)].map((m) => m[1]));
    const uncalled = Object.keys(routeTable()).filter((name) => !called.has(name));
    expect(uncalled, 'routes no method of the Python SDK calls').toEqual([]);
  });

  it('names keyword arguments in snake_case', () => {
    expect(snakeName('chunkSize')).toBe('chunk_size');
    expect(snakeName('deduplicateSimilarURLs')).toBe('deduplicate_similar_urls');
    expect(snakeName('sourceURL')).toBe('source_url');
    expect(snakeName('package_id')).toBe('package_id');
    expect(snakeName('from')).toBe('from_');
    expect(read('_routes.py')).toContain('"chunk_size": "chunkSize"');
  });

  it('writes the blocking client with no async left in it', () => {
    const sync = syncClientSource(read(ASYNC_CLIENT));
    expect(sync).not.toMatch(/\basync\b|\bawait\b|AsyncUnfurl|AsyncClient|asyncio|aclose/);
    expect(sync).toContain('class Unfurl:');
    expect(sync).toContain('def __enter__(self) -> Unfurl:');
    expect(sync).toContain('from time import sleep');
  });

  it('refuses an operation without an operationId', () => {
    expect(() => pythonSources({ paths: { '/v1/x': { get: {} } } }, '', '0.0.0')).toThrow(
      /GET \/v1\/x: no operationId/,
    );
  });
});
