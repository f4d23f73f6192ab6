// Stripe's webhook: the raw body and its signature go to billing's StripeEvents, which credits a paid
// checkout exactly once; this answers Stripe and logs what was done.
import { Type } from '@sinclair/typebox';
import type { HttpContext } from '../context.js';
import type { RoutePlugin } from '../typed.js';

export const stripeWebhookRoutes: RoutePlugin<Pick<HttpContext, 'stripeEvents'>> = async (
  app,
  { stripeEvents },
) => {
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  // The signed event, checked by hand (stripe-events.ts): declared as anything.
  const schema = { hide: true, body: Type.Unknown() };
  app.post('/v1/credits/webhook', { config: { public: true }, schema }, async (request) => {
    const result = await stripeEvents.handle(request.body, request.headers['stripe-signature']);
    if (result.kind === 'unmatched') {
      request.log.warn({ session: result.sessionId }, 'stripe session with no matching checkout');
    }
    if (result.kind !== 'fulfilled') return { received: true, handled: false };
    const { checkoutId, outcome } = result;
    request.log.info({ checkoutId, outcome }, 'stripe checkout fulfilled');
    return { received: true, handled: true, outcome };
  });
};
