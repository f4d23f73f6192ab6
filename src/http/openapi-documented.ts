// The documented copy of each route's schemas, as /openapi.json shows them. Parameters that have
// defaults are optional there: the validator fills a default in before it checks `required`, so such a
// parameter may always be left out, yet a schema that lists it as required makes generated clients
// send it on every call. And every answer has a description saying what it means. The routes keep
// their own schemas (and handler types, where the default guarantees a value).

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

/** A route's answers, each with a description: its own, the route's summary for a 200, else the status's. */
function describeResponses(responses: unknown, summary: unknown): unknown {
  if (!isSchema(responses)) return responses;
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
    out[status] = { ...answer, description };
  }
  return out;
}

/** @fastify/swagger's `transform`: a route's schemas as documented. */
export function documentRoute({ schema, url }: { schema: unknown; url: string }) {
  if (!isSchema(schema)) return { schema: schema as never, url };
  const out: Schema = { ...schema };
  for (const part of INPUT_PARTS) if (part in schema) out[part] = withDefaultsOptional(schema[part]);
  out.response = describeResponses(schema.response ?? {}, schema.summary);
  return { schema: out as never, url };
}
