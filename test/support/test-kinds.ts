// Job kinds for engine tests. They do real work the test can steer through their input: fail a
// number of times, fail for good, sleep, or cost a given amount.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { permanent, retryable } from '../../src/errors.js';
import { jobRoute } from '../../src/http/job-route.js';
import type { JobRegistry } from '../../src/jobs/registry.js';
import type { JobKind } from '../../src/jobs/types.js';
import type { Services } from '../../src/services.js';

export interface EchoInput {
  value: string;
  /** Attempts that fail with a retryable error before one succeeds. */
  failTimes?: number;
  /** Fail at once with a permanent error. */
  permanent?: boolean;
  sleepMs?: number;
  estimate?: number;
  cost?: number;
  /** Extra credits to hold once running (the "learned its real size" case). */
  holdMore?: number;
}

export const EchoBody = Type.Object({
  value: Type.String({ maxLength: 1000 }),
  failTimes: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
  permanent: Type.Optional(Type.Boolean()),
  sleepMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
  estimate: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  cost: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  holdMore: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
});

function sleep(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });
}

/** Kinds made by echoKind: a registry entry in here is a stand-in, not the capability. */
const standIns = new WeakSet<object>();

export function echoKind(
  kind: string,
  extra: Partial<JobKind<EchoInput, unknown>> = {},
): JobKind<EchoInput, unknown> {
  const made: JobKind<EchoInput, unknown> = {
    kind,
    inputSchema: EchoBody,
    estimate: (i) => i.estimate ?? 0,
    cost: (i) => i.cost ?? 0,
    concurrency: 4,
    async run(ctx, input) {
      if (input.sleepMs) await sleep(input.sleepMs, ctx.signal);
      if (input.permanent) throw permanent(`permanent failure for ${input.value}`, 'not_found');
      if (ctx.attempt <= (input.failTimes ?? 0)) throw retryable(`upstream hiccup on attempt ${ctx.attempt}`);
      if (input.holdMore) await ctx.holdMore(input.holdMore);
      // Shapes that the poll views of the real kinds read.
      return {
        value: input.value,
        attempt: ctx.attempt,
        text: [{ text: input.value, startMs: 0, endMs: 1000 }],
        format: 'json',
        content: JSON.stringify([{ text: input.value, startMs: 0, endMs: 1000 }]),
        data: { value: input.value },
        schema: { type: 'object' },
        results: [],
        stats: { total: 0, succeeded: 0, failed: 0 },
      };
    },
    ...extra,
  };
  standIns.add(made);
  return made;
}

/** Kinds played by the echo kind until their capability lands (crawl and the batches are real: not here). */
export const TEST_KINDS = ['echo', 'transcript', 'ocr', 'describe', 'extract'] as const;

/** Echo kinds stand in for the kinds no capability has registered yet (real ones are kept). */
export function registerTestKinds(registry: JobRegistry) {
  for (const k of TEST_KINDS) if (!registry.get(k)) registry.register(echoKind(k));
}

/** The TEST_KINDS that echo plays (or will play) in this registry: those no capability registered. */
export function standInKinds(registry: JobRegistry): string[] {
  return TEST_KINDS.filter((k) => {
    const registered = registry.get(k);
    return !registered || standIns.has(registered);
  });
}

/** Test-only routes: given the whole of the services, as the composition root is. */
export type TestRoutes = (app: FastifyInstance, services: Services) => void | Promise<void>;

/** POST /v1/test/jobs/<kind> creates a job of that kind (test-only routes; stand-in kinds only). */
export const testJobRoutes: TestRoutes = (app, services) => {
  for (const kind of standInKinds(services.jobs.registry)) {
    jobRoute(app, services, {
      path: `/v1/test/jobs/${kind}`,
      kind,
      summary: 'test job',
      tags: ['Test'],
      body: EchoBody,
    });
  }
};
