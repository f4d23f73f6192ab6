// MCP over streamable HTTP at /mcp (stateless: one MCP server per request, JSON answers). The caller
// authenticates as for any route (Bearer or x-api-key); each tool call is then a request to this same
// app with the caller's own credentials, so it is validated, rate-limited and charged exactly as the
// HTTP API would be.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { type CallApi, parseBody, queryString } from '../../mcp/api.js';
import { createMcpServer } from '../../mcp/server.js';
import type { OpenApiDocument } from '../../mcp/tools.js';
import type { RoutePlugin } from '../typed.js';

/** The caller's credentials, passed on to the tool's own request. */
function credentials(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const { authorization } = request.headers;
  const apiKey = request.headers['x-api-key'];
  if (authorization) out.authorization = authorization;
  if (typeof apiKey === 'string') out['x-api-key'] = apiKey;
  return out;
}

export const mcpRoutes: RoutePlugin = async (app) => {
  const openApi = async () => app.swagger() as OpenApiDocument;

  app.post('/mcp', { schema: { hide: true, body: Type.Unknown() } }, async (request, reply) => {
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
    const server = createMcpServer({ api, openApi });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
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
      handler: async () => {
        throw new AppError('method_not_allowed', 'This MCP endpoint is stateless: POST only', null, {
          Allow: 'POST',
        });
      },
    });
  }
};
