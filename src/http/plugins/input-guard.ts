// The last check on every request's input before its handler runs: values that pass a schema yet no
// code downstream is ready for. Query strings are coerced by the schema validator, so "Infinity" or
// "1e309" become a number that is not finite (limits and offsets would reach SQL or bypass caps); NUL
// characters are refused by PostgreSQL and never mean anything in a name, id or URL; and a body
// nested thousands of levels deep exhausts the stack of any recursive walk (a JSON Schema, a
// canonical form). Each is a 400 that names the parameter. The walk is iterative, so the guard
// itself cannot overflow.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';

/** Deepest nesting a request body may have (a caller's JSON Schema is capped far below this). */
export const MAX_INPUT_DEPTH = 64;

export interface InputProblem {
  /** Dotted path of the value (`limit`, `schema.properties.a`, `videoIds.3`); '' for the whole input. */
  path: string;
  reason: string;
}

/** A value met on the walk: its dotted path is written only for a problem (most inputs have none). */
interface Visit {
  value: unknown;
  key: string;
  parent: Visit | null;
  depth: number;
}

const pathOf = (v: Visit | null): string => {
  const keys: string[] = [];
  for (let at = v; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.');
};

/** The first value of `input` no handler should see, or null. Pure. */
export function findInputProblem(input: unknown): InputProblem | null {
  const stack: Visit[] = [{ value: input, key: '', parent: null, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path: pathOf(visit), reason: 'must be a finite number' };
    } else if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path: pathOf(visit), reason: 'must not contain NUL characters' };
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_INPUT_DEPTH) {
        return { path: pathOf(visit), reason: `nests deeper than ${MAX_INPUT_DEPTH} levels` };
      }
      for (const key of Object.keys(value)) {
        if (key.includes('\u0000')) {
          return { path: pathOf(visit), reason: 'must not contain NUL characters in names' };
        }
        stack.push({ value: (value as Record<string, unknown>)[key], key, parent: visit, depth: depth + 1 });
      }
    }
  }
  return null;
}

const PARTS = [
  ['params', 'path parameter'],
  ['query', 'query parameter'],
  ['body', 'body field'],
] as const;

function check(request: FastifyRequest): void {
  for (const [part, word] of PARTS) {
    const input = request[part];
    if (input === undefined || input === null) continue;
    const problem = findInputProblem(input);
    if (!problem) continue;
    // A problem deep inside a body field is reported at that field, with the inner path in the message.
    const name = problem.path.split('.')[0] || (part === 'body' ? 'body' : 'request');
    const inner = problem.path.length > 100 ? `${problem.path.slice(0, 100)}…` : problem.path;
    const where = problem.path && problem.path !== name ? ` (at ${inner})` : '';
    throw new AppError('invalid_request', `Invalid ${word} '${name}'${where}: ${problem.reason}`, name);
  }
}

export function registerInputGuard(app: FastifyInstance): void {
  // Callback style: no promise per request on the hot path.
  app.addHook('preHandler', (request, _reply, done) => {
    try {
      check(request);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}
