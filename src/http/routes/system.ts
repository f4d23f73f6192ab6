// Health, readiness and Prometheus metrics (public), and the hooks that count and log every answer.
import { Type } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { httpErrors, metricsRegistry } from '../../metrics.js';
import { metricsText } from '../../metrics-group.js';
import { observeRequest } from '../../metrics-http.js';
import type { HttpContext } from '../context.js';
import type { RoutePlugin } from '../typed.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `error` code of an error answer, read as it is sent (for unfurl_http_errors_total). */
    errorCode?: string;
  }
}

/**
 * Counts every answer of the app: request totals and latency by route template and status, and
 * error answers by their code. Registered on the root instance (app.ts), so it sees every route,
 * 404s of unknown paths included (route "unmatched"). Also gives the "request completed" log line
 * the route template and, once authenticated, the account and key ids (next to reqId, status and
 * responseTime); the request's other lines carry its reqId.
 */
export function registerRequestObservability(app: FastifyInstance) {
  // Callback-style hooks: no promise per hook on every request.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400 && typeof payload === 'string') {
      // Our error bodies start with {"error":"<code>"; no need to parse the whole JSON.
      const m = /^\{"error":"([a-z_]{1,64})"/.exec(payload);
      request.errorCode = m ? m[1] : `http_${reply.statusCode}`;
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // Fastify writes its "request completed" line after these hooks, with reply.log: one child here
    // gives that line the route and, once authenticated, the account (refused requests included).
    const log = reply.log as FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };
    if (log.isLevelEnabled?.('info') !== false) {
      const p = request.principal;
      reply.log = log.child(p ? { route, accountId: p.accountId, keyId: p.keyId } : { route });
    }
    if (reply.statusCode >= 400) {
      httpErrors.labels(request.errorCode ?? `http_${reply.statusCode}`, route).inc();
    }
    done();
  });
}

export const systemRoutes: RoutePlugin<Pick<HttpContext, 'jobs' | 'readiness'>> = async (app, deps) => {
  const { jobs, readiness } = deps;

  app.get(
    '/health',
    {
      config: { public: true, neverShed: true },
      schema: {
        tags: ['System'],
        operationId: 'health',
        summary: 'Liveness: the process answers',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      config: { public: true, neverShed: true },
      schema: {
        tags: ['System'],
        operationId: 'ready',
        summary: 'Readiness: the database (and Redis, when configured) answer',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready'), database: Type.String(), redis: Type.String() }),
          503: Type.Ref('Error'),
        },
      },
    },
    async () => ({ status: 'ready' as const, ...(await readiness()) }),
  );

  app.get(
    '/metrics',
    { config: { public: true, neverShed: true }, schema: { hide: true } },
    async (_request, reply) => {
      try {
        await jobs.service.refreshGauges();
      } catch (err) {
        // The other metrics are still worth answering; the gauges keep their last values.
        app.log.warn({ err }, 'metrics: reading job counts failed');
      }
      reply.type(metricsRegistry.contentType);
      return metricsText();
    },
  );
};
