// The caller's account and balance, and its credit history.

import { Type } from '@sinclair/typebox';
import { transactionTypes } from '../../billing/ledger.js';
import { MAX_BUCKETS, thisMonth } from '../../billing/usage.js';
import { mcpTool } from '../../mcp/tools.js';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import { errorResponses, Limit, Nullable, Offset, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

export const accountRoutes: RoutePlugin<Pick<HttpContext, 'accounts' | 'usage'>> = async (
  app,
  { accounts, usage },
) => {
  app.get(
    '/v1/account',
    {
      schema: {
        tags: ['Credits'],
        operationId: 'account',
        ...mcpTool({ name: 'balance', description: 'Your account: its e-mail and credit balance.' }),
        summary: 'The account and its credit balance',
        response: {
          200: Type.Object({
            id: Type.String(),
            email: Type.String(),
            credits: Type.Integer({ description: 'Current balance' }),
            createdAt: Type.Integer(),
            webhookSecret: Type.String({ description: 'Signs the webhooks sent to you (Standard Webhooks)' }),
          }),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => accounts.getAccount(principal(request).accountId),
  );

  app.post(
    '/v1/account/webhook-secret/rotate',
    {
      schema: {
        tags: ['Accounts'],
        operationId: 'rotateWebhookSecret',
        summary: 'A new webhook signing secret; the old one stops signing at once (extension)',
        response: {
          200: Type.Object({
            webhookSecret: Type.String({ description: 'Signs every webhook sent from now on' }),
          }),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => accounts.rotateWebhookSecret(principal(request).accountId),
  );

  app.get(
    '/v1/me',
    {
      schema: {
        tags: ['Credits'],
        operationId: 'me',
        summary: 'The account in the hosted service’s shape: plan and credits of this month',
        description:
          '`organizationId` is the account id and `plan` is `self-hosted`; `usedCredits` are the credits ' +
          'charged since the start of this month (UTC) and `maxCredits` the balance plus those, so that ' +
          '`maxCredits − usedCredits` is what is left.',
        response: {
          200: Type.Object({
            organizationId: Type.String(),
            plan: Type.String(),
            maxCredits: Type.Integer(),
            usedCredits: Type.Integer(),
          }),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => {
      const { accountId } = principal(request);
      const monthStart = thisMonth().startMs;
      const [account, used] = await Promise.all([
        accounts.getAccount(accountId),
        usage.spentSince(accountId, monthStart),
      ]);
      return {
        organizationId: accountId,
        plan: 'self-hosted',
        maxCredits: account.credits + used,
        usedCredits: used,
      };
    },
  );

  app.get(
    '/v1/account/usage',
    {
      schema: {
        tags: ['Credits'],
        operationId: 'usage',
        summary: 'Credit transactions, newest first',
        description:
          'Pages by `offset` (the spec’s way; a deep offset costs the rows it skips) or by `cursor`: pass ' +
          'the `next` of a page to get the page after it, at the same cost however deep it is. `total` ' +
          'is kept by the ledger, so it costs nothing to answer.',
        querystring: Type.Object({
          limit: Limit(),
          offset: Offset,
          type: Type.Optional(StringEnum(transactionTypes, { description: 'Only this transaction type' })),
          cursor: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description:
                'The `next` of a previous page (same `type`): the page after it; `offset` then counts from it',
            }),
          ),
        }),
        response: {
          200: Type.Object({
            transactions: Type.Array(
              Type.Object({
                id: Type.String(),
                amount: Type.Integer(),
                type: Type.String(),
                description: Type.String(),
                operation: Type.String({
                  description:
                    'What the credits were for (scrape, crawl, transcript, …); empty for grants, purchases and clawbacks',
                }),
                job_id: Type.Union([Type.String(), Type.Null()], {
                  description:
                    'What the transaction belongs to, despite the name not only jobs: a job (`job_…`), a ' +
                    'synchronous request (`req_…`, its `X-Request-Id`) or a purchase’s checkout (`chk_…`); ' +
                    'null for grants and clawbacks. `ref_kind` says which',
                }),
                ref_kind: Type.Union([StringEnum(['job', 'request', 'checkout'] as const), Type.Null()], {
                  description:
                    'What `job_id` names: `job`, `request` or `checkout`; null when `job_id` is null',
                }),
                created_at: Type.Integer(),
              }),
            ),
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
      const page = await usage.list(principal(request).accountId, q);
      return Object.assign(page, { limit: q.limit, offset: q.offset });
    },
  );

  app.get(
    '/v1/account/usage/summary',
    {
      schema: {
        tags: ['Credits'],
        operationId: 'usageSummary',
        summary: 'Credits spent, bought and granted per hour or day and per operation',
        description:
          'Read from sums the ledger keeps in the same transaction as each entry, so it always equals the ' +
          'transactions of the range and costs the same for any volume. `from` is rounded down and `to` up ' +
          'to whole buckets (UTC hours or days); every bucket of the range is listed, empty ones as zeros. ' +
          `At most ${MAX_BUCKETS} buckets.`,
        querystring: Type.Object({
          from: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 8_640_000_000_000,
              description: 'Unix ms (default: 30 days before `to`)',
            }),
          ),
          to: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 8_640_000_000_000,
              description: 'Unix ms, exclusive (default: now)',
            }),
          ),
          bucket: Type.Optional(
            StringEnum(['hour', 'day'] as const, { description: 'Bucket size (default day)' }),
          ),
        }),
        response: {
          200: Type.Object({
            from: Type.Integer({ description: 'Start of the first bucket (Unix ms)' }),
            to: Type.Integer({ description: 'End of the last bucket (Unix ms, exclusive)' }),
            bucket: Type.String(),
            totals: Flows,
            buckets: Type.Array(
              Type.Intersect([
                Type.Object({ start: Type.Integer({ description: 'Unix ms' }) }),
                Flows,
                Type.Object({
                  spentByOperation: Type.Record(Type.String(), Type.Integer(), {
                    description: 'Credits spent in the bucket per operation',
                  }),
                }),
              ]),
            ),
            operations: Type.Array(
              Type.Object({
                operation: Type.String({ description: 'scrape, crawl, transcript, …' }),
                spent: Type.Integer(),
                held: Type.Integer({ description: 'Held and not yet released within the range' }),
                entries: Type.Integer({ description: 'Ledger entries of the operation in the range' }),
              }),
            ),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const to = q.to ?? Date.now();
      const from = q.from ?? Math.max(0, to - 30 * 24 * 3_600_000);
      return usage.summary(principal(request).accountId, { from, to, bucket: q.bucket ?? 'day' });
    },
  );
};

const Flows = Type.Object({
  spent: Type.Integer({ description: 'Credits charged (settled)' }),
  bought: Type.Integer(),
  granted: Type.Integer(),
  clawedBack: Type.Integer(),
  held: Type.Integer({ description: 'Held and not released within the range (in-flight work)' }),
  net: Type.Integer({ description: 'How the balance moved: granted + bought − spent − clawedBack − held' }),
});
