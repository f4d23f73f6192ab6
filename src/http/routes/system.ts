import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import { AppError } from '../../errors.js';

export async function systemRoutes(app: FastifyInstance) {
  const { store, redis } = app.services;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'unfurl_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    duration
      .labels(request.method, request.routeOptions.url ?? 'unmatched', String(reply.statusCode))
      .observe(reply.elapsedTime / 1000);
  });

  app.get(
    '/health',
    {
      config: { public: true },
      schema: {
        tags: ['System'],
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
      config: { public: true },
      schema: {
        tags: ['System'],
        summary: 'Readiness: the database (and Redis, when configured) answer',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready'), database: Type.String(), redis: Type.String() }),
          503: Type.Ref('Error'),
        },
      },
    },
    async () => {
      try {
        await sql`select 1`.execute(store.db);
      } catch {
        throw new AppError('service_unavailable', 'The database is not reachable');
      }
      if (redis) {
        try {
          await redis.ping();
        } catch {
          throw new AppError('service_unavailable', 'Redis is not reachable');
        }
      }
      return { status: 'ready' as const, database: store.dialect, redis: redis ? 'ok' : 'not configured' };
    },
  );

  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
