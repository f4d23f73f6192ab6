import { Type } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { AppError } from '../../errors.js';
import { httpErrors, jobsActive, jobsByState, metricsRegistry, queueDepth } from '../../metrics.js';
import { observeRequest } from '../../metrics-http.js';
import type { Db } from '../../store/db.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `error` code of an error answer, read as it is sent (for unfurl_http_errors_total). */
    errorCode?: string;
  }
}

const JOB_STATES = ['queued', 'active', 'completed', 'failed'] as const;

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

/**
 * Job gauges from the jobs table at scrape time. Both queries are covered by the (status, run_at)
 * index: counting by status scans the index only, and queued/active jobs are a small range of it.
 */
async function refreshJobGauges(db: Db, kinds: readonly string[]) {
  const byState = await db
    .selectFrom('jobs')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const live = await db
    .selectFrom('jobs')
    .select(['kind', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['queued', 'active'])
    .groupBy(['kind', 'status'])
    .execute();
  jobsByState.reset();
  for (const state of JOB_STATES) jobsByState.labels(state).set(0);
  for (const row of byState) jobsByState.labels(row.status).set(Number(row.n));
  queueDepth.reset();
  jobsActive.reset();
  for (const kind of kinds) {
    queueDepth.labels(kind).set(0);
    jobsActive.labels(kind).set(0);
  }
  for (const row of live) {
    (row.status === 'queued' ? queueDepth : jobsActive).labels(row.kind).set(Number(row.n));
  }
}

export async function systemRoutes(app: FastifyInstance) {
  const { store, redis } = app.services;

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
    const kinds = app.services.jobs.registry.all().map((k) => k.kind);
    try {
      await refreshJobGauges(store.db, kinds);
    } catch (err) {
      // The other metrics are still worth answering; the gauges keep their last values.
      app.log.warn({ err }, 'metrics: reading job counts failed');
    }
    reply.type(metricsRegistry.contentType);
    return metricsRegistry.metrics();
  });
}
