// The built-in test-mode checkout: a page that says plainly that no payment is taken, and a
// confirm action that completes the purchase. Reachable without a key: the checkout id is the secret.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} · Unfurl</title><style>
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1d1d1f}
.banner{background:#fff4d6;border:1px solid #e0b000;padding:.8rem 1rem;border-radius:6px}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:0;background:#1d4ed8;color:#fff;cursor:pointer}
</style></head><body>${body}</body></html>`;
}

const Params = Type.Object({ id: Type.String({ pattern: '^chk_[0-9A-Za-z]{20}$' }) });

export async function checkoutPageRoutes(app: FastifyInstance) {
  const { checkouts, config } = app.services;
  // A test checkout completes without payment, so it may only be confirmed while the server is in
  // test mode: one opened earlier must not give free credits once the server takes real payments.
  const testMode = config.checkout === 'test';
  // The confirm button posts a form; its body carries nothing we need.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, _body, done) =>
    done(null, {}),
  );

  const load = async (id: string) => {
    const row = await checkouts.get(id);
    if (!row) throw new AppError('not_found', 'checkout not found');
    return row;
  };

  app.get(
    '/v1/credits/checkout/:id',
    { config: { public: true }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const row = await load((request.params as { id: string }).id);
      reply.type('text/html; charset=utf-8');
      if (row.status === 'completed') {
        return page(
          'Purchase complete',
          `<h1>Purchase complete</h1><p>${row.credits} credits were added to your account.</p>`,
        );
      }
      if (row.provider !== 'test') {
        return page('Checkout', '<h1>Checkout pending</h1><p>Your payment has not been confirmed yet.</p>');
      }
      if (!testMode) {
        return page(
          'Checkout not available',
          '<h1>Checkout not available</h1><p>Test checkouts are disabled on this server; start a new purchase.</p>',
        );
      }
      return page(
        'Test checkout',
        `<p class="banner"><strong>Test mode — no payment is taken.</strong> This server runs without a payment
provider; confirming adds the credits for free.</p>
<h1>${row.credits} credits</h1><p>Package <code>${escapeHtml(row.package_id)}</code>, list price $${escapeHtml(row.price_usd)}.</p>
<form method="post" action="/v1/credits/checkout/${escapeHtml(row.id)}/confirm"><button type="submit">Confirm test purchase</button></form>`,
      );
    },
  );

  app.post(
    '/v1/credits/checkout/:id/confirm',
    { config: { public: true }, schema: { hide: true, params: Params } },
    async (request, reply) => {
      const row = await load((request.params as { id: string }).id);
      if (row.provider !== 'test') throw new AppError('forbidden', 'This checkout is paid through Stripe');
      if (!testMode) throw new AppError('forbidden', 'Test checkouts are disabled on this server');
      const outcome = await checkouts.complete(row.id);
      const wantsJson = (request.headers.accept ?? '').includes('application/json');
      if (wantsJson)
        return { id: row.id, status: 'completed', credited: outcome === 'credited', credits: row.credits };
      reply.type('text/html; charset=utf-8');
      return page(
        'Purchase complete',
        `<h1>Purchase complete</h1><p>${row.credits} credits were added to your account. No payment was taken.</p>`,
      );
    },
  );
}
