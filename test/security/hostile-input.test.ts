// Hostile values over the live route table: for every operation of /openapi.json, every integer or
// number parameter is sent as Infinity, -Infinity, 1e309 and NaN, every string parameter with a NUL
// character, every body object nested thousands of levels deep, and a body sent to an operation that
// takes none — each in an otherwise valid request. Each must be a 400 invalid_request that names the parameter, never a 500. A new route is
// covered as soon as it is declared; the test also checks that every /v1 route is declared (or an
// alias of one), so none escapes the table.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findInputProblem, MAX_INPUT_DEPTH } from '../../src/http/plugins/input-guard.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { errorParts } from '../support/error-body.js';
import { closeTestApp } from '../support/teardown.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schemas out of the OpenAPI document
type Schema = Record<string, any>;

interface Parameter {
  in: 'query' | 'path' | 'header';
  name: string;
  required?: boolean;
  schema: Schema;
  /** The OpenAPI document moves a schema's example up here. */
  example?: unknown;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: Schema | null;
}

interface Case {
  name: string;
  request: InjectOptions;
  param: string;
}

const NON_FINITE = ['Infinity', '-Infinity', '1e309', 'NaN'];
const NUL = 'ab\u0000cd';

/** A plausible valid value for a schema: its default, first allowed value, or one of its type. */
function sample(schema: Schema, name: string): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return sample(alternatives[0], name);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [sample(schema.items ?? { type: 'string' }, name)];
    case 'object':
      return sampleObject(schema);
    default:
      if (/url/i.test(name) || schema.format === 'uri') return 'https://example.com/page';
      if (/email/i.test(name)) return 'someone@example.com';
      if (/password/i.test(name)) return 'a long enough passphrase';
      return 'abcdefgh';
  }
}

function sampleObject(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of schema.required ?? []) out[key] = sample(schema.properties?.[key] ?? {}, key);
  return out;
}

/** The JSON text of a schema nested `levels` deep (built as text: JSON.stringify would overflow). */
function deeplyNestedJson(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

function deeplyNested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) value = { type: 'object', properties: { a: value } };
  return value;
}

const isNumeric = (s: Schema) => s.type === 'integer' || s.type === 'number';
const isString = (s: Schema) =>
  s.type === 'string' || (Array.isArray(s.enum) && typeof s.enum[0] === 'string');

function operations(spec: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths as Record<string, Schema>)) {
    for (const [method, op] of Object.entries(methods)) {
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as Parameter[],
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      });
    }
  }
  return out;
}

/** The request of `op` with valid values everywhere, then `change` applied to its query or body. */
function build(
  op: Operation,
  change: { query?: Record<string, string>; path?: Record<string, string>; body?: string },
): InjectOptions {
  const query: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'query' && x.required)) {
    query[p.name] = String(p.example ?? sample(p.schema, p.name));
  }
  Object.assign(query, change.query);
  const url = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(change.path?.[name] ?? (name.toLowerCase().includes('job') ? 'job_abc' : 'key_abc')),
  );
  const request: InjectOptions = { method: op.method as InjectOptions['method'], url, query };
  if (op.body || change.body !== undefined) {
    request.payload = change.body ?? JSON.stringify(sampleObject(op.body!));
    request.headers = { 'content-type': 'application/json' };
  }
  return request;
}

function cases(op: Operation): Case[] {
  const label = `${op.method} ${op.path}`;
  const out: Case[] = [];
  for (const p of op.parameters.filter((x) => x.in === 'query' || x.in === 'path')) {
    const where = p.in === 'query' ? 'query' : 'path';
    if (isNumeric(p.schema)) {
      for (const v of NON_FINITE) {
        out.push({
          name: `${label} ${where} ${p.name}=${v}`,
          param: p.name,
          request: build(op, { [where]: { [p.name]: v } }),
        });
      }
    }
    if (isString(p.schema)) {
      out.push({
        name: `${label} ${where} ${p.name} with NUL`,
        param: p.name,
        request: build(op, { [where]: { [p.name]: NUL } }),
      });
    }
  }
  if (!op.body && op.path.startsWith('/v1/')) {
    // A body where an API operation takes none is refused, not ignored (probes outside /v1 ignore it).
    out.push({
      name: `${label} with an unexpected body`,
      param: 'body',
      request: build(op, { body: '{"unexpected":true}' }),
    });
  }
  if (op.body) {
    const base = sampleObject(op.body);
    for (const [name, schema] of Object.entries((op.body.properties ?? {}) as Record<string, Schema>)) {
      const bodyWith = (raw: string) => {
        const marker = '"__HOSTILE__"';
        return JSON.stringify({ ...base, [name]: '__HOSTILE__' }).replace(marker, raw);
      };
      if (isNumeric(schema)) {
        for (const raw of ['1e309', '-1e309', '"Infinity"']) {
          out.push({
            name: `${label} body ${name}=${raw}`,
            param: name,
            request: build(op, { body: bodyWith(raw) }),
          });
        }
      }
      if (isString(schema)) {
        out.push({
          name: `${label} body ${name} with NUL`,
          param: name,
          request: build(op, { body: bodyWith(JSON.stringify(NUL)) }),
        });
      }
      if (schema.type === 'array' && isString(schema.items ?? {})) {
        out.push({
          name: `${label} body ${name}[] with NUL`,
          param: name,
          request: build(op, { body: bodyWith(JSON.stringify([NUL])) }),
        });
      }
      if (schema.type === 'object') {
        out.push({
          name: `${label} body ${name} nested 5000 levels`,
          param: name,
          request: build(op, { body: bodyWith(deeplyNestedJson(5000)) }),
        });
      }
    }
  }
  return out;
}

