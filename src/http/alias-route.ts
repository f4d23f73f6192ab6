// One route under several paths (DESIGN §4: /v1/youtube/* answers exactly like /v1/vidsite/*).
// The first path is documented in OpenAPI; the aliases are hidden there and named in its description.
import type { FastifyInstance, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';

export function aliasedGet(
  app: FastifyInstance,
  paths: readonly [string, ...string[]],
  options: RouteShorthandOptions,
  handler: RouteHandlerMethod,
): void {
  const [primary, ...aliases] = paths;
  const schema = options.schema ?? {};
  const also = aliases.length ? `\n\nAlso answered at ${aliases.map((p) => `\`${p}\``).join(', ')}.` : '';
  app.get(
    primary,
    { ...options, schema: { ...schema, description: `${schema.description ?? ''}${also}`.trim() } },
    handler,
  );
  for (const alias of aliases) app.get(alias, { ...options, schema: { ...schema, hide: true } }, handler);
}
