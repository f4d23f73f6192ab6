// One route under several paths (/v1/youtube/* answers exactly like /v1/vidsite/*;
// docs/decisions.md, "The API's shape").
// The first path is documented in OpenAPI; the aliases are hidden there and named in its description.
import type { ContextConfigDefault, FastifySchema, RouteGenericInterface } from 'fastify';
import type { TypedApp, TypedHandler, TypedRouteOptions } from './typed.js';

export function aliasedGet<const S extends FastifySchema>(
  app: TypedApp,
  paths: readonly [string, ...string[]],
  options: TypedRouteOptions<S>,
  handler: TypedHandler<S>,
): void {
  const [primary, ...aliases] = paths;
  const { schema } = options;
  const also = aliases.length ? `\n\nAlso answered at ${aliases.map((p) => `\`${p}\``).join(', ')}.` : '';
  app.get<RouteGenericInterface, ContextConfigDefault, S>(
    primary,
    { ...options, schema: { ...schema, description: `${schema.description ?? ''}${also}`.trim() } },
    handler,
  );
  for (const alias of aliases) {
    app.get<RouteGenericInterface, ContextConfigDefault, S>(
      alias,
      { ...options, schema: { ...schema, hide: true } },
      handler,
    );
  }
}
