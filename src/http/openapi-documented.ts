// The documented copy of each route's schemas, as /openapi.json shows them. Parameters that have
// defaults are optional there: the validator fills a default in before it checks `required`, so such a
// parameter may always be left out, yet a schema that lists it as required makes generated clients
// send it on every call. And every answer has a description saying what it means. The routes keep
// their own schemas (and handler types, where the default guarantees a value).

import type { ErrorCode } from '../errors.js';
import { isFirecrawlPath } from '../firecrawl/paths.js';
import type { McpToolDeclaration } from '../mcp/tools.js';

// The `x-` keys a route's schema may carry: @fastify/swagger copies every schema key that starts with
// `x-` onto the route's operation in /openapi.json as it is (and `operationId` too), so a route declares
// there what the MCP tools and the SDK's route table are derived from.
declare module 'fastify' {
  interface FastifySchema {
    /** The route is an MCP tool (src/mcp/tools.ts). */
    'x-mcp-tool'?: McpToolDeclaration;
    /** The route creates jobs of this kind (jobRoute). */
    'x-job-kind'?: string;
    /** The route polls jobs of these kinds (pollRoute). */
    'x-job-kinds'?: readonly string[];
    /** The poll answer shows a slice of the job's items from `?skip=`, with `next` while more remain. */
    'x-paged'?: boolean;
  }
}

type Schema = Record<string | symbol, unknown>;

const isSchema = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `schema` with every property that has a default dropped from its object's `required`. Pure. */
export function withDefaultsOptional(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withDefaultsOptional);
  if (!isSchema(schema)) return schema;
  const out: Schema = { ...schema };
  const props = isSchema(schema.properties) ? schema.properties : null;
  if (props) {
    out.properties = Object.fromEntries(
      Object.entries(props).map(([name, child]) => [name, withDefaultsOptional(child)]),
    );
    if (Array.isArray(schema.required)) {
      const required = schema.required.filter((name) => !(isSchema(props[name]) && 'default' in props[name]));
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
  }
  for (const key of ['items', 'allOf', 'anyOf', 'oneOf', 'additionalProperties'] as const) {
    if (key in schema) out[key] = withDefaultsOptional(schema[key]);
  }
  return out;
}

const INPUT_PARTS = ['querystring', 'body', 'params', 'headers'] as const;

/** What each status means, for answers whose schema does not say. */
export const STATUS_DESCRIPTIONS: Record<string, string> = {
  '200': 'OK',
  '202': 'Accepted: a job was created. Poll its status route with the jobId, or wait for its webhook',
  '400': 'Invalid request: `message` and `details` name the parameter. Nothing was charged',
  '401': 'No API key, or one that is unknown, revoked or expired',
  '402':
    'The balance does not cover the request. Nothing was charged; buy credits (POST /v1/credits/purchase)',
  '403': 'Forbidden: the media is private or restricted, or the action is disabled on this server',
  '404': 'Not found (or not yours, or expired)',
  '405': 'The path exists, but not with this method: `Allow` names those it takes',
  '409': 'Conflict: it already exists, or an Idempotency-Key was reused with another body',
  '413': 'Too large: the body, or the page or media fetched',
  '429': 'Rate limited: retry after Retry-After seconds. Nothing was charged',
  '502': 'The platform or site failed or blocked us after retries. Nothing was charged',
  '503': 'A dependency (database, Redis, browser) or the AI provider is not available. Nothing was charged',
};

/** The documentation URL an error answer carries, as a server on the default address writes it. */
const docUrl = (code: ErrorCode) => `http://127.0.0.1:8080/docs/reference#${code}`;

/** The video id the examples name. */
const VIDEO = 'dQw4w9WgXcQ';

