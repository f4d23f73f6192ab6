// The built-in test-mode checkout: a page that says plainly that no payment is taken, and a
// confirm action that completes the purchase. Reachable without a key: the checkout id is the secret.
// The page is never framed and runs no script; the confirm must carry the token shown only on the
// page (its form, or the page read as JSON from a shell) and is refused when a browser says it was
// posted from another site, so neither a blind cross-site form nor a bare POST can complete it.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Checkout } from '../../billing/checkout.js';
import { creditsText } from '../../billing/prices.js';
import { AppError } from '../../errors.js';
import { ID_LENGTH } from '../../ids.js';
import type { HttpContext } from '../context.js';
import type { RoutePlugin } from '../typed.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#1d1d1f}
.banner{background:#fff4d6;border:1px solid #e0b000;padding:.8rem 1rem;border-radius:6px}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:6px;border:0;background:#1d4ed8;color:#fff;cursor:pointer}
`;

// Nothing loads but the one inline style (allowed by its hash); forms post only here; no framing.
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` even with the page's own form.
  'Referrer-Policy': 'same-origin',
};

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} · Unfurl</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

// 20 characters: ids made before they began with their time.
const Params = Type.Object({ id: Type.String({ pattern: `^chk_[0-9A-Za-z]{20,${ID_LENGTH}}$` }) });
/** Stripe's redirects back add `result=success|cancelled` (billing/checkout.ts). */
const PageQuery = Type.Object({ result: Type.Optional(Type.String({ maxLength: 32 })) });

const BACK_LINK = '<p><a href="/#/credits">Back to your credits in the dashboard</a></p>';

/** The token a confirm carries: its form field or JSON member (the route has no body schema). */
const confirmToken = (body: unknown): string =>
  typeof body === 'object' && body !== null && 'token' in body && typeof body.token === 'string'
    ? body.token
    : '';

const sameText = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const checkoutPageRoutes: RoutePlugin<Pick<HttpContext, 'checkouts' | 'config'>> = async (
  app,
  deps,
) => {
  const { checkouts, config } = deps;
  // A test checkout completes without payment, so it may only be confirmed while the server is in
  // test mode: one opened earlier must not give free credits once the server takes real payments.
  const testMode = config.checkout === 'test';
  const publicOrigin = new URL(config.publicUrl).origin;

  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });
  // The confirm button posts a form whose one field is the token.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  const load = async (id: string) => {
    const row = await checkouts.get(id);
    if (!row) throw new AppError('not_found', 'checkout not found');
    return row;
  };
  const confirmable = (row: Checkout) =>
    row.provider === 'test' && testMode && row.status === 'open' && row.confirm_token !== null;

  /**
   * A browser tells where a form came from: only a post from this server's own pages is accepted.
   * Fetch metadata when the browser sends it; else the Origin header (older browsers).
   */
  const fromOtherSite = (request: FastifyRequest) => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined) return site !== 'same-origin';
    const origin = request.headers.origin;
    if (origin === undefined) return false;
    return origin !== publicOrigin && origin !== `${request.protocol}://${request.host}`;
  };

  app.get(
    '/v1/credits/checkout/:id',
    { config: { public: true }, schema: { hide: true, params: Params, querystring: PageQuery } },
    async (request, reply) => {
      const row = await load(request.params.id);
      // From a shell: the same page as JSON, with the token a confirm must carry.
      if ((request.headers.accept ?? '').includes('application/json')) {
        return {
          id: row.id,
          status: row.status,
          packageId: row.package_id,
          credits: row.credits,
          priceUsd: row.price_usd,
          confirmToken: confirmable(row) ? row.confirm_token : null,
        };
      }
      reply.type('text/html; charset=utf-8');
      if (row.status === 'completed') {
        return page(
          'Purchase complete',
          `<h1>Purchase complete</h1><p>${creditsText(row.credits)} were added to your account.</p>${BACK_LINK}`,
        );
      }
      if (row.provider !== 'test' && request.query.result === 'cancelled') {
        return page(
          'Checkout cancelled',
          `<h1>Checkout cancelled</h1><p>No payment was taken.</p>${BACK_LINK}`,
        );
      }
      if (row.provider !== 'test') {
        return page(
          'Checkout',
          `<h1>Checkout pending</h1><p>Your payment has not been confirmed yet.</p>${BACK_LINK}`,
        );
      }
      if (!confirmable(row)) {
        const why = testMode
          ? 'This test checkout was opened before confirm tokens existed'
          : 'Test checkouts are disabled on this server';
        return page(
          'Checkout not available',
          `<h1>Checkout not available</h1><p>${why}; start a new purchase.</p>${BACK_LINK}`,
        );
      }
      return page(
        'Test checkout',
        `<p class="banner"><strong>Test mode — no payment is taken.</strong> This server runs without a payment
provider; confirming adds the credits for free.</p>
<h1>${creditsText(row.credits)}</h1><p>Package <code>${escapeHtml(row.package_id)}</code>, list price $${escapeHtml(row.price_usd)}.</p>
<form method="post" action="/v1/credits/checkout/${escapeHtml(row.id)}/confirm"><input type="hidden" name="token" value="${escapeHtml(row.confirm_token!)}"><button type="submit">Confirm test purchase</button></form>
<p><a href="/#/credits">Cancel and go back to the dashboard</a></p>`,
      );
    },
  );

  app.post(
    '/v1/credits/checkout/:id/confirm',
    // The body is read by hand (a form field or a JSON member), so it is declared as anything.
    { config: { public: true }, schema: { hide: true, params: Params, body: Type.Unknown() } },
    async (request, reply) => {
      const row = await load(request.params.id);
      if (row.provider !== 'test') throw new AppError('forbidden', 'This checkout is paid through Stripe');
      if (!testMode) throw new AppError('forbidden', 'Test checkouts are disabled on this server');
      if (fromOtherSite(request)) {
        throw new AppError('forbidden', 'A test checkout is confirmed only from its own page');
      }
      const token = confirmToken(request.body);
      if (!row.confirm_token || !sameText(token, row.confirm_token)) {
        throw new AppError(
          'forbidden',
          'Confirm from the checkout page: the request needs its confirm token (GET the checkout URL with Accept: application/json, then POST {"token": …})',
        );
      }
      const outcome = await checkouts.complete(row.id);
      const wantsJson = (request.headers.accept ?? '').includes('application/json');
      if (wantsJson)
        return { id: row.id, status: 'completed', credited: outcome === 'credited', credits: row.credits };
      reply.type('text/html; charset=utf-8');
      return page(
        'Purchase complete',
        `<h1>Purchase complete</h1><p>${creditsText(row.credits)} were added to your account. No payment was taken.</p>${BACK_LINK}`,
      );
    },
  );
};
