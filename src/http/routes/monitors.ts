// /v1/monitors: create, list, show, change (pause, resume), delete, check now, the events, and the
// Atom feed (authorised by the monitor's feed token in its URL: feed readers cannot send headers).
import { type TSchema, Type } from '@sinclair/typebox';
import { notFound } from '../../errors.js';
import { mcpTool, WAIT_NOTE } from '../../mcp/tools.js';
import { monitorFeed } from '../../monitors/feed.js';
import { MONITOR_KINDS, MonitorOptions } from '../../monitors/kinds.js';
import type { MonitorRow, MonitorService } from '../../monitors/service.js';
import { StringEnum } from '../../schemas.js';
import type { HttpContext } from '../context.js';
import { JobAccepted, WebhookUrl } from '../job-route.js';
import { principal } from '../plugins/auth.js';
import { sendJobAccepted } from '../plugins/billing.js';
import { errorResponses, Limit, Nullable } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const MonitorId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const Cursor = Type.Optional(Type.String({ maxLength: 200, description: "The previous page's `next`" }));

const Every = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    'How often it is checked: an interval (`15m`, `1h`, `1d`, `PT30M`) or a cron expression (`0 9 * * 1-5`) in `timezone`',
});
const Timezone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA time zone of a cron `every` (default UTC)',
});

const CreateBody = Type.Object(
  {
    kind: StringEnum(MONITOR_KINDS, {
      description:
        'channel, playlist: new videos; page: changes of one page; site: pages added, removed or changed',
    }),
    target: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: "channel: id, @handle or URL; playlist: id or URL; page, site: the page's URL",
    }),
    every: Every,
    timezone: Type.Optional(Timezone),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    webhookUrl: Type.Optional(
      Type.String({
        ...WebhookUrl,
        description: 'Each event is sent here (Standard Webhooks, signed with your webhookSecret)',
      }),
    ),
    ...MonitorOptions,
  },
  { additionalProperties: false },
);

const ChangeBody = Type.Object(
  {
    every: Type.Optional(Every),
    timezone: Type.Optional(Nullable(Timezone)),
    name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    webhookUrl: Type.Optional(Nullable(WebhookUrl)),
    paused: Type.Optional(Type.Boolean({ description: 'true pauses it, false resumes it' })),
    rotateFeedToken: Type.Optional(
      Type.Boolean({ description: 'A new feed URL; the old one stops working at once' }),
    ),
    ...MonitorOptions,
  },
  { additionalProperties: false },
);

const Check = Type.Object({
  jobId: Type.String(),
  status: Type.String(),
  createdAt: Type.Integer(),
  completedAt: Nullable(Type.Integer()),
  cost: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
});

const Monitor = Type.Object({
  id: Type.String(),
  kind: StringEnum(MONITOR_KINDS),
  target: Type.String(),
  name: Nullable(Type.String()),
  every: Type.String(),
  timezone: Nullable(Type.String()),
  webhookUrl: Nullable(Type.String()),
  status: StringEnum(['active', 'paused'] as const),
  pausedReason: Nullable(StringEnum(['user', 'credits'] as const)),
  ...MonitorOptions,
  nextCheckAt: Nullable(Type.Integer({ description: 'Unix ms of the next scheduled check' })),
  lastCheckAt: Nullable(Type.Integer()),
  ticks: Type.Integer({
    description: 'Ticks of its schedule so far (one while a check still runs joins it)',
  }),
  checks: Type.Integer({ description: 'Checks recorded so far' }),
  events: Type.Integer({ description: 'Events recorded so far' }),
  feedUrl: Type.String({
    description: 'Its Atom feed; the URL itself authorises it (rotateFeedToken revokes it)',
  }),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  lastChecks: Type.Optional(Type.Array(Check, { description: 'Its last checks, newest first' })),
});

const Delivery = Type.Object({
  status: StringEnum(['pending', 'delivered', 'failed'] as const),
  attempts: Type.Integer(),
  lastStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  deliveredAt: Nullable(Type.Integer()),
});

const MonitorEvent = Type.Object({
  id: Type.String(),
  type: Type.String({
    description:
      'video.new, page.changed, page.gone, page.back, site.changed, check.failed, monitor.paused, monitor.resumed',
  }),
  createdAt: Type.Integer(),
  jobId: Nullable(Type.String({ description: 'The check that found it' })),
  data: Type.Record(Type.String(), Type.Unknown()),
  delivery: Nullable(Delivery),
});

