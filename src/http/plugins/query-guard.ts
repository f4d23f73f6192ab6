// Unknown query parameters are refused like unknown body fields: a misspelt `limt=5` silently ignored
// would answer something other than what the caller asked for. Each API route (under /v1/) accepts
// exactly the parameters its querystring schema names; a route without one accepts none.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../errors.js';

/** The names a route's querystring schema declares (TypeBox object or plain JSON Schema). */
function declaredNames(schema: unknown): Set<string> {
  const props = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return new Set(props ? Object.keys(props) : []);
}

/** The query parameters of `query` that are not in `allowed`, in the order given. Pure. */
export function unknownParameters(query: unknown, allowed: ReadonlySet<string>): string[] {
  if (query === null || typeof query !== 'object') return [];
  return Object.keys(query).filter((name) => !allowed.has(name));
}

export function unknownParametersError(names: string[]): AppError {
  const quoted = names.map((n) => `'${n.length > 100 ? `${n.slice(0, 100)}…` : n}'`);
  const shown =
    quoted.slice(0, 10).join(', ') + (quoted.length > 10 ? ` and ${quoted.length - 10} more` : '');
  return new AppError(
    'invalid_request',
    `Unknown query parameter${names.length === 1 ? '' : 's'} ${shown}`,
    names.length === 1 ? names[0]! : names.slice(0, 10).join(','),
  );
}

export function registerQueryGuard(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith('/v1/')) return;
    const allowed = declaredNames(route.schema?.querystring);
    const guard = async (request: FastifyRequest) => {
      const extra = unknownParameters(request.query, allowed);
      if (extra.length > 0) throw unknownParametersError(extra);
    };
    const own = route.preValidation;
    route.preValidation = own ? [guard, ...(Array.isArray(own) ? own : [own])] : [guard];
  });
}
