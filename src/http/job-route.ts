// The one way a route creates a job: validate, honour Idempotency-Key, check webhookUrl, hold the
// credits and answer 202 {jobId}; and the one way it is polled. Each job kind's route file calls
// both, with its paths, kind and body schema. Both publish what clients derive from /openapi.json: the
// operation's name (`operationId`), the kind a POST creates (`x-job-kind`), the kinds a poll route
// answers and whether its answer is paged (`x-job-kinds`, `x-paged`), and the MCP tool, if any.
import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { JobPoll } from '../jobs/types.js';
import { POLL_ANSWER_BYTES } from '../jobs/views.js';
import { type McpToolDeclaration, mcpTool } from '../mcp/tools.js';
import type { HttpContext } from './context.js';
import { principal } from './plugins/auth.js';
import { sendJobAccepted, sizingJob } from './plugins/billing.js';
import { errorResponses } from './schemas/common.js';
import type { TypedApp } from './typed.js';

/** What creating a job needs: the job service, the webhook URL check, the credits. */
export type JobRouteDeps = Pick<HttpContext, 'jobs' | 'fetcher' | 'charges'>;

export const WebhookUrl = Type.String({
  maxLength: 2048,
  description: 'Called (Standard Webhooks, signed with your webhookSecret) when the job completes or fails',
});

export const JobAccepted = Type.Object(
  {
    jobId: Type.String({ description: "The job to poll (its kind's status route, or GET /v1/jobs/{jobId})" }),
  },
  { examples: [{ jobId: 'job_3kTq8ZxW1mNv5RbYc2Hd' }] },
);

/** A job POST's validated body: the kind's own fields and the optional webhookUrl every job takes. */
export type JobBody<T extends TObject> = Static<T> & { webhookUrl?: string };

export interface JobRouteOptions<T extends TObject> {
  path: string;
  /**
   * The operation's name in /openapi.json (and the SDK's route name), camelCase: every route of the
   * served app has one (scripts/sdk-routes.ts refuses an operation without); test kinds go without.
   */
  operationId?: string;
  /** The MCP tool this operation is; with `wait`, it waits at the poll route of `kind`. */
  mcp?: McpToolDeclaration;
  /** Also answered at these paths (hidden from OpenAPI, named in the description of `path`). */
  aliases?: readonly string[];
  kind: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Body schema without webhookUrl (added here). */
  body: T;
  /** Maps the validated body to the job input (default: the body without webhookUrl). */
  toInput?(body: JobBody<T>, request: FastifyRequest): unknown | Promise<unknown>;
  /** toInput may fetch upstream (short links, media lookups): it then runs under `sizingJob`'s hold. */
  toInputFetches?: boolean;
}

function idempotencyKey(request: FastifyRequest): string | null {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError(
      'invalid_request',
      "Invalid header 'Idempotency-Key': 1–255 visible ASCII characters",
      'Idempotency-Key',
    );
  }
  return key;
}

/** Registers a job kind's POST; `toInput` gets the body typed from the `body` schema. */
export function jobRoute<T extends TObject>(
  app: TypedApp,
  deps: JobRouteDeps,
  opts: JobRouteOptions<T>,
): void {
  // The body is validated against `opts.body` (plus webhookUrl) before `toInput` sees it, so
  // routing it as any object body is sound; only the caller's view needs T.
  registerJobRoute(app, deps, opts);
}

