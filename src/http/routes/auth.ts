import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../schemas/common.js';

const Credentials = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: 320,
      description: 'E-mail address (trimmed, lower-cased)',
    }),
    password: Type.String({ minLength: 1, maxLength: 1024, description: 'At least 8 characters' }),
  },
  { additionalProperties: false },
);

export async function authRoutes(app: FastifyInstance) {
  const { accounts } = app.services;

  app.post(
    '/v1/auth/register',
    {
      config: { public: true, ipLimited: true },
      schema: {
        tags: ['Accounts'],
        summary: 'Create an account: answers the first API key and 100 free credits',
        security: [],
        body: Credentials,
        response: {
          200: Type.Object({
            accountId: Type.String(),
            email: Type.String(),
            apiKey: Type.String({ description: 'Shown only here; store it now' }),
            keyId: Type.String(),
            credits: Type.Integer(),
          }),
          ...errorResponses(400, 409, 429),
        },
      },
    },
    async (request) => {
      const { email, password } = request.body as { email: string; password: string };
      return accounts.register(email, password);
    },
  );

  app.post(
    '/v1/auth/login',
    {
      config: { public: true, ipLimited: true },
      schema: {
        tags: ['Accounts'],
        summary: 'Log in: answers a session token usable as Bearer for 24 hours (extension)',
        security: [],
        body: Credentials,
        response: {
          200: Type.Object({
            accountId: Type.String(),
            email: Type.String(),
            token: Type.String({ description: 'uf_sess_… session token' }),
            expiresAt: Type.Integer({ description: 'Unix ms' }),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const { email, password } = request.body as { email: string; password: string };
      return accounts.login(email, password);
    },
  );
}
