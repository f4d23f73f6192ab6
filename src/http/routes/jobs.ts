// Reading jobs: the list, one job, and the per-kind poll routes — all from the same records.
import { Type } from '@sinclair/typebox';
import {
  CRAWL_ANSWER_BYTES,
  CRAWL_PAGE_SIZE,
  jobSummary,
  parseResult,
  pollAnswer,
  pollRoutes,
} from '../../jobs/views.js';
import { principal } from '../plugins/auth.js';
import { errorResponses, Limit, Nullable, Offset, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const JobSummary = Type.Object({
  id: Type.String(),
  queue: Type.String(),
  status: Type.String(),
  createdAt: Type.Integer(),
  completedAt: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  attempts: Type.Integer(),
  maxAttempts: Type.Integer(),
  credits: Type.Integer({ description: 'Held while running; the settled cost once ended' }),
});

const JobIdParams = Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 64 }) });

export const jobRoutes: RoutePlugin = async (app) => {
  const { jobs, config } = app.services;

  app.get(
    '/v1/jobs',
    {
      schema: {
        tags: ['Jobs'],
        summary: "The caller's jobs, newest first",
        querystring: Type.Object({
          status: Type.Optional(StringEnum(['queued', 'active', 'completed', 'failed'] as const)),
          limit: Limit(),
          offset: Offset,
        }),
        response: {
          200: Type.Object({
            jobs: Type.Array(JobSummary),
            limit: Type.Integer(),
            offset: Type.Integer(),
            total: Type.Integer(),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { rows, total } = await jobs.service.list(principal(request).accountId, q);
      return { jobs: rows.map(jobSummary), limit: q.limit, offset: q.offset, total };
    },
  );

  app.get(
    '/v1/jobs/:jobId',
    {
      schema: {
        tags: ['Jobs'],
        summary: 'One job: its summary and result (readable 24 h after it ends)',
        params: JobIdParams,
        response: {
          200: Type.Composite([JobSummary, Type.Object({ result: Type.Unknown() })]),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request) => {
      const { jobId } = request.params;
      const job = await jobs.service.getReadable(principal(request).accountId, jobId);
      return { ...jobSummary(job), result: parseResult(job) };
    },
  );

  for (const route of pollRoutes) {
    const schema = {
      tags: ['Jobs'],
      summary: route.summary,
      params: JobIdParams,
      querystring: Type.Object({ skip: Type.Optional(Type.Integer({ minimum: 0, default: 0 })) }),
      response: { ...errorResponses(401, 404, 429) },
    };
    const aliases = route.aliases ?? [];
    const also = aliases.map((p) => `\`${p.replace(':jobId', '{jobId}')}\``).join(', ');
    for (const path of [route.path, ...aliases]) {
      const primary = path === route.path;
      app.get(
        path,
        {
          schema: primary
            ? { ...schema, ...(also && { description: `Also answered at ${also}.` }) }
            : { ...schema, hide: true },
        },
        async (request) => {
          const { jobId } = request.params;
          const { skip } = request.query;
          const job = await jobs.service.getReadable(principal(request).accountId, jobId, route.kinds);
          const base = `${config.publicUrl}${path.replace(':jobId', jobId)}`;
          const page = route.paged
            ? await jobs.items.page(job.id, skip ?? 0, route.pageSize ?? CRAWL_PAGE_SIZE, CRAWL_ANSWER_BYTES)
            : undefined;
          return pollAnswer(job, { skip, page, nextUrl: (n) => `${base}?skip=${n}` });
        },
      );
    }
  }
};
