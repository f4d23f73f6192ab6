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

// The dashboard's look (its colours, navy bar and cards; dark with the system's preference).
const STYLE = `
:root{--fg:#1a1a1a;--muted:#4d4d4d;--bg:#f6f7f9;--card:#fff;--line:#d0d4da;--accent:#1d4ed8;--accent-fg:#fff;
--warn-bg:#fff4d6;--warn-line:#a06b00;--navy:#10233f;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ef;--muted:#a9b3c2;--bg:#0b1526;--card:#13203a;--line:#2b3a57;
--accent:#8fb2ff;--accent-fg:#0b1526;--warn-bg:#3a2d06;--warn-line:#d9a21b;--navy:#0a1830}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg);min-height:100vh}
header{background:var(--navy);color:#fff;padding:.6rem 1.2rem;display:flex;align-items:center;gap:1rem;border-bottom:1px solid var(--line)}
header a{color:#fff;font-weight:700;font-size:1.2rem;text-decoration:none}
header span{opacity:.85}
main{max-width:36rem;margin:2.5rem auto;padding:0 1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:1.2rem 1.4rem}
h1{font-size:1.6rem;margin:0 0 .8rem}
a{color:var(--accent)}
code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em}
.banner{background:var(--warn-bg);border:2px solid var(--warn-line);padding:.8rem 1rem;border-radius:6px;margin:0 0 1.2rem}
.price{color:var(--muted)}
button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);cursor:pointer}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
`;

// Nothing loads but the one inline style (allowed by its hash); forms post only here; no framing.
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    `default-src 'none'; img-src 'self'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` even with the page's own form.
  'Referrer-Policy': 'same-origin',
};

function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">
<title>${escapeHtml(title)} · Unfurl</title><style>${STYLE}</style></head><body>
<header><a href="/">Unfurl</a><span>Checkout</span></header>
<main><div class="card">${body}</div></main></body></html>`;
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
<h1>${creditsText(row.credits)}</h1><p class="price">Package <code>${escapeHtml(row.package_id)}</code>, list price $${escapeHtml(row.price_usd)}.</p>
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