function registerJobRoute(app: TypedApp, deps: JobRouteDeps, opts: JobRouteOptions<TObject>): void {
  const { jobs, fetcher, charges } = deps;
  const body = Type.Composite([opts.body, Type.Object({ webhookUrl: Type.Optional(WebhookUrl) })], {
    additionalProperties: false,
  });
  const schema = {
    tags: opts.tags,
    summary: opts.summary,
    body,
    headers: Type.Object({
      'idempotency-key': Type.Optional(
        Type.String({ description: 'Same key and body within 24 h → the same job; another body → 409' }),
      ),
    }),
    response: { 202: JobAccepted, ...errorResponses(400, 401, 402, 409, 429) },
  };
  const aliases = opts.aliases ?? [];
  const also = aliases.length ? `Also answered at ${aliases.map((p) => `\`${p}\``).join(', ')}.` : '';
  const description = [opts.description, also].filter(Boolean).join('\n\n');
  const handler = async (request: FastifyRequest<{ Body: JobBody<TObject> }>, reply: FastifyReply) => {
    const { accountId } = principal(request);
    const key = idempotencyKey(request);
    const { webhookUrl, ...rest } = request.body;
    if (webhookUrl !== undefined) await fetcher.checkResolvedUrl(webhookUrl, 'webhookUrl');
    const toInput = opts.toInput;
    const input = !toInput
      ? rest
      : opts.toInputFetches
        ? await sizingJob(charges, request, async () => toInput(request.body, request))
        : await toInput(request.body, request);
    const accepted = await jobs.service.submit({
      accountId,
      kind: opts.kind,
      input,
      webhookUrl: webhookUrl ?? null,
      idempotencyKey: key,
    });
    return sendJobAccepted(reply, accepted.jobId, await charges.ofJob(accountId, accepted));
  };
  const published = {
    ...schema,
    ...(description && { description }),
    ...(opts.operationId && { operationId: opts.operationId }),
    'x-job-kind': opts.kind,
    ...(opts.mcp && mcpTool(opts.mcp)),
  };
  app.post(opts.path, { schema: published }, handler);
  for (const alias of aliases) app.post(alias, { schema: { ...schema, hide: true } }, handler);
}

export interface PollRouteOptions {
  /** Path under which jobs of these kinds are polled, with `:jobId`. */
  path: string;
  /**
   * The operation's name in /openapi.json (and the SDK's route name), camelCase: every route of the
   * served app has one (scripts/sdk-routes.ts refuses an operation without); test kinds go without.
   */
  operationId?: string;
  /** The MCP tool this operation is. */
  mcp?: McpToolDeclaration;
  kinds: readonly string[];
  /**
   * The poll these kinds declare (`JobKind.poll`): its schema is the route's 200 (documented, and
   * what the answer is serialized with); with a `pageSize` the answer shows a slice of the job's
   * items, from `?skip=`.
   */
  poll: JobPoll;
  summary: string;
  /** Also answered here (hidden from OpenAPI), e.g. the /v1/youtube/* twin. */
  aliases?: readonly string[];
}

const JobIdParams = Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * Registers the poll route of a family of job kinds: the caller's job in its kind's
 * shape (the kind's `poll`, the shape webhooks send too). A job of another kind is a 404 there.
 * Its operation publishes the kinds (`x-job-kinds`) and, with a `pageSize`, that it is paged (`x-paged`).
 */
export function pollRoute(
  app: TypedApp,
  deps: Pick<HttpContext, 'jobs' | 'config'>,
  route: PollRouteOptions,
): void {
  const { jobs, config } = deps;
  const schema = {
    tags: ['Jobs'],
    summary: route.summary,
    params: JobIdParams,
    querystring: Type.Object({ skip: Type.Optional(Type.Integer({ minimum: 0, default: 0 })) }),
    response: { 200: route.poll.schema, ...errorResponses(401, 404, 429) },
  };
  const { pageSize } = route.poll;
  const aliases = route.aliases ?? [];
  const also = aliases.map((p) => `\`${p.replace(':jobId', '{jobId}')}\``).join(', ');
  for (const path of [route.path, ...aliases]) {
    const primary = path === route.path;
    app.get(
      path,
      {
        schema: primary
          ? {
              ...schema,
              ...(also && { description: `Also answered at ${also}.` }),
              ...(route.operationId && { operationId: route.operationId }),
              'x-job-kinds': route.kinds,
              'x-paged': pageSize !== undefined,
              ...(route.mcp && mcpTool(route.mcp)),
            }
          : { ...schema, hide: true },
      },
      async (request) => {
        const { jobId } = request.params;
        const { skip } = request.query;
        const job = await jobs.service.getReadable(principal(request).accountId, jobId, route.kinds);
        const base = `${config.publicUrl}${path.replace(':jobId', jobId)}`;
        const page =
          pageSize !== undefined
            ? await jobs.items.page(job.id, skip ?? 0, pageSize, POLL_ANSWER_BYTES)
            : undefined;
        return jobs.service.pollAnswer(job, { skip, page, nextUrl: (n) => `${base}?skip=${n}` });
      },
    );
  }
}
