// A platform or AI provider failing is expected weather and is logged at warn, without a stack; only
// our own faults (internal_error) are logged at error.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { closeTestApp } from '../support/teardown.js';

const lines: Array<{ level: number; msg: string; err?: unknown }> = [];
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp(
    {},
    {
      logger: { level: 'info', stream: { write: (l: string) => void lines.push(JSON.parse(l)) } },
      extraRoutes: (app: FastifyInstance) => {
        app.get('/v1/test/fail/:how', async (request) => {
          const how = (request.params as { how: string }).how;
          if (how === 'upstream') throw new AppError('upstream_error', 'The platform answered 503');
          if (how === 'provider')
            throw new AppError('provider_unavailable', 'The AI provider is not answering');
          throw new Error('a bug of ours');
        });
      },
    },
  );
  key = (await t.register()).apiKey;
});
afterAll(async () => closeTestApp(t));

describe('log levels of failed requests', () => {
  it('upstream and provider failures: warn, no stack; our own fault: error with the stack', async () => {
    for (const how of ['upstream', 'provider', 'bug']) {
      await t.call(key, { method: 'GET', url: `/v1/test/fail/${how}` });
    }
    const upstream = lines.find((l) => l.msg === 'The platform answered 503');
    expect(upstream?.level).toBe(40);
    expect(upstream?.err).toBeUndefined();
    expect(lines.find((l) => l.msg === 'The AI provider is not answering')?.level).toBe(40);
    const bug = lines.find((l) => l.msg === 'request failed');
    expect(bug?.level).toBe(50);
    expect(JSON.stringify(bug?.err)).toContain('a bug of ours');
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1);
  });
});
