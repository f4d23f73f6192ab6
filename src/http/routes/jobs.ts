// The caller's jobs: the list, one job with its result, and cancelling one. Each kind's poll route
// lives in the route file of its POST (job-route.ts pollRoute).
import { Type } from '@sinclair/typebox';
import { jobSummary } from '../../jobs/views.js';
import { mcpTool } from '../../mcp/tools.js';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import { errorResponses, Limit, Nullable, Offset, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

/** Every job state; the last three are final. */
const JOB_STATES = ['queued', 'active', 'completed', 'failed', 'cancelled'] as const;

const JobSummary = Type.Object({
  id: Type.String(),
  queue: Type.String(),
  url: Nullable(Type.String({ description: 'The URL the job was started on (null for batches of ids)' })),
  status: StringEnum(JOB_STATES, {
    description:
      'queued → active → completed | failed; cancelled when its owner stopped it (a queued or active job)',
  }),
  createdAt: Type.Integer(),
  completedAt: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  attempts: Type.Integer(),
  maxAttempts: Type.Integer(),
  credits: Type.Integer({ description: 'Held while running; the settled cost once ended' }),
});

const JobIdParams = Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 64 }) });

const CANCEL_DESCRIPTION = `Stops a queued or active job of any kind within a second or two; its status becomes \`cancelled\`.
A queued job costs nothing. A running one keeps and bills the work it had done (a crawl keeps the pages it stored and is
billed 1 + those pages; the other kinds have no partial result and cost nothing); the rest of its hold is released. Its
webhook, if it has one, is sent as \`job.cancelled\`. A job that has ended (completed, failed or cancelled), including
one that ends on its own before its worker sees the request, answers 409 \`conflict\`; another account's job is a 404.`;

export const jobRoutes: RoutePlugin<Pick<HttpContext, 'jobs'>> = async (app, { jobs }) => {
  app.get(
    '/v1/jobs',
    {
      schema: {
        tags: ['Jobs'],
        operationId: 'listJobs',
        summary: "The caller's jobs, newest first",
        description:
          'Pages by `offset` (the spec’s way; a deep offset costs the rows it skips) or by `cursor`: pass ' +
          'the `next` of a page to get the page after it, at the same cost however deep it is. `total` ' +
          'is read from maintained counts.',
        querystring: Type.Object({
          status: Type.Optional(StringEnum(JOB_STATES, { description: 'Only jobs in this state' })),
          limit: Limit(),
          offset: Offset,
          cursor: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description:
                'The `next` of a previous page (same `status`): the page after it; `offset` then counts from it',
            }),
          ),
        }),
        response: {
          200: Type.Object({
            jobs: Type.Array(JobSummary),
            limit: Type.Integer(),
            offset: Type.Integer(),
            total: Type.Integer(),
            next: Nullable(
              Type.String({ description: 'Cursor of the page after this one; null on the last page' }),
            ),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { rows, total, next } = await jobs.service.list(principal(request).accountId, q);
      return { jobs: rows.map(jobSummary), limit: q.limit, offset: q.offset, total, next };
    },
  );

  app.get(
    '/v1/jobs/:jobId',
    {
      schema: {
        tags: ['Jobs'],
        operationId: 'getJob',
        ...mcpTool({
          name: 'job_status',
          description: 'Any job of yours by id: its status, credits and, once ended, its result.',
        }),
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
      return Object.assign(jobSummary(job), { result: jobs.service.resultOf(job) });
    },
  );

  const cancelled = Type.Composite([JobSummary, Type.Object({ result: Type.Unknown() })], {
    description: 'The job stopped: its status is `cancelled`',
  });
  const stopping = Type.Composite([JobSummary, Type.Object({ result: Type.Unknown() })], {
    description:
      'Its worker was told to stop it and has not confirmed yet (status still `active`): poll the job',
  });
  // DELETE on the job is the same operation, for REST clients: documented once, as an alias.
  for (const { method, url, hide } of [
    { method: 'POST', url: '/v1/jobs/:jobId/cancel', hide: false },
    { method: 'DELETE', url: '/v1/jobs/:jobId', hide: true },
  ] as const) {
    app.route({
      method,
      url,
      schema: {
        tags: ['Jobs'],
        operationId: 'cancelJob',
        summary: 'Cancel a queued or running job',
        description: `${CANCEL_DESCRIPTION}\n\nAlso answered at \`DELETE /v1/jobs/{jobId}\`.`,
        hide,
        params: JobIdParams,
        response: { 200: cancelled, 202: stopping, ...errorResponses(401, 404, 409, 429) },
      },
      handler: async (request, reply) => {
        const { job, stopped } = await jobs.service.cancel(
          principal(request).accountId,
          request.params.jobId,
        );
        reply.code(stopped ? 200 : 202);
        return Object.assign(jobSummary(job), { result: jobs.service.resultOf(job) });
      },
    });
  }
};
