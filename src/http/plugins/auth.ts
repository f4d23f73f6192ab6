// Authentication and per-key rate limiting, added to every route that is not marked public.
// Order on a request: bearer token → principal → token bucket → handler. A limited request
// is refused before any work or billing, so it costs nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Principal } from '../../accounts/accounts.js';
import { AppError } from '../../errors.js';
import type { BucketDecision, RateLimiter } from '../../ratelimit/token-bucket.js';
import type { HttpContext } from '../context.js';

/** Who may call: the token check and the three buckets. */
export type AuthDeps = Pick<
  HttpContext,
  'authenticator' | 'rateLimiter' | 'accountRateLimiter' | 'authRateLimiter'
>;

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Reachable without a bearer token. */
    public?: boolean;
    /**
     * Password attempts (register, login, password change): limited per client IP before anything
     * else and, on an authenticated route, per account too, out of the same per-minute policy.
     */
    attemptLimited?: boolean;
  }
}

export interface RouteEntry {
  method: string;
  url: string;
  public: boolean;
}

/** The principal of an authenticated request; routes behind auth can rely on it. */
export function principal(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized', 'Missing or invalid API key');
  return request.principal;
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * The caller's token: `Authorization: Bearer <key>` (the documented way), or `x-api-key: <key>` as the
 * Supadata SDKs send it. Both with different keys is ambiguous: a 400 rather than a guess.
 */
function callerToken(request: FastifyRequest): string | null {
  const fromBearer = bearer(request);
  const raw = request.headers['x-api-key'];
  const fromHeader = (Array.isArray(raw) ? raw[0] : raw)?.trim() || null;
  if (fromBearer && fromHeader && fromBearer !== fromHeader) {
    throw new AppError(
      'invalid_request',
      'Authorization and x-api-key name different keys: send one of them',
      'x-api-key',
    );
  }
  return fromBearer ?? fromHeader;
}

/** A limiter's RateLimit-Policy header: its policy never changes, so it is written once. */
const policyHeaders = new WeakMap<RateLimiter, string>();

function rateLimitHeaders(reply: FastifyReply, limiter: RateLimiter, d: BucketDecision) {
  let policy = policyHeaders.get(limiter);
  if (policy === undefined) {
    const window = Math.ceil(limiter.policy.burst / limiter.policy.rate);
    policy = `"default";q=${limiter.policy.burst};w=${window}`;
    policyHeaders.set(limiter, policy);
  }
  reply.header('RateLimit-Policy', policy);
  reply.header('RateLimit', `"default";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`);
}

/** Takes a token from `key`'s bucket: at once for buckets in memory, a promise for Redis's. */
function limit(reply: FastifyReply, limiter: RateLimiter, key: string): void | Promise<void> {
  const decision = limiter.take(key);
  if (decision instanceof Promise) return decision.then((d) => decide(reply, limiter, d));
  decide(reply, limiter, decision);
}

/** Answers a bucket's decision: the RateLimit headers, and a 429 when it refused. */
function decide(reply: FastifyReply, limiter: RateLimiter, decision: BucketDecision) {
  rateLimitHeaders(reply, limiter, decision);
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new AppError('rate_limited', `Too many requests; retry after ${seconds} s`, null, {
      retryAfterMs: seconds * 1000,
    });
  }
}

/**
 * Takes a token from the key's bucket and one from its account's (both at once: one round trip when
 * they live in Redis). The tighter of the two answers decides and fills the headers.
 */
function limitCaller(reply: FastifyReply, services: AuthDeps, caller: Principal): void | Promise<void> {
  const byKey = services.rateLimiter.take(caller.keyId);
  const byAccount = services.accountRateLimiter.take(caller.accountId);
  if (byKey instanceof Promise || byAccount instanceof Promise) {
    return Promise.all([byKey, byAccount]).then(([k, a]) => decideTighter(reply, services, k, a));
  }
  decideTighter(reply, services, byKey, byAccount);
}

function decideTighter(
  reply: FastifyReply,
  services: AuthDeps,
  byKey: BucketDecision,
  byAccount: BucketDecision,
) {
  if (!byAccount.allowed || (byKey.allowed && byAccount.remaining < byKey.remaining)) {
    decide(reply, services.accountRateLimiter, byAccount);
  } else {
    decide(reply, services.rateLimiter, byKey);
  }
}

/** Lets a caller in (its principal on the request, its buckets taken) or refuses it: 401, 429. */
function letIn(
  request: FastifyRequest,
  reply: FastifyReply,
  services: AuthDeps,
  token: string | null,
  found: Principal | null,
): void | Promise<void> {
  if (!found) {
    throw new AppError(
      'unauthorized',
      token
        ? 'Invalid, revoked or expired API key'
        : 'Missing API key: send Authorization: Bearer <key> (or x-api-key: <key>)',
    );
  }
  request.principal = found;
  return limitCaller(reply, services, found);
}

/**
 * A callback-style hook around `work`, which answers at once or with a promise: a known key with
 * buckets in memory passes without a promise or a turn of the microtask queue.
 */
function hook(
  work: (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>,
): onRequestHookHandler {
  return (request, reply, done) => {
    let pending: void | Promise<void>;
    try {
      pending = work(request, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  };
}

export function registerAuth(app: FastifyInstance, services: AuthDeps, routeTable: RouteEntry[]) {
  app.decorateRequest('principal', null);

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const isPublic = route.config?.public === true || route.url === '/docs' || route.url.startsWith('/docs/');
    for (const method of methods) {
      if (method !== 'HEAD') routeTable.push({ method, url: route.url, public: isPublic });
    }
    // Our hooks go first, so a route's own onRequest hooks never run for a refused request. A new
    // array: the route's own one is shared with the HEAD twin of a GET route (which comes through here too).
    const own = Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : [];
    const hooks: onRequestHookHandler[] = [];
    if (route.config?.attemptLimited) {
      hooks.push(hook((request, reply) => limit(reply, services.authRateLimiter, request.ip)));
    }
    if (!isPublic) {
      hooks.push(
        hook((request, reply) => {
          const token = callerToken(request);
          const found = token ? services.authenticator.authenticate(token) : null;
          if (found instanceof Promise) return found.then((p) => letIn(request, reply, services, token, p));
          return letIn(request, reply, services, token, found);
        }),
      );
      if (route.config?.attemptLimited) {
        // Addresses are many to an attacker; the account whose password is guessed is one.
        hooks.push(
          hook((request, reply) =>
            limit(reply, services.authRateLimiter, `account:${principal(request).accountId}`),
          ),
        );
      }
    }
    route.onRequest = [...hooks, ...own];
  });
}
