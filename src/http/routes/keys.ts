import { Type } from '@sinclair/typebox';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import { errorResponses, Nullable } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const KeySummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, to recognise it' }),
  createdAt: Type.Integer(),
  lastUsedAt: Nullable(Type.Integer()),
  revokedAt: Nullable(Type.Integer()),
});

export const keyRoutes: RoutePlugin<Pick<HttpContext, 'accounts' | 'authenticator'>> = async (
  app,
  { accounts, authenticator },
) => {
  app.post(
    '/v1/keys/create',
    {
      schema: {
        tags: ['Accounts'],
        operationId: 'createKey',
        summary: 'Create an additional API key (the secret is shown only in this answer)',
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            id: Type.String(),
            name: Type.String(),
            key: Type.String(),
            prefix: Type.String(),
            createdAt: Type.Integer(),
          }),
          ...errorResponses(400, 401, 409, 429),
        },
      },
    },
    async (request) => accounts.createKey(principal(request).accountId, request.body.name),
  );

  app.get(
    '/v1/keys',
    {
      schema: {
        tags: ['Accounts'],
        operationId: 'listKeys',
        summary: "List the caller's API keys (never their secrets)",
        response: { 200: Type.Object({ keys: Type.Array(KeySummary) }), ...errorResponses(401, 429) },
      },
    },
    async (request) => ({ keys: await accounts.listKeys(principal(request).accountId) }),
  );

  app.delete(
    '/v1/keys/:key_id',
    {
      schema: {
        tags: ['Accounts'],
        operationId: 'revokeKey',
        summary: 'Revoke a key; it stops working at once',
        params: Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: {
          200: Type.Object({ id: Type.String(), revoked: Type.Boolean(), revokedAt: Type.Integer() }),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request) => {
      const { key_id } = request.params;
      const { keyHash, ...answer } = await accounts.revokeKey(principal(request).accountId, key_id);
      authenticator.forget(keyHash);
      return answer;
    },
  );
};