describe('hostile values in every parameter of every declared operation', () => {
  let t: TestApp;
  let key: string;
  let all: Case[];

  beforeAll(async () => {
    t = await createTestApp();
    key = (await t.register()).apiKey;
    all = operations(t.app.swagger() as Schema).flatMap(cases);
  });
  afterAll(async () => closeTestApp(t));

  it('covers every /v1 route of the route table (declared, or an alias of a declared one)', () => {
    const declared = new Set(
      operations(t.app.swagger() as Schema).map(
        (op) => `${op.method} ${op.path.replace(/\{([^}]+)\}/g, ':$1')}`,
      ),
    );
    const canonical = (url: string) =>
      url
        .replace(/^\/v1\/youtube\//, '/v1/vidsite/')
        .replace(/^\/v1\/(twitter|x)\/post$/, '/v1/microblog/post');
    // Routes outside the OpenAPI document on purpose: the test-mode checkout page and the Stripe
    // webhook (their own input rules, tested in test/billing).
    const undeclared = t.app.routeTable
      .filter((r) => r.url.startsWith('/v1/'))
      .map((r) => `${r.method} ${canonical(r.url)}`)
      // DELETE on a job is POST …/cancel under another name (hidden from the document).
      .map((r) => (r === 'DELETE /v1/jobs/:jobId' ? 'POST /v1/jobs/:jobId/cancel' : r))
      .filter(
        (r) => !declared.has(r) && !r.includes('/v1/credits/checkout/') && r !== 'POST /v1/credits/webhook',
      );
    expect(undeclared).toEqual([]);
    expect(all.length).toBeGreaterThan(60);
  });

  it('answers each with a 400 invalid_request naming the parameter, never a 500', async () => {
    const wrong: string[] = [];
    for (const c of all) {
      const res = await t.call(key, c.request);
      const body = errorParts(String(c.request.url), res.json());
      // A field inside an object parameter (`transcript.mode`) names that parameter too.
      const named = body.details === c.param || String(body.details).startsWith(`${c.param}.`);
      if (res.statusCode !== 400 || body.error !== 'invalid_request' || !named) {
        wrong.push(
          `${c.name} → ${res.statusCode} ${body.error} details=${body.details}: ${String(body.message).slice(0, 120)}`,
        );
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('refuses a deep extract schema before any recursive walk, and names it', async () => {
    const res = await t.call(key, {
      method: 'POST',
      url: '/v1/extract',
      payload: `{"url":"https://example.com/v.mp4","schema":${deeplyNestedJson(5000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', details: 'schema' });
    expect(res.json().message).toContain(`deeper than ${MAX_INPUT_DEPTH} levels`);
  });
});

describe('findInputProblem', () => {
  it('finds non-finite numbers, NUL characters (in values and names) and deep nesting, and passes the rest', () => {
    expect(
      findInputProblem({ limit: 10, offset: 0, name: 'ok', tags: ['a', 'b'], nested: { x: 1.5 } }),
    ).toBeNull();
    expect(findInputProblem({ limit: Number.POSITIVE_INFINITY })).toEqual({
      path: 'limit',
      reason: 'must be a finite number',
    });
    expect(findInputProblem({ a: { b: [1, Number.NaN] } })?.path).toBe('a.b.1');
    expect(findInputProblem({ ids: ['x', 'y\u0000'] })?.path).toBe('ids.1');
    expect(findInputProblem({ s: { 'k\u0000': 1 } })?.reason).toContain('NUL');
    expect(findInputProblem(deeplyNested(MAX_INPUT_DEPTH / 2 - 1))).toBeNull();
    expect(findInputProblem(deeplyNested(100_000))?.reason).toContain('deeper than');
  });
});
