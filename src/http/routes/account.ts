// The caller's account and balance, and its credit history.
import { Type } from '@sinclair/typebox';
import { transactionTypes } from '../../billing/ledger.js';
import { principal } from '../plugins/auth.js';
import { errorResponses, Limit, Nullable, Offset, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

export const accountRoutes: RoutePlugin = async (app) => {
  const { accounts, usage } = app.services;

  app.get(
    '/v1/account',
    {
      schema: {
        tags: ['Credits'],
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

  app.get(
    '/v1/account/usage',
    {
      schema: {
        tags: ['Credits'],
        summary: 'Credit transactions, newest first',
        querystring: Type.Object({
          limit: Limit(),
          offset: Offset,
          type: Type.Optional(StringEnum(transactionTypes, { description: 'Only this transaction type' })),
        }),
        response: {
          200: Type.Object({
            transactions: Type.Array(
              Type.Object({
                id: Type.String(),
                amount: Type.Integer(),
                type: Type.String(),
                description: Type.String(),
                job_id: Nullable(Type.String()),
                created_at: Type.Integer(),
              }),
            ),
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
      const page = await usage.list(principal(request).accountId, q);
      return { ...page, limit: q.limit, offset: q.offset };
    },
  );
};
