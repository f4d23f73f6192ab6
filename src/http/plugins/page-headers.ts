// Pages may not be framed by another site (clickjacking): every route outside the API (/docs and its
// files, the dashboard, the OpenAPI document) answers with X-Frame-Options and a CSP frame-ancestors
// unless it set its own, and with nosniff. API routes answer JSON and skip this hook, as do the probes
// (polled often, never a page); the checkout page, the one page under /v1, sets its own stricter
// headers. The route-table test checks every HTML answer.
import type { FastifyInstance, onSendHookHandler, RouteOptions } from 'fastify';

const PROBES = new Set(['/health', '/ready', '/metrics']);
const NO_FRAMING = "frame-ancestors 'none'";

const pageHeaders: onSendHookHandler = (_request, reply, payload, done) => {
  if (!reply.hasHeader('x-frame-options')) reply.header('X-Frame-Options', 'DENY');
  if (!reply.hasHeader('x-content-type-options')) reply.header('X-Content-Type-Options', 'nosniff');
  const csp = reply.getHeader('content-security-policy');
  if (csp === undefined) reply.header('Content-Security-Policy', NO_FRAMING);
  else if (!String(csp).includes('frame-ancestors')) {
    reply.header('Content-Security-Policy', `${String(csp)}; ${NO_FRAMING}`);
  }
  done(null, payload);
};

export function registerPageHeaders(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.url.startsWith('/v1/') || PROBES.has(route.url)) return;
    const own = route.onSend;
    route.onSend = own ? [...(Array.isArray(own) ? own : [own]), pageHeaders] : [pageHeaders];
  });
}
