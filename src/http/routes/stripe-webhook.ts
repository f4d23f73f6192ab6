// Stripe's webhook: the signature is checked on the raw body, then a paid checkout is credited
// exactly once however many times (or how concurrently) Stripe delivers the event.
import type Stripe from 'stripe';
import { AppError } from '../../errors.js';
import type { RoutePlugin } from '../typed.js';

const FULFIL_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

export const stripeWebhookRoutes: RoutePlugin = async (app) => {
  const { stripe, checkouts, config } = app.services;
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.post('/v1/credits/webhook', { config: { public: true }, schema: { hide: true } }, async (request) => {
    if (!stripe || !config.stripe.webhookSecret) {
      throw new AppError('not_found', 'Stripe webhooks are not configured on this server');
    }
    const signature = request.headers['stripe-signature'];
    if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
      throw new AppError('invalid_request', 'Missing Stripe-Signature header or body', 'stripe-signature');
    }
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(request.body, signature, config.stripe.webhookSecret);
    } catch (err) {
      throw new AppError(
        'invalid_request',
        `Webhook signature rejected: ${(err as Error).message}`,
        'stripe-signature',
      );
    }
    if (!FULFIL_EVENTS.has(event.type)) return { received: true, handled: false };
    const session = event.data.object as Stripe.Checkout.Session;
    if (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') {
      // checkout.session.completed with a delayed payment method: wait for async_payment_succeeded.
      return { received: true, handled: false };
    }
    const checkoutId = session.metadata?.checkoutId ?? (await checkouts.findByProviderRef(session.id))?.id;
    if (!checkoutId) {
      request.log.warn({ session: session.id }, 'stripe session with no matching checkout');
      return { received: true, handled: false };
    }
    const outcome = await checkouts.complete(checkoutId);
    request.log.info({ checkoutId, outcome }, 'stripe checkout fulfilled');
    return { received: true, handled: true, outcome };
  });
};
