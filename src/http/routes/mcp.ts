// MCP over streamable HTTP at /mcp (stateless: one MCP server per request, JSON answers). The caller
// authenticates as for any route (Bearer or x-api-key); each tool call is then a request to this same
// app with the caller's own credentials, so it is validated, rate-limited and charged exactly as the
// HTTP API would be. A JSON-RPC batch is bounded and pays one rate-limit token per message.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../accounts/accounts.js';
import { AppError } from '../../errors.js';
import { type CallApi, parseBody, queryString } from '../../mcp/api.js';
import { createMcpServer, toolsetOnce } from '../../mcp/server.js';
import type { OpenApiDocument } from '../../mcp/tools.js';
import type { HttpContext } from '../context.js';
import { principal } from '../plugins/auth.js';
import type { RoutePlugin } from '../typed.js';

type McpDeps = Pick<HttpContext, 'rateLimiter' | 'accountRateLimiter'>;

/** The most messages one JSON-RPC batch may carry. */
export const MAX_BATCH_MESSAGES = 10;

/** The caller's credentials, passed on to the tool's own request. */
function credentials(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const { authorization } = request.headers;
  const apiKey = request.headers['x-api-key'];
  if (authorization) out.authorization = authorization;
  if (typeof apiKey === 'string') out['x-api-key'] = apiKey;
  return out;
}

/**
 * Takes `count` more tokens from the caller's key and account buckets, as the auth hook takes one for
 * the request: a 429 with Retry-After when either bucket runs out (what was taken stays taken).
 */
async function takeMore(deps: McpDeps, caller: Principal, count: number): Promise<void> {
  const decisions = await Promise.all(
    Array.from({ length: count }, () => [
      deps.rateLimiter.take(caller.keyId),
      deps.accountRateLimiter.take(caller.accountId),
    ]).flat(),
  );
  const refused = decisions.filter((d) => !d.allowed);
  if (refused.length === 0) return;
  const seconds = Math.max(1, Math.ceil(Math.max(...refused.map((d) => d.retryAfterMs)) / 1000));
  throw new AppError('rate_limited', `Too many requests; retry after ${seconds} s`, null, {
    retryAfterMs: seconds * 1000,
  });
}

export const mcpRoutes: RoutePlugin<McpDeps> = async (app, deps) => {
  // Built once per app, on the first call: the OpenAPI document is whole only once the app is ready.
  const tools = toolsetOnce(async () => app.swagger() as OpenApiDocument);

  app.post('/mcp', { schema: { hide: true, body: Type.Unknown() } }, async (request, reply) => {
    // One request, many answers: a batch is bounded, and each message past the first pays its own
    // token before any is handled (tool calls then pay theirs as requests of their own).
    const messages = Array.isArray(request.body) ? request.body.length : 1;
    if (messages > MAX_BATCH_MESSAGES) {
      throw new AppError(
        'invalid_request',
        `A JSON-RPC batch carries at most ${MAX_BATCH_MESSAGES} messages (this one has ${messages})`,
        'body',
      );
    }
    if (messages > 1) await takeMore(deps, principal(request), messages - 1);

    const headers = credentials(request);
    const api: CallApi = async ({ method, path, query, body }) => {
      const res = await app.inject({
        method,
        url: `${path}${queryString(query)}`,
        headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { payload: JSON.stringify(body) }),
      });
      return { status: res.statusCode, body: parseBody(res.body) };
    };
    const server = createMcpServer({ api, tools });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    // The transport writes the answer itself: the headers set so far (X-Request-Id, the RateLimit
    // pair) go onto the raw response first, where its own writeHead keeps them.
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.hijack();
    // Closing the transport aborts the signal of every call still running (a job tool's wait).
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  // Stateless: no server-sent event stream to open and no session to end.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_request, reply) => {
        reply.header('Allow', 'POST');
        throw new AppError('method_not_allowed', 'This MCP endpoint is stateless: POST only');
      },
    });
  }
};
