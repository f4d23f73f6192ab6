// Unknown query parameters are refused like unknown body fields: a misspelt `limt=5` silently ignored
// would answer something other than what the caller asked for. Each API route (under /v1/) accepts
// exactly the parameters its querystring schema names; a route without one accepts none. Likewise a
// route without a body schema takes no body: one with content (anything but nothing or `{}`, which
// clients send for "no fields"; for a GET, whose body is not parsed, any content) is refused rather
// than ignored.
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

/** Whether a parsed body says nothing: absent, empty, or an object without fields. Pure. */
export function isEmptyBody(body: unknown): boolean {
  if (body === undefined || body === null || body === '') return true;
  if (Buffer.isBuffer(body)) return body.length === 0;
  return typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0;
}

/** A body the server did not parse (a GET's) still shows in its framing headers. */
function carriesContent(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

export const unexpectedBodyError = () =>
  new AppError('invalid_request', 'This endpoint takes no request body; send none', 'body');

export function registerQueryGuard(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith('/v1/')) return;
    const allowed = declaredNames(route.schema?.querystring);
    const takesBody = route.schema?.body !== undefined;
    // Callback style: no promise per request on the hot path.
    const guard = (request: FastifyRequest, _reply: unknown, done: (err?: Error) => void) => {
      const extra = unknownParameters(request.query, allowed);
      if (extra.length > 0) return done(unknownParametersError(extra));
      if (!takesBody && (request.body === undefined ? carriesContent(request) : !isEmptyBody(request.body))) {
        return done(unexpectedBodyError());
      }
      done();
    };
    const own = route.preValidation;
    route.preValidation = own ? [guard, ...(Array.isArray(own) ? own : [own])] : [guard];
  });
}
