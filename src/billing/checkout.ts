// Credit purchases: a checkout row per attempt, a provider that takes the payment (Stripe, or the
// built-in test mode that takes none), and completion that credits each checkout exactly once.
import type Stripe from 'stripe';
import type { CheckoutMode } from '../config.js';
import { AppError, invalid } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import type { Db } from '../store/db.js';
import type { CheckoutRow } from '../store/schema.js';
import type { Ledger } from './ledger.js';
import { type CreditPackage, findPackage, priceCents } from './packages.js';

/** A checkout as stored: its package, price, status and (test mode) confirm token. */
export type Checkout = CheckoutRow;

export interface CheckoutProvider {
  readonly name: 'stripe' | 'test';
  /** Starts a payment and answers the URL the customer opens, plus the provider's own reference. */
  start(input: { checkoutId: string; accountId: string; email: string; pkg: CreditPackage }): Promise<{
    url: string;
    providerRef: string | null;
  }>;
}

export class TestCheckoutProvider implements CheckoutProvider {
  readonly name = 'test' as const;
  constructor(private readonly publicUrl: string) {}
  async start(input: { checkoutId: string }) {
    return { url: `${this.publicUrl}/v1/credits/checkout/${input.checkoutId}`, providerRef: null };
  }
}

export class StripeCheckoutProvider implements CheckoutProvider {
  readonly name = 'stripe' as const;
  constructor(
    private readonly stripe: Stripe,
    private readonly publicUrl: string,
  ) {}

  async start(input: { checkoutId: string; accountId: string; email: string; pkg: CreditPackage }) {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        customer_email: input.email,
        client_reference_id: input.accountId,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'usd',
              unit_amount: priceCents(input.pkg),
              product_data: { name: `Unfurl ${input.pkg.credits} credits` },
            },
          },
        ],
        metadata: { checkoutId: input.checkoutId, packageId: input.pkg.id, accountId: input.accountId },
        success_url: `${this.publicUrl}/v1/credits/checkout/${input.checkoutId}?result=success`,
        cancel_url: `${this.publicUrl}/v1/credits/checkout/${input.checkoutId}?result=cancelled`,
      },
      { idempotencyKey: input.checkoutId },
    );
    if (!session.url) throw new AppError('upstream_error', 'Stripe returned no checkout URL');
    return { url: session.url, providerRef: session.id };
  }
}

export class Checkouts {
  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
    private readonly mode: CheckoutMode,
    private readonly provider: CheckoutProvider | null,
  ) {}

  /** How purchases are paid here: `stripe`, `test` (no payment is taken) or `off`. */
  get paymentMode(): CheckoutMode {
    return this.mode === 'off' || !this.provider ? 'off' : this.mode;
  }

  async purchase(accountId: string, packageId: string) {
    const pkg = findPackage(packageId);
    if (!pkg) throw invalid('package_id', `unknown package "${packageId}"; see GET /v1/credits/packages`);
    if (this.mode === 'off' || !this.provider) {
      throw new AppError('forbidden', 'Purchases are disabled on this server (UNFURL_CHECKOUT=off)');
    }
    const account = await this.db
      .selectFrom('accounts')
      .select(['email'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const checkoutId = newId('chk');
    let started: { url: string; providerRef: string | null };
    try {
      started = await this.provider.start({ checkoutId, accountId, email: account.email, pkg });
    } catch (err) {
      // The provider's own status (a 401 for our bad key, a 400 for our bad request) and message
      // are about this server, not the caller: answer 502 and keep the cause for the log.
      if (err instanceof AppError && err.code === 'upstream_error') throw err;
      throw Object.assign(
        new AppError('upstream_error', 'The payment provider could not start the checkout; try again later'),
        { cause: err },
      );
    }
    const { url, providerRef } = started;
    await this.db
      .insertInto('checkouts')
      .values({
        id: checkoutId,
        account_id: accountId,
        package_id: pkg.id,
        credits: pkg.credits,
        price_usd: pkg.priceUsd,
        provider: this.provider.name,
        provider_ref: providerRef,
        status: 'open',
        created_at: Date.now(),
        completed_at: null,
        // Only the test page is confirmed by us; a Stripe checkout is completed by its webhook.
        confirm_token: this.provider.name === 'test' ? randomBase62(32) : null,
      })
      .execute();
    return {
      id: checkoutId,
      checkoutUrl: url,
      packageId: pkg.id,
      credits: pkg.credits,
      priceUsd: pkg.priceUsd,
    };
  }

  async get(checkoutId: string) {
    return this.db.selectFrom('checkouts').selectAll().where('id', '=', checkoutId).executeTakeFirst();
  }

  /**
   * Marks a checkout paid and credits it, in one transaction. Safe to call any number of times,
   * concurrently: only the call that moves the row from open to completed credits the account.
   */
  async complete(checkoutId: string): Promise<'credited' | 'already' | 'unknown'> {
    return this.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('checkouts')
        .set({ status: 'completed', completed_at: Date.now() })
        .where('id', '=', checkoutId)
        .where('status', '=', 'open')
        .returning(['account_id', 'credits', 'package_id'])
        .executeTakeFirst();
      if (!row) {
        const exists = await tx
          .selectFrom('checkouts')
          .select('id')
          .where('id', '=', checkoutId)
          .executeTakeFirst();
        return exists ? 'already' : 'unknown';
      }
      const credited = await this.ledger.purchase(
        row.account_id,
        row.credits,
        checkoutId,
        `Purchase of ${row.package_id}`,
        tx,
      );
      return credited ? 'credited' : 'already';
    });
  }

  /** The checkout a Stripe session belongs to, from its metadata or our stored reference. */
  async findByProviderRef(providerRef: string) {
    return this.db
      .selectFrom('checkouts')
      .selectAll()
      .where('provider_ref', '=', providerRef)
      .executeTakeFirst();
  }
}
