// An in-process app on a fresh database, with helpers to register accounts and call the API.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { type BuildOptions, buildApp } from '../../src/http/app.js';
import { createServices, type Services } from '../../src/services.js';
import { createTestEnv, type TestEnv } from './env.js';
import type { TestRoutes } from './test-kinds.js';

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  env: TestEnv;
  /** Registers a fresh account and answers its e-mail, id and first API key. */
  register(email?: string): Promise<{ email: string; accountId: string; apiKey: string; keyId: string }>;
  /** app.inject with a bearer token when `key` is given. */
  call(key: string | null, opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let counter = 0;
export const uniqueEmail = (tag = 'user') => `${tag}-${process.pid}-${Date.now()}-${++counter}@example.com`;

/** buildApp's options, with test routes that may use any service (they stand in for capabilities). */
export type TestAppOptions = Omit<BuildOptions, 'extraRoutes'> & { extraRoutes?: TestRoutes };

export async function createTestApp(
  overrides: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const env = await createTestEnv(overrides);
  const services = await createServices(env.config);
  const { extraRoutes, ...rest } = options;
  const app = await buildApp(services, {
    logger: false,
    ...rest,
    ...(extraRoutes && { extraRoutes: (a) => extraRoutes(a, services) }),
  });
  return {
    app,
    services,
    env,
    async register(email = uniqueEmail()) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/auth/register',
        payload: { email, password: 'correct horse battery' },
      });
      if (res.statusCode !== 200) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
      return { email, ...res.json() };
    },
    call(key, opts) {
      const headers = { ...(opts.headers ?? {}), ...(key ? { authorization: `Bearer ${key}` } : {}) };
      return app.inject({ ...opts, headers });
    },
    async close() {
      await app.close();
      await services.close();
      await env.dispose();
    },
  };
}

/**
 * A second app on `t`'s database, Redis and queue prefix (the same configuration), as a second API
 * process would be: its own auth cache, in-memory limiters and connections. Close it before `t`.
 */
export function createSiblingApp(t: TestApp): Promise<TestApp> {
  return createTestApp(t.env.env);
}
