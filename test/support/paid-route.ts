// A paid test route: the billing paths of synchronous routes, with a steerable cost, a delay inside
// the work (to widen the window between the balance check and the debit) and an optional failure
// after the work (a failed request must cost nothing). `paid()` holds, works, then settles;
// `cached=true` answers as a cache hit does (`paidAnswer()`: no work, charged at once).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../src/errors.js';
import { paid, paidAnswer } from '../../src/http/plugins/billing.js';
import type { TestRoutes } from './test-kinds.js';

export const PAID_PATH = '/v1/test/paid';

export const paidTestRoutes: TestRoutes = (app, { charges }) => {
  app.get(
    PAID_PATH,
    {
      schema: {
        querystring: Type.Object({
          cost: Type.Integer({ minimum: 0, maximum: 1000, default: 1 }),
          delayMs: Type.Integer({ minimum: 0, maximum: 5000, default: 0 }),
          fail: Type.Boolean({ default: false }),
          cached: Type.Boolean({ default: false }),
        }),
      },
    },
    async (request, reply) => {
      const q = request.query as { cost: number; delayMs: number; fail: boolean; cached: boolean };
      const label = { operation: 'test', description: 'test paid request' };
      if (q.cached) {
        const hit = async () => ({ ok: true });
        return paidAnswer(charges, request, reply, q.cost, label, hit, hit);
      }
      return paid(charges, request, reply, q.cost, label, async () => {
        if (q.delayMs) await new Promise((r) => setTimeout(r, q.delayMs));
        if (q.fail) throw new AppError('upstream_error', 'the test route failed after its work');
        return { ok: true };
      });
    },
  );
};
