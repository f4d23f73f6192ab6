// The edges of the API a new user meets first: a wrong method is a 405 naming the right ones, an
// unknown query parameter is a 400 naming it (as an unknown body field is), /openapi.json marks no
// parameter with a default as required and describes every answer, /docs is ours, amounts say
// "1 credit".
import { describe, expect, it } from 'vitest';
import { insufficientCredits } from '../../src/billing/ledger-sql.js';
import type { TestApp } from '../support/app.js';
import { useRegisteredApp } from '../support/registered-app.js';

let t: TestApp;
let key: string;
useRegisteredApp((stage) => {
  ({ t, key } = stage);
});

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description?: string }>;
}
type Spec = {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
};

async function spec(): Promise<Spec> {
  const res = await t.call(null, { method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  return res.json();
}

/** Resolves `#/components/schemas/X` once; bodies are inline or one reference deep. */
function resolve(s: Spec, schema: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  return s.components.schemas[ref.replace('#/components/schemas/', '')] as Record<string, unknown>;
}

/** Every object schema under `schema` (properties, items, allOf/anyOf/oneOf), itself included. */
function objectSchemas(s: Spec, schema: Record<string, unknown>, out: Record<string, unknown>[] = []) {
  const own = resolve(s, schema);
  if (!own || typeof own !== 'object') return out;
  out.push(own);
  const props = (own.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const child of Object.values(props)) objectSchemas(s, child, out);
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) {
    for (const child of (own[k] ?? []) as Record<string, unknown>[]) objectSchemas(s, child, out);
  }
  if (own.items && typeof own.items === 'object') objectSchemas(s, own.items as Record<string, unknown>, out);
  return out;
}

describe('wrong method on an existing path', () => {
  it('is a 405 method_not_allowed with Allow naming the methods the path takes', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/v1/account', 'GET'],
      ['GET', '/v1/web/crawl', 'POST'],
      ['PUT', '/v1/jobs/job_x', 'DELETE, GET'],
      ['PUT', '/v1/keys/key_x', 'DELETE'],
      // The router also matches /v1/keys/:key_id here.
      ['GET', '/v1/keys/create', 'DELETE, POST'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await t.call(key, { method: method as 'GET', url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
      const body = res.json();
      expect(body.error).toBe('method_not_allowed');
      expect(body.message).toContain(allow.split(', ')[0]);
      expect(body.documentationUrl).toMatch(/#method_not_allowed$/);
    }
  });

  it('a path with several methods names them all; an unknown path stays a 404', async () => {
    const res = await t.call(key, { method: 'PATCH', url: '/v1/auth/sessions' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    const none = await t.call(key, { method: 'GET', url: '/v1/no/such/thing' });
    expect(none.statusCode).toBe(404);
    expect(none.headers.allow).toBeUndefined();
    expect(none.json().error).toBe('not_found');
  });
});

describe('unknown query parameters', () => {
  it('are a 400 naming each of them, on free and paid routes alike, and cost nothing', async () => {
    const before = (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;
    const one = await t.call(key, { method: 'GET', url: '/v1/account?verbose=1' });
    expect(one.statusCode).toBe(400);
    expect(one.json()).toMatchObject({
      error: 'invalid_request',
      message: "Unknown query parameter 'verbose'",
      details: 'verbose',
    });
    const two = await t.call(key, {
      method: 'GET',
      url: '/v1/web/map?url=https://example.com/&limt=3&sitemaps=skip',
    });
    expect(two.statusCode).toBe(400);
    expect(two.json().message).toBe("Unknown query parameters 'limt', 'sitemaps'");
    expect(two.json().details).toBe('limt,sitemaps');
    const after = (await t.call(key, { method: 'GET', url: '/v1/account' })).json().credits;
    expect(after).toBe(before);
  });

  it('declared parameters still pass: usage with limit and type, jobs with status', async () => {
    expect(
      (await t.call(key, { method: 'GET', url: '/v1/account/usage?limit=5&type=grant' })).statusCode,
    ).toBe(200);
    expect((await t.call(key, { method: 'GET', url: '/v1/jobs?status=completed&limit=2' })).statusCode).toBe(
      200,
    );
  });

  it('an unknown body field is refused the same way', async () => {
    const res = await t.call(key, {
      method: 'POST',
      url: '/v1/keys/create',
      payload: { name: 'x', colour: 'red' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe("Unknown body field 'colour'");
  });

  it('the test checkout page takes the result=… a payment provider adds when it sends the buyer back', async () => {
    const checkout = await t.call(key, {
      method: 'POST',
      url: '/v1/credits/purchase',
      payload: { package_id: 'credits_500' },
    });
    const path = new URL(checkout.json().checkoutUrl).pathname;
    const page = await t.call(null, { method: 'GET', url: `${path}?result=success` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('href="/#/credits"');
  });
});

describe('/openapi.json', () => {
  it('marks no parameter or body field that has a default as required', async () => {
    const s = await spec();
    const offenders: string[] = [];
    let withDefaults = 0;
    for (const [path, ops] of Object.entries(s.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) {
          if (p.schema && 'default' in p.schema) {
            withDefaults++;
            if (p.required) offenders.push(`${method} ${path} ${p.in} ${p.name}`);
          }
        }
        const body = op.requestBody?.content['application/json']?.schema;
        if (!body) continue;
        for (const obj of objectSchemas(s, body)) {
          const props = (obj.properties ?? {}) as Record<string, Record<string, unknown>>;
          for (const name of (obj.required ?? []) as string[]) {
            const prop = props[name] ? resolve(s, props[name]) : undefined;
            if (prop && 'default' in prop) offenders.push(`${method} ${path} body ${name}`);
          }
          withDefaults += Object.values(props).filter((p) => 'default' in p).length;
        }
      }
    }
    expect(offenders).toEqual([]);
    // The check looked at something: the spec has many parameters with defaults (limit, render, …).
    expect(withDefaults).toBeGreaterThan(20);
  });

  it('still requires what has no default (scrape url, crawl url)', async () => {
    const s = await spec();
    const scrape = s.paths['/v1/web/scrape']!.get!;
    expect(scrape.parameters!.find((p) => p.name === 'url')!.required).toBe(true);
    expect(scrape.parameters!.find((p) => p.name === 'render')!.required).not.toBe(true);
    const crawl = resolve(
      s,
      s.paths['/v1/web/crawl']!.post!.requestBody!.content['application/json']!.schema,
    );
    expect(crawl.required).toEqual(['url']);
  });

  it('describes every answer (no "Default Response") and every route has a success answer', async () => {
    const s = await spec();
    const bland: string[] = [];
    for (const [path, ops] of Object.entries(s.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const statuses = Object.keys(op.responses);
        if (!statuses.some((c) => c.startsWith('2'))) bland.push(`${method} ${path}: no 2xx`);
        for (const [status, answer] of Object.entries(op.responses)) {
          if (!answer.description || answer.description === 'Default Response') {
            bland.push(`${method} ${path} ${status}`);
          }
        }
      }
    }
    expect(bland).toEqual([]);
    const scrape = s.paths['/v1/web/scrape']!.get!.responses;
    expect(scrape['402']!.description).toMatch(/Nothing was charged/);
    expect(s.paths['/v1/web/crawl']!.post!.responses['202']!.description).toMatch(/job/);
  });

  it('shows examples of the error body, a scraped page and an accepted job', async () => {
    const s = await spec();
    const examples = (name: string) => (s.components.schemas[name] as { examples?: unknown[] }).examples;
    expect(examples('Error')?.[0]).toMatchObject({ error: 'invalid_request', details: 'url' });
    expect(examples('ScrapedPage')?.[0]).toMatchObject({ name: 'Example Domain' });
  });
});

describe('/docs', () => {
  it('is branded: our title, logo and stylesheet, not the stock page', async () => {
    const docs = await t.call(null, { method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('<title>Unfurl API · docs</title>');
    expect(docs.body).not.toMatch(/<title>Swagger UI<\/title>/);
    expect(docs.body).toContain('unfurl.css');
    const css = await t.call(null, { method: 'GET', url: '/docs/static/theme/unfurl.css' });
    expect(css.statusCode).toBe(200);
    expect(css.body).toContain('.topbar');
    // The top bar's logo is swapped in by the initializer script, as a data: URL of our mark.
    const init = await t.call(null, { method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body)?.[1];
    expect(Buffer.from(logo ?? '', 'base64').toString()).toContain('Unfurl API');
  });

  it('the API description links the reference and the dashboard', async () => {
    const s = (await spec()) as Spec & { info: { description: string } };
    expect(s.info.description).toContain('(/docs/reference)');
    expect(s.info.description).toContain('[Dashboard](/)');
  });
});

describe('amounts', () => {
  it('say "1 credit", not "1 credits"', () => {
    expect(insufficientCredits(1, 0).message).toContain('needs 1 credit and the balance is 0 credits');
    expect(insufficientCredits(5, 1).message).toContain('needs 5 credits and the balance is 1 credit.');
  });
});
