// Registration, login and the sessions login hands out: logout, the account's live sessions, and
// revoking one. A revoked session fails at once here and within UNFURL_AUTH_CACHE_MS everywhere else.
import { Type } from '@sinclair/typebox';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import { errorResponses, Nullable } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

const Credentials = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: 320,
      description: 'E-mail address (trimmed, lower-cased, without a trailing dot)',
    }),
    password: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'At least 8 characters, not only spaces, not one of the most common passwords',
    }),
  },
  { additionalProperties: false },
);

const SessionSummary = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'First characters of the token, to recognise it' }),
  createdAt: Type.Integer(),
  lastUsedAt: Nullable(Type.Integer()),
  expiresAt: Type.Integer({ description: 'Unix ms' }),
  current: Type.Boolean({ description: 'True for the session making this request' }),
});

const Revoked = Type.Object({ id: Type.String(), revoked: Type.Boolean(), revokedAt: Type.Integer() });

export const authRoutes: RoutePlugin<Pick<HttpContext, 'accounts' | 'authenticator'>> = async (
  app,
  { accounts, authenticator },
) => {
  app.post(
    '/v1/auth/register',
    {
      config: { public: true, attemptLimited: true },
      schema: {
        tags: ['Accounts'],
        operationId: 'register',
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
      const { email, password } = request.body;
      return accounts.register(email, password);
    },
  );

  app.post(
    '/v1/auth/login',
    {
      config: { public: true, attemptLimited: true },
      schema: {
        tags: ['Accounts'],
        operationId: 'login',
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
      const { email, password } = request.body;
      return accounts.login(email, password);
    },
  );

  app.post(
    '/v1/auth/logout',
    {
      schema: {
        tags: ['Accounts'],
        operationId: 'logout',
        summary: 'Log out: ends the session token sent as Bearer, on every server (extension)',
        description:
          'Only for session tokens: with an API key it is a 403 and the key stays valid (revoke keys with DELETE /v1/keys/{key_id}).',
        response: { 200: Revoked, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      const { keyHash, ...answer } = await accounts.logout(principal(request));
      authenticator.forget(keyHash);
      return answer;
    },
  );

  app.post(
    '/v1/auth/password',
    {
      // A wrong current password is a guess: limited per address and per account, as login is.
      config: { attemptLimited: true },
      schema: {
        tags: ['Accounts'],
        operationId: 'changePassword',
        summary: 'Change the password; every other login session ends (extension)',
        description:
          'Needs the current password (a wrong one is a 403). Every other login session ends; the session making the ' +
          'request stays. API keys keep working unless `revokeApiKeys` is true: then every API key of the account ends, ' +
          'the one making the request included. Attempts are limited per client address and per account, as login is (429).',
        body: Type.Object(
          {
            currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
            newPassword: Type.String({
              minLength: 1,
              maxLength: 1024,
              description: 'At least 8 characters, not only spaces, not one of the most common passwords',
            }),
            revokeApiKeys: Type.Optional(
              Type.Boolean({ description: 'Also revoke every API key of the account (default false)' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            changed: Type.Boolean(),
            sessionsEnded: Type.Integer({ description: 'Other login sessions ended' }),
            apiKeysRevoked: Type.Integer({ description: 'API keys revoked (0 unless revokeApiKeys)' }),
          }),
          ...errorResponses(400, 401, 403, 409, 429),
        },
      },
    },
    async (request) => {
      const { currentPassword, newPassword, revokeApiKeys } = request.body;
      const { keyHashes, ...answer } = await accounts.changePassword(
        principal(request),
        currentPassword,
        newPassword,
        { revokeApiKeys },
      );
      for (const hash of keyHashes) authenticator.forget(hash);
      return answer;
    },
  );

  app.get(
    '/v1/auth/sessions',
    {
      schema: {
        tags: ['Accounts'],
        operationId: 'listSessions',
        summary: "List the account's live login sessions (never their tokens) (extension)",
        response: {
          200: Type.Object({ sessions: Type.Array(SessionSummary) }),
          ...errorResponses(401, 429),
        },
      },
    },
    async (request) => {
      const { accountId, kind, keyId } = principal(request);
      return { sessions: await accounts.listSessions(accountId, kind === 'session' ? keyId : null) };
    },
  );

  app.delete(
    '/v1/auth/sessions/:session_id',
    {
      schema: {
        tags: ['Accounts'],
        operationId: 'revokeSession',
        summary: "End one of the account's sessions; it stops working at once (extension)",
        params: Type.Object({
          session_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z_]+$' }),
        }),
        response: { 200: Revoked, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { session_id } = request.params;
      const { keyHash, ...answer } = await accounts.revokeSession(principal(request).accountId, session_id);
      authenticator.forget(keyHash);
      return answer;
    },
  );
};
