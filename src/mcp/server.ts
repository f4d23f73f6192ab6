// An MCP server over Unfurl's HTTP API: tools/list offers the tools whose operations the server has
// (mcp/tools.ts), tools/call makes the request — waiting a bounded time for jobs — and answers its JSON.
// An error answer becomes a tool error carrying our error code and message.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiAnswer, CallApi } from './api.js';
import {
  DEFAULT_WAIT_SECONDS,
  MAX_WAIT_SECONDS,
  type OpenApiDocument,
  type Tool,
  toolsFrom,
} from './tools.js';

export interface McpOptions {
  api: CallApi;
  /** The server's OpenAPI document (read once, when tools are first listed or called). */
  openApi: () => Promise<OpenApiDocument>;
  /** How often a waiting job tool polls (ms). */
  pollMs?: number;
  version?: string;
}

const JOB_ENDED = new Set(['completed', 'failed', 'cancelled']);
const PATH_PARAM = /^[A-Za-z0-9_-]{1,64}$/;

const text = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }],
  ...(isError && { isError: true }),
});

/** An error answer as a tool error: `{error, message, details}` as the API gave it. */
function errorResult(answer: ApiAnswer): CallToolResult {
  const body = answer.body;
  if (body && typeof body === 'object' && 'error' in body) return text(body, true);
  return text({ error: `http_${answer.status}`, message: String(body ?? '') }, true);
}

const statusOf = (body: unknown) =>
  body && typeof body === 'object' && 'status' in body ? String((body as { status: unknown }).status) : null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createMcpServer(options: McpOptions): Server {
  const { api, pollMs = 1000 } = options;
  let tools: Promise<Tool[]> | null = null;
  const loadTools = () => {
    tools ??= options.openApi().then(toolsFrom);
    // A failed read is tried again next time rather than remembered.
    tools.catch(() => {
      tools = null;
    });
    return tools;
  };

  const server = new Server(
    { name: 'unfurl', version: options.version ?? '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Unfurl turns URLs into data: transcripts, video and post metadata, on-screen text, AI descriptions, ' +
        'structured extraction, and web pages as Markdown, link maps and crawls. Every call costs credits ' +
        '(see the balance tool); failed calls cost nothing.',
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await loadTools()).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    })),
  }));

  /** Polls a job until it ends or `waitSeconds` pass; answers its poll body with its id. */
  async function waitForJob(pollPath: string, jobId: string, waitSeconds: number): Promise<CallToolResult> {
    const deadline = Date.now() + waitSeconds * 1000;
    let last: unknown = { status: 'queued' };
    while (Date.now() < deadline) {
      await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
      const answer = await api({ method: 'GET', path: pollPath });
      if (answer.status >= 400) return errorResult(answer);
      last = answer.body;
      const status = statusOf(last);
      if (status && JOB_ENDED.has(status)) {
        return text({ jobId, ...(last as object) }, status !== 'completed');
      }
    }
    return text({
      jobId,
      status: statusOf(last) ?? 'queued',
      message: `Still running after ${waitSeconds} s: call job_status with this jobId later`,
    });
  }

  async function call(tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> {
    const { waitSeconds: rawWait, ...input } = args;
    let path = tool.path;
    for (const name of tool.pathParams) {
      const value = input[name];
      if (typeof value !== 'string' || !PATH_PARAM.test(value)) {
        return text({ error: 'invalid_request', message: `Invalid '${name}': an id`, details: name }, true);
      }
      path = path.replace(`{${name}}`, value);
      delete input[name];
    }
    const answer =
      tool.method === 'GET'
        ? await api({ method: 'GET', path, query: input })
        : await api({ method: 'POST', path, body: input });
    if (answer.status >= 400) return errorResult(answer);
    const jobId = (answer.body as { jobId?: unknown } | null)?.jobId;
    if (tool.poll && answer.status === 202 && typeof jobId === 'string' && PATH_PARAM.test(jobId)) {
      const wait =
        typeof rawWait === 'number' && Number.isFinite(rawWait)
          ? Math.min(MAX_WAIT_SECONDS, Math.max(0, rawWait))
          : DEFAULT_WAIT_SECONDS;
      return waitForJob(tool.poll.replace('{jobId}', jobId), jobId, wait);
    }
    return text(answer.body);
  }

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = (await loadTools()).find((t) => t.name === request.params.name);
    if (!tool) {
      return text({ error: 'not_found', message: `No tool named '${request.params.name}'` }, true);
    }
    try {
      return await call(tool, { ...(request.params.arguments ?? {}) });
    } catch (err) {
      return text(
        { error: 'service_unavailable', message: `Unfurl did not answer: ${(err as Error).message}` },
        true,
      );
    }
  });

  return server;
}