/** The first required property of a route's input part, if any. */
function firstRequired(schema: Schema, part: 'querystring' | 'body'): string | null {
  const input = schema[part];
  if (!isSchema(input) || !Array.isArray(input.required)) return null;
  const props = isSchema(input.properties) ? input.properties : {};
  const name = input.required.find(
    (n) => typeof n === 'string' && !(isSchema(props[n]) && 'default' in props[n]),
  );
  return typeof name === 'string' ? name : null;
}

/** The not-found message of a path's id parameter (`:jobId`, `{key_id}`, …), as the services write it. */
const NOT_FOUND: Record<string, string> = {
  job: 'job not found',
  key: 'API key not found',
  session: 'Session not found',
  checkout: 'checkout not found',
};

/** What a path's id parameter names: `/v1/jobs/:jobId` → "job", `/v1/keys/{key_id}` → "key". */
function resourceOf(url: string): string | null {
  const m = /[:{]([A-Za-z]+?)_?[Ii]d\b/.exec(url);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * An example error answer for `status` of the route at `url`: the code the status carries (errors.ts)
 * and a message of the shape the server really writes for it. Pure.
 */
export function errorExample(status: number, url: string, schema: Schema = {}) {
  const ours = ourErrorExample(status, url, schema);
  // Firecrawl's routes answer in its shape (plugins/errors.ts).
  if (!ours || !isFirecrawlPath(url)) return ours;
  return { success: false, error: ours.message, code: ours.error, details: ours.details };
}

function ourErrorExample(status: number, url: string, schema: Schema) {
  const example = (code: ErrorCode, message: string, details: string | null = null) => ({
    error: code,
    message,
    details,
    documentationUrl: docUrl(code),
  });
  const resource = resourceOf(url);
  switch (status) {
    case 400: {
      const query = firstRequired(schema, 'querystring');
      if (query) return example('invalid_request', `Missing required query parameter '${query}'`, query);
      const field = firstRequired(schema, 'body');
      if (field) return example('invalid_request', `Missing required body field '${field}'`, field);
      const body = isSchema(schema.body) && isSchema(schema.body.properties) ? schema.body.properties : null;
      const first = body ? Object.keys(body)[0] : undefined;
      if (first) return example('invalid_request', `Invalid body field '${first}': must be string`, first);
      return example('invalid_request', "Unknown query parameter 'limt'", 'limt');
    }
    case 401:
      if (url === '/v1/auth/login') return example('unauthorized', 'Invalid e-mail or password');
      return example(
        'unauthorized',
        'Missing API key: send Authorization: Bearer <key> (or x-api-key: <key>)',
      );
    case 402:
      return example(
        'insufficient_credits',
        'This request needs 1 credit and the balance is 0 credits. Buy more: GET /v1/credits/packages, then POST /v1/credits/purchase.',
        'needed=1 balance=0',
      );
    case 403:
      if (url.startsWith('/v1/credits/'))
        return example('forbidden', 'Purchases are disabled on this server (UNFURL_CHECKOUT=off)');
      if (url === '/v1/auth/logout')
        return example(
          'forbidden',
          'Logout ends a login session (uf_sess_… token); to revoke an API key use DELETE /v1/keys/{key_id}',
        );
      if (url === '/v1/auth/password')
        return example('forbidden', 'The current password is not right', 'currentPassword');
      return example('forbidden', 'The short-video site wants a login to show this video');
    case 404:
      if (resource) return example('not_found', NOT_FOUND[resource] ?? `${resource} not found`);
      if (/transcript/.test(url))
        return example('transcript_unavailable', `Video ${VIDEO} has no captions`, VIDEO);
      if (url.startsWith('/v1/web/')) return example('not_found', 'example.com answered 404: no such page');
      if (url.startsWith('/v1/microblog/'))
        return example(
          'not_found',
          'Post 1234567890 not found or not available (no such post)',
          '1234567890',
        );
      return example('not_found', `Video ${VIDEO} not found or not available`, VIDEO);
    case 405:
      return example('method_not_allowed', 'This MCP endpoint is stateless: POST only');
    case 409:
      if (url === '/v1/auth/register')
        return example('conflict', 'An account with this e-mail already exists');
      if (url === '/v1/auth/password')
        return example('conflict', 'The password was changed meanwhile; log in again with the new one');
      if (url === '/v1/keys/create')
        return example('conflict', 'An account may hold at most 100 active keys; revoke one first');
      if (url.endsWith('/cancel'))
        return example(
          'conflict',
          'Job job_0mwzwbwstL707qWdW6TLhmtzI has already completed; only a queued or active job can be cancelled',
          'status=completed',
        );
      return example(
        'conflict',
        'This Idempotency-Key was already used with a different request body',
        'Idempotency-Key',
      );
    case 413:
      if (url.includes('/translate'))
        return example(
          'payload_too_large',
          'Translating this transcript takes 40 language-model calls; at about 5 s each, as the model has answered ' +
            'lately, that is about 200 s, more than the 120 s a request may take (UNFURL_AI_TIMEOUT_MS). Nothing was charged',
        );
      if (/transcript/.test(url))
        return example(
          'payload_too_large',
          'The media lasts 300 minutes; speech recognition takes at most 240',
          'url',
        );
      return example(
        'payload_too_large',
        'The PDF at https://example.com/report.pdf is larger than the download limit',
      );
    case 415:
      return example('unsupported_media_type', 'Send the body as application/json');
    case 429:
      return example('rate_limited', 'Too many requests; retry after 2 s');
    case 500:
      return example('internal_error', 'Something went wrong on our side; the request was not charged');
    case 502:
      if (url.startsWith('/v1/credits/'))
        return example(
          'upstream_error',
          'The payment provider could not start the checkout; try again later',
        );
      return example('upstream_error', 'example.com answered HTTP 500');
    case 503:
      if (url === '/ready') return example('service_unavailable', 'The database is not reachable');
      if (/transcript/.test(url)) {
        const task = url.includes('/translate') ? 'language model' : 'speech recognition';
        return example(
          'provider_unavailable',
          `No AI provider is configured for ${task} on this server (UNFURL_AI_BASE_URL)`,
        );
      }
      if (url.startsWith('/v1/web/'))
        return example('service_unavailable', 'Rendering with a browser is not available on this server');
      return example('service_unavailable', 'The server is overloaded; retry after 5 s');
    default:
      return null;
  }
}

/**
 * A route's answers, each with a description: its own, the route's summary for a 200, else the status's.
 * Every error answer also gets an example of its own (the Error schema's one example would otherwise be
 * shown for every status: a 401 that reads like a missing parameter).
 */
function describeResponses(responses: unknown, schema: Schema, url: string): unknown {
  if (!isSchema(responses)) return responses;
  const summary = schema.summary;
  const out: Schema = {};
  // A route that declares only its errors still answers something when it succeeds.
  if (!Object.keys(responses).some((status) => status.startsWith('2'))) out['200'] = {};
  for (const [status, answer] of Object.entries({ ...out, ...responses })) {
    if (!isSchema(answer) || typeof answer.description === 'string') {
      out[status] = answer;
      continue;
    }
    const own = status === '200' && typeof summary === 'string' ? summary : undefined;
    const description = own ?? STATUS_DESCRIPTIONS[status] ?? `HTTP ${status}`;
    const example = Number(status) >= 400 ? errorExample(Number(status), url, schema) : null;
    out[status] = example
      ? { description, content: { 'application/json': { schema: answer, example } } }
      : { ...answer, description };
  }
  return out;
}

/** @fastify/swagger's `transform`: a route's schemas as documented. */
export function documentRoute({ schema, url }: { schema: unknown; url: string }) {
  if (!isSchema(schema)) return { schema: schema as never, url };
  const out: Schema = { ...schema };
  for (const part of INPUT_PARTS) if (part in schema) out[part] = withDefaultsOptional(schema[part]);
  out.response = describeResponses(schema.response ?? {}, schema, url);
  return { schema: out as never, url };
}