function monitorAnswer(row: MonitorRow, publicUrl: string) {
  const options = JSON.parse(row.options) as Record<string, unknown>;
  return {
    id: row.id,
    kind: row.kind,
    target: row.target,
    name: row.name,
    every: row.every,
    timezone: row.timezone,
    webhookUrl: row.webhook_url,
    status: row.status,
    pausedReason: row.paused_reason,
    ...options,
    nextCheckAt: row.next_check_at === null ? null : Number(row.next_check_at),
    lastCheckAt: row.last_check_at === null ? null : Number(row.last_check_at),
    ticks: Number(row.ticks),
    checks: Number(row.checks),
    events: Number(row.events),
    feedUrl: `${publicUrl}/v1/monitors/${row.id}/feed.atom?token=${row.feed_token}`,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const ok = (schema: TSchema, ...errors: number[]) => ({ 200: schema, ...errorResponses(...errors) });

export const monitorRoutes: RoutePlugin<Pick<HttpContext, 'monitors' | 'charges' | 'config'>> = async (
  app,
  { monitors, charges, config },
) => {
  const service: Pick<
    MonitorService,
    'create' | 'get' | 'lastChecks' | 'list' | 'events' | 'update' | 'delete' | 'checkNow' | 'byFeedToken'
  > = monitors.service;
  const answer = (row: MonitorRow) => monitorAnswer(row, config.publicUrl);
  const withChecks = async (row: MonitorRow) => ({
    ...answer(row),
    lastChecks: (await service.lastChecks(row)).map((c) => ({
      jobId: c.id,
      status: c.status,
      createdAt: Number(c.created_at),
      completedAt: c.completed_at === null ? null : Number(c.completed_at),
      cost: c.cost === null ? null : Number(c.cost),
      error: c.error,
    })),
  });

  app.post(
    '/v1/monitors',
    {
      schema: {
        tags: ['Monitors'],
        operationId: 'createMonitor',
        ...mcpTool({
          name: 'monitor_create',
          description:
            'Watch a channel or playlist for new videos, or a page or a site for changes, checked on a schedule ' +
            '(`every`: an interval like 1h or a cron expression). The first check sets the baseline; later ' +
            'checks record events (read them with monitor_events). Each check costs what its requests cost.',
        }),
        summary: 'Create a monitor: new videos of a channel or playlist, changes of a page or a site',
        description:
          'The target is checked now (an unknown channel or private playlist is a 404); the first check runs at once and sets the baseline (it reports nothing); later checks report what is new, as events sent to `webhookUrl` and listed at `/v1/monitors/{id}/events`. Each check costs what its requests cost (held before, settled after; a failed check costs nothing).',
        body: CreateBody,
        response: { 201: Monitor, ...errorResponses(400, 401, 402, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      const row = await service.create(principal(request).accountId, request.body);
      return reply.code(201).send(answer(row));
    },
  );

  app.get(
    '/v1/monitors',
    {
      schema: {
        tags: ['Monitors'],
        operationId: 'listMonitors',
        ...mcpTool({
          name: 'monitor_list',
          description:
            "Your monitors, newest first: each one's id, kind, target, schedule, status and counts of checks " +
            'and events. `next` is the cursor of the following page.',
        }),
        summary: "The caller's monitors, newest first",
        querystring: Type.Object({ limit: Limit(100, 20), cursor: Cursor }),
        response: ok(
          Type.Object({ monitors: Type.Array(Monitor), next: Nullable(Type.String()) }),
          400,
          401,
          429,
        ),
      },
    },
    async (request) => {
      const { rows, next } = await service.list(
        principal(request).accountId,
        request.query.limit,
        request.query.cursor,
      );
      return { monitors: rows.map(answer), next };
    },
  );

  app.get(
    '/v1/monitors/:id',
    {
      schema: {
        tags: ['Monitors'],
        operationId: 'getMonitor',
        summary: 'A monitor, with its last checks',
        params: MonitorId,
        response: ok(Monitor, 401, 404, 429),
      },
    },
    async (request) => withChecks(await service.get(principal(request).accountId, request.params.id)),
  );

  app.patch(
    '/v1/monitors/:id',
    {
      schema: {
        tags: ['Monitors'],
        operationId: 'updateMonitor',
        summary: 'Pause, resume or change a monitor',
        params: MonitorId,
        body: ChangeBody,
        response: ok(Monitor, 400, 401, 404, 429),
      },
    },
    async (request) =>
      answer(await service.update(principal(request).accountId, request.params.id, request.body)),
  );

  app.delete(
    '/v1/monitors/:id',
    {
      schema: {
        tags: ['Monitors'],
        operationId: 'deleteMonitor',
        summary: 'End a monitor: no more checks; its events are deleted with it',
        params: MonitorId,
        response: ok(Type.Object({ id: Type.String(), deleted: Type.Boolean() }), 401, 404, 429),
      },
    },
    async (request) => {
      await service.delete(principal(request).accountId, request.params.id);
      return { id: request.params.id, deleted: true };
    },
  );

  app.post(
    '/v1/monitors/:id/check',
    {
      schema: {
        tags: ['Monitors'],
        operationId: 'checkMonitor',
        ...mcpTool({
          name: 'monitor_check',
          description:
            'Check a monitor by its `id` now, outside its schedule (a job; what it finds is read with ' +
            `monitor_events). ${WAIT_NOTE}`,
          wait: true,
        }),
        summary: 'Check a monitor now (a check already running answers instead)',
        params: MonitorId,
        response: { 202: JobAccepted, ...errorResponses(401, 402, 404, 429) },
      },
    },
    async (request, reply) => {
      const { accountId } = principal(request);
      const accepted = await service.checkNow(accountId, request.params.id);
      return sendJobAccepted(reply, accepted.jobId, await charges.ofJob(accountId, accepted));
    },
  );

  app.get(
    '/v1/monitors/:id/events',
    {
      schema: {
        tags: ['Monitors'],
        operationId: 'monitorEvents',
        ...mcpTool({
          name: 'monitor_events',
          description:
            "A monitor's events by its `id`, newest first: video.new, page.changed (with a diff), page.gone, " +
            'page.back, site.changed, check.failed, monitor.paused, monitor.resumed. ' +
            '`next` is the cursor of the following page.',
        }),
        summary: "A monitor's events, newest first, with the state of each one's webhook",
        params: MonitorId,
        querystring: Type.Object({ limit: Limit(100, 20), cursor: Cursor }),
        response: ok(
          Type.Object({ events: Type.Array(MonitorEvent), next: Nullable(Type.String()) }),
          400,
          401,
          404,
          429,
        ),
      },
    },
    async (request) => {
      const { rows, next } = await service.events(
        principal(request).accountId,
        request.params.id,
        request.query.limit,
        request.query.cursor,
      );
      return {
        events: rows.map((e) => ({
          id: e.id,
          type: e.type,
          createdAt: Number(e.created_at),
          jobId: e.job_id,
          data: JSON.parse(e.data) as Record<string, unknown>,
          delivery:
            e.delivery_status === null
              ? null
              : {
                  status: e.delivery_status as 'pending' | 'delivered' | 'failed',
                  attempts: Number(e.delivery_attempts),
                  lastStatus: e.delivery_last_status,
                  lastError: e.delivery_last_error,
                  deliveredAt: e.delivery_delivered_at === null ? null : Number(e.delivery_delivered_at),
                },
        })),
        next,
      };
    },
  );

  app.get(
    '/v1/monitors/:id/feed.atom',
    {
      config: { public: true },
      schema: {
        security: [],
        tags: ['Monitors'],
        operationId: 'monitorFeed',
        summary: "A monitor's events as an Atom feed (for feed readers: the token in the URL authorises it)",
        params: MonitorId,
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: Type.String({ description: 'application/atom+xml' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const monitor = await service.byFeedToken(request.params.id, request.query.token);
      // A wrong token says nothing of whether the monitor exists.
      if (!monitor) throw notFound('Feed');
      const { rows } = await service.events(monitor.account_id, monitor.id, 50);
      const selfUrl = `${config.publicUrl}/v1/monitors/${monitor.id}/feed.atom?token=${request.query.token}`;
      return reply
        .type('application/atom+xml; charset=utf-8')
        .header('cache-control', 'private, max-age=60')
        .send(monitorFeed(monitor, rows, selfUrl));
    },
  );
};
