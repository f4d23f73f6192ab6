// Stripe's webhook events: the signature is checked on the raw body, then a paid checkout is credited
// exactly once however many times (or how concurrently) Stripe delivers the event. Knows nothing of
// HTTP: the route hands over the body and the signature header and answers what this decides.
import type Stripe from 'stripe';
import { AppError } from '../errors.js';
import type { Checkouts } from './checkout.js';

const FULFIL_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/** What became of one delivered event. */
export type StripeEventOutcome =
  /** Not an event we act on, or a checkout still waiting for a delayed payment. */
  | { kind: 'ignored' }
  /** A paid session that names no checkout of ours. */
  | { kind: 'unmatched'; sessionId: string }
  | { kind: 'fulfilled'; checkoutId: string; outcome: Awaited<ReturnType<Checkouts['complete']>> };

export class StripeEvents {
  constructor(
    private readonly stripe: Stripe | null,
    private readonly webhookSecret: string | null,
    private readonly checkouts: Pick<Checkouts, 'complete' | 'findByProviderRef'>,
  ) {}

  async handle(rawBody: unknown, signature: unknown): Promise<StripeEventOutcome> {
    if (!this.stripe || !this.webhookSecret) {
      throw new AppError('not_found', 'Stripe webhooks are not configured on this server');
    }
    if (typeof signature !== 'string' || !Buffer.isBuffer(rawBody)) {
      throw new AppError('invalid_request', 'Missing Stripe-Signature header or body', 'stripe-signature');
    }
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret);
    } catch (err) {
      throw new AppError(
        'invalid_request',
        `Webhook signature rejected: ${(err as Error).message}`,
        'stripe-signature',
      );
    }
    if (!FULFIL_EVENTS.has(event.type)) return { kind: 'ignored' };
    const session = event.data.object as Stripe.Checkout.Session;
    if (session.payment_status !== 'paid' && session.payment_status !== 'no_payment_required') {
      // checkout.session.completed with a delayed payment method: wait for async_payment_succeeded.
      return { kind: 'ignored' };
    }
    const checkoutId =
      session.metadata?.checkoutId ?? (await this.checkouts.findByProviderRef(session.id))?.id;
    if (!checkoutId) return { kind: 'unmatched', sessionId: session.id };
    return { kind: 'fulfilled', checkoutId, outcome: await this.checkouts.complete(checkoutId) };
  }
}
