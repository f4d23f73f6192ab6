// /docs shows, under each error status of each operation, an example answer of its own: the error code
// that status carries (src/errors.ts) and a message of the server's real shape. Before, every status
// showed the Error schema's one example — a 401 that read "Missing required query parameter 'url'".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/errors.js';
import { isFirecrawlPath } from '../../src/firecrawl/paths.js';
import { errorStatus } from '../../src/http/error-status.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

interface ErrorExample {
  error: keyof typeof errorStatus;
  message: string;
  details: string | null;
  documentationUrl: string;
}
interface Answer {
  description?: string;
  content?: Record<string, { schema?: Record<string, unknown>; example?: ErrorExample }>;
}
type Doc = { paths: Record<string, Record<string, { responses: Record<string, Answer> }>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

let t: TestApp;
let doc: Doc;

beforeAll(async () => {
  t = await createTestApp();
  const res = await t.call(null, { method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  doc = res.json();
});
afterAll(async () => closeTestApp(t));

/** Every documented error answer: operation, status and its JSON content. */
function errorAnswers() {
  const out: Array<{ op: string; status: number; answer: Answer }> = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!METHODS.includes(method)) continue;
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) >= 400)
          out.push({ op: `${method.toUpperCase()} ${path}`, status: Number(status), answer });
      }
    }
  }
  return out;
}

describe('/openapi.json error examples', () => {
  it('documents error answers (sanity)', () => {
    expect(errorAnswers().length).toBeGreaterThan(100);
  });

  it('every error status of every operation has an example of the Error shape, with a code that fits the status', () => {
    const wrong: string[] = [];
    for (const { op, status, answer } of errorAnswers()) {
      const json = answer.content?.['application/json'];
      const example = json?.example;
      if (!example) {
        wrong.push(`${op} ${status}: no example`);
        continue;
      }
      if (isFirecrawlPath(op.split(' ')[1]!)) {
        // Firecrawl's routes answer in its shape: `error` is the message, `code` ours.
        expect(json?.schema, `${op} ${status}`).toEqual({ $ref: '#/components/schemas/FirecrawlError' });
        const fc = example as unknown as {
          success: boolean;
          error: string;
          code: ErrorCode;
          details: unknown;
        };
        expect(Object.keys(fc).sort(), `${op} ${status}`).toEqual(['code', 'details', 'error', 'success']);
        if (errorStatus[fc.code] !== status) wrong.push(`${op} ${status}: code ${fc.code}`);
        expect(fc.error.length, `${op} ${status}`).toBeGreaterThan(10);
        continue;
      }
      expect(json?.schema, `${op} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      expect(Object.keys(example).sort(), `${op} ${status}`).toEqual(
        ['details', 'documentationUrl', 'error', 'message'].sort(),
      );
      if (errorStatus[example.error] !== status) wrong.push(`${op} ${status}: code ${example.error}`);
      expect(example.documentationUrl).toBe(`http://127.0.0.1:8080/docs/reference#${example.error}`);
      expect(example.message.length, `${op} ${status}`).toBeGreaterThan(10);
      expect(typeof answer.description, `${op} ${status}`).toBe('string');
    }
    expect(wrong).toEqual([]);
  });

  it('the examples of one operation differ per status', () => {
    const byOp = new Map<string, Map<string, number>>();
    for (const { op, status, answer } of errorAnswers()) {
      const seen = byOp.get(op) ?? new Map<string, number>();
      byOp.set(op, seen);
      const text = JSON.stringify(answer.content?.['application/json']?.example);
      expect(seen.get(text), `${op}: ${status} shows the example of ${seen.get(text)}`).toBeUndefined();
      seen.set(text, status);
    }
  });

  it('GET /v1/web/scrape: each error status says its own thing', () => {
    const responses = doc.paths['/v1/web/scrape']!.get!.responses;
    const code = (s: number) => responses[String(s)]?.content?.['application/json']?.example?.error;
    expect(Object.fromEntries([400, 401, 402, 404, 413, 429, 502, 503].map((s) => [s, code(s)]))).toEqual({
      400: 'invalid_request',
      401: 'unauthorized',
      402: 'insufficient_credits',
      404: 'not_found',
      413: 'payload_too_large',
      429: 'rate_limited',
      502: 'upstream_error',
      503: 'service_unavailable',
    });
    const example = (s: number) => responses[String(s)]!.content!['application/json']!.example!;
    expect(example(400).message).toBe("Missing required query parameter 'url'");
    expect(example(401).message).toBe(
      'Missing API key: send Authorization: Bearer <key> (or x-api-key: <key>)',
    );
    expect(example(402).message).toMatch(/^This request needs 1 credit and the balance is 0 credits\./);
    expect(example(429).message).toMatch(/retry after \d+ s$/);
  });

  it('a route with a path id says what was not found', () => {
    const poll = doc.paths['/v1/jobs/{jobId}']!.get!.responses['404']!;
    expect(poll.content?.['application/json']?.example).toMatchObject({
      error: 'not_found',
      message: 'job not found',
    });
  });

  it('the real answer has the documented shape (a 401 of GET /v1/web/scrape)', async () => {
    const res = await t.call(null, { method: 'GET', url: '/v1/web/scrape?url=https://example.com' });
    expect(res.statusCode).toBe(401);
    const documented =
      doc.paths['/v1/web/scrape']!.get!.responses['401']!.content!['application/json']!.example!;
    expect(Object.keys(res.json()).sort()).toEqual(Object.keys(documented).sort());
    expect(res.json().error).toBe(documented.error);
    expect(res.json().message).toBe(documented.message);
  });
});
