// A loopback stand-in for Stripe's API, speaking its real protocol for what Unfurl uses:
// POST /v1/checkout/sessions with a form-encoded body (Stripe's bracket notation for nested
// fields), answered with a JSON checkout.session object. It checks the secret key the way Stripe
// does (401 otherwise), replays the stored answer for a repeated Idempotency-Key, and records every
// request it receives so tests can assert what the real stripe-node client sent.
// It also builds the events Stripe would deliver to the webhook for the sessions it created.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** The form body decoded into nested objects/arrays, as Stripe reads it. */
  params: Record<string, unknown>;
}

export interface StripeSession {
  id: string;
  object: 'checkout.session';
  amount_subtotal: number;
  amount_total: number;
  currency: string | null;
  client_reference_id: string | null;
  customer_email: string | null;
  created: number;
  expires_at: number;
  livemode: false;
  metadata: Record<string, string>;
  mode: string;
  payment_intent: string | null;
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  status: 'open' | 'complete' | 'expired';
  success_url: string | null;
  cancel_url: string | null;
  url: string | null;
  [k: string]: unknown;
}

const rand = (n: number) => randomBytes(n).toString('base64url').replace(/[-_]/g, 'x');

/** Decodes Stripe's bracket notation (`a[b][0][c]=v`) into nested objects and arrays. */
export function decodeStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/[[\]]+/).filter((p) => p !== '');
    let node: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
        return;
      }
      if (container[part] === undefined) container[part] = /^\d+$/.test(parts[i + 1]!) ? [] : {};
      node = container[part] as Record<string, unknown>;
    });
  }
  return root;
}

function stripeError(res: http.ServerResponse, status: number, type: string, message: string, code?: string) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${rand(10)}` });
  res.end(JSON.stringify({ error: { type, message, ...(code && { code }) } }));
}

export class FakeStripe {
  readonly requests: RecordedRequest[] = [];
  readonly sessions = new Map<string, StripeSession>();
  /** When set, the next session creations answer this Stripe error instead (status, type, message). */
  failNext: { status: number; type: string; message: string; times: number } | null = null;
  private readonly idempotent = new Map<string, { body: string; status: number; payload: string }>();

  private constructor(
    private readonly server: http.Server,
    readonly secretKey: string,
  ) {}

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  static async start(secretKey = 'sk_test_x'): Promise<FakeStripe> {
    const server = http.createServer();
    const fake = new FakeStripe(server, secretKey);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => fake.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests to the session-creation endpoint, oldest first. */
  sessionRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions');
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, rawBody: string) {
    const path = (req.url ?? '/').split('?')[0]!;
    const params = decodeStripeForm(rawBody);
    this.requests.push({ method: req.method ?? '', path, headers: req.headers, rawBody, params });

    if (req.headers.authorization !== `Bearer ${this.secretKey}`) {
      const given = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      return stripeError(
        res,
        401,
        'invalid_request_error',
        `Invalid API Key provided: ${given.slice(0, 8)}${'*'.repeat(Math.max(0, given.length - 12))}${given.slice(-4)}`,
      );
    }
    if (req.method !== 'POST' || path !== '/v1/checkout/sessions') {
      return stripeError(
        res,
        404,
        'invalid_request_error',
        `Unrecognized request URL (${req.method}: ${path}).`,
      );
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return stripeError(res, 400, 'invalid_request_error', 'Invalid request: body must be form-encoded');
    }

    const key = req.headers['idempotency-key'];
    if (typeof key === 'string') {
      const seen = this.idempotent.get(key);
      if (seen) {
        if (seen.body !== rawBody) {
          return stripeError(
            res,
            400,
            'idempotency_error',
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          );
        }
        res.writeHead(seen.status, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
        return res.end(seen.payload);
      }
    }

    if (this.failNext && this.failNext.times > 0) {
      this.failNext.times -= 1;
      const { status, type, message } = this.failNext;
      return stripeError(res, status, type, message);
    }

    const lineItems = (params.line_items as Array<Record<string, unknown>> | undefined) ?? [];
    if (params.mode !== 'payment' || lineItems.length === 0) {
      return stripeError(
        res,
        400,
        'invalid_request_error',
        'Missing required param: line_items.',
        'parameter_missing',
      );
    }
    let total = 0;
    let currency: string | null = null;
    for (const item of lineItems) {
      const priceData = item.price_data as Record<string, unknown> | undefined;
      const unit = Number(priceData?.unit_amount);
      const quantity = Number(item.quantity ?? 1);
      if (!Number.isInteger(unit) || unit < 0) {
        return stripeError(
          res,
          400,
          'invalid_request_error',
          'Invalid integer: unit_amount',
          'parameter_invalid_integer',
        );
      }
      total += unit * quantity;
      currency = String(priceData?.currency ?? '');
    }
    const created = Math.floor(Date.now() / 1000);
    const id = `cs_test_${rand(40)}`;
    const session: StripeSession = {
      id,
      object: 'checkout.session',
      amount_subtotal: total,
      amount_total: total,
      currency,
      client_reference_id: (params.client_reference_id as string | undefined) ?? null,
      customer_email: (params.customer_email as string | undefined) ?? null,
      created,
      expires_at: created + 86_400,
      livemode: false,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      mode: String(params.mode),
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: (params.success_url as string | undefined) ?? null,
      cancel_url: (params.cancel_url as string | undefined) ?? null,
      url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
    };
    this.sessions.set(id, session);
    const payload = JSON.stringify(session);
    if (typeof key === 'string') this.idempotent.set(key, { body: rawBody, status: 200, payload });
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${rand(10)}` });
    res.end(payload);
  }

  /**
   * The event Stripe would deliver for one of the sessions it created, with the session's fields
   * changed by `patch` (e.g. `{payment_status: 'paid', status: 'complete'}`). Answers the exact JSON text.
   */
  event(type: string, sessionId: string, patch: Partial<StripeSession> = {}): string {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`FakeStripe: no session ${sessionId}`);
    const object = { ...session, ...patch };
    this.sessions.set(sessionId, object);
    return JSON.stringify({
      id: `evt_${rand(24)}`,
      object: 'event',
      api_version: '2025-01-27.acacia',
      created: Math.floor(Date.now() / 1000),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    });
  }
}
