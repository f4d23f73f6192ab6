// /docs/reference: the human page for prices, limits and error codes (documentationUrl points at the
// latter). In the order a user meets them: what things cost first, what a failure means last.

import { creditPackages } from '../../billing/packages.js';
import { type PriceRow, priceTable } from '../../billing/prices.js';
import { SCRAPE_PRICE } from '../../sources/web/scrape-options.js';
import type { HttpContext } from '../context.js';
import { errorStatus } from '../error-status.js';
import type { RoutePlugin } from '../typed.js';

const ERROR_TEXT: Record<string, string> = {
  invalid_request: 'A parameter is missing or invalid; the message and `details` name it.',
  unauthorized: 'No API key (bearer token or x-api-key), or one that is unknown, revoked or expired.',
  insufficient_credits: 'The balance does not cover the request. See GET /v1/credits/packages and buy more.',
  forbidden: 'The media is private, age-restricted or members-only, or the action is disabled here.',
  not_found: 'The resource does not exist, belongs to another account, or has expired.',
  transcript_unavailable: 'The video has no captions and mode=native was asked.',
  method_not_allowed: 'The path exists, but not with this method; `Allow` names those it takes.',
  conflict: 'The resource already exists, or an Idempotency-Key was reused with a different body.',
  payload_too_large: 'The request body is over the size limit.',
  unsupported_media_type: 'Bodies must be application/json.',
  rate_limited: 'Too many requests for this key; wait Retry-After seconds, then back off exponentially.',
  internal_error: 'A fault on our side. Nothing was charged.',
  upstream_error: 'The platform failed or blocked us after retries. Nothing was charged.',
  provider_unavailable: 'The AI provider is not configured or not answering.',
  service_unavailable:
    'A dependency (database, Redis) is not reachable, or the server is overloaded (then with Retry-After: nothing was done or charged).',
};

const esc = (s: string) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
const code = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The page, with the price table's rows (`priceTable` of the registered kinds' rows). */
export function referenceHtml(priceRows: readonly PriceRow[]): string {
  const errors = Object.entries(errorStatus)
    .map(
      ([c, s]) =>
        `<tr id="${c}"><td><code>${c}</code></td><td>${s}</td><td>${code(ERROR_TEXT[c] ?? '')}</td></tr>`,
    )
    .join('');
  const prices = priceRows
    .map((r) => `<tr><td>${code(r.operation)}</td><td>${esc(r.price)}</td></tr>`)
    .join('');
  const packages = creditPackages
    .map((p) => `<tr><td><code>${p.id}</code></td><td>${p.credits}</td><td>$${p.priceUsd}</td></tr>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unfurl API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
tr:target{background:#fff4d6}</style></head><body>
<h1>Unfurl API reference</h1><p>Endpoints and schemas: <a href="/docs">interactive docs</a> · <a href="/openapi.json">openapi.json</a> · <a href="/">dashboard</a>.</p>
<p>On this page: <a href="#prices">prices</a> · <a href="#packages">credit packages</a> · <a href="#rate-limits">rate limits</a> · <a href="#errors">errors</a>.</p>
<h2 id="prices">Prices</h2><p>Failed requests cost nothing. Jobs hold their maximum cost when accepted and settle the real cost when they end.</p>
<table><tr><th>operation</th><th>price</th></tr>${prices}</table>
<h2 id="packages">Credit packages</h2><p>Listed by <a href="/v1/credits/packages">GET /v1/credits/packages</a>, bought with POST /v1/credits/purchase.</p>
<table><tr><th>id</th><th>credits</th><th>price</th></tr>${packages}</table>
<h2 id="rate-limits">Rate limits</h2><p>Per API key, a token bucket (default 10 requests/s, bursts of 20). A 429 carries
<code>Retry-After</code>, <code>RateLimit</code> and <code>RateLimit-Policy</code>; a limited request costs nothing.</p>
<h2 id="errors">Errors</h2><p>Every failure answers <code>{error, message, details, documentationUrl}</code>; <code>documentationUrl</code> points at its row here.</p>
<table><tr><th>error</th><th>HTTP</th><th>meaning</th></tr>${errors}</table>
</body></html>`;
}

/** Takes of the context only the registered kinds' rows of the price table. */
type ReferenceDeps = { readonly jobs: Pick<HttpContext['jobs'], 'registry'> };

export const referenceRoutes: RoutePlugin<ReferenceDeps> = async (app, { jobs }) => {
  const html = referenceHtml(priceTable(jobs.registry.prices(), [SCRAPE_PRICE]));
  app.get('/docs/reference', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').send(html),
  );
};
