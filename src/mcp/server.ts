// An MCP server over Unfurl's HTTP API: tools/list offers the tools whose operations the server has
// (mcp/tools.ts), tools/call makes the request — waiting a bounded time for jobs — and answers its JSON,
// never with a secret in it (redactSecrets); a scraped page answers its Markdown as text, the page's
// other fields beside it. An error answer becomes a tool error carrying our error code and message.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiAnswer, CallApi } from './api.js';
import {
  DEFAULT_WAIT_SECONDS,
  MAX_WAIT_SECONDS,
  type OpenApiDocument,
  type Tool,
  toolsFrom,
} from './tools.js';

/** The tools of a server, built once: by name, and the tools/list answer. */
export interface Toolset {
  byName: ReadonlyMap<string, Tool>;
  list: ListToolsResult;
}

export function toolsetFrom(doc: OpenApiDocument): Toolset {
  const tools = toolsFrom(doc);
  return {
    byName: new Map(tools.map((t) => [t.name, t])),
    list: {
      tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    },
  };
}

/**
 * The toolset read from `openApi` on first use and then kept, for every MCP server made with it (one
 * per /mcp request): a failed read is tried again next time rather than remembered.
 */
export function toolsetOnce(openApi: () => Promise<OpenApiDocument>): () => Promise<Toolset> {
  let toolset: Promise<Toolset> | null = null;
  return () => {
    if (!toolset) {
      toolset = openApi().then(toolsetFrom);
      toolset.catch(() => {
        toolset = null;
      });
    }
    return toolset;
  };
}

export interface McpOptions {
  api: CallApi;
  /** The tools (toolsetOnce). */
  tools: () => Promise<Toolset>;
  /** How often a waiting job tool polls (ms). */
  pollMs?: number;
  version?: string;
}

const JOB_ENDED = new Set(['completed', 'failed', 'cancelled']);
const PATH_PARAM = /^[A-Za-z0-9_-]{1,64}$/;

/** Fields that hold a credential: the account's webhook secret, API keys, session tokens, passwords. */
const SECRET_FIELD = /secret|password|^(api_?key|session_?token|access_?token|refresh_?token)$/i;
/** A value that is one of Unfurl's credentials whatever its field: a key, a session, a webhook secret. */
const SECRET_VALUE = /^(uf_|whsec_)[A-Za-z0-9+/=_-]{16,}$/;

/**
 * `value` without a secret in it, at any depth: a model reads every tool answer and may repeat it,
 * so what signs webhooks or opens the account never reaches it. Fields named like a credential are
 * dropped; a credential-shaped string elsewhere (in an array) becomes "[redacted]".
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? '[redacted]' : value;
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === 'object') {
    const kept: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(value)) {
      if (SECRET_FIELD.test(name) || (typeof v === 'string' && SECRET_VALUE.test(v))) continue;
      kept[name] = redactSecrets(v);
    }
    return kept;
  }
  return value;
}

const text = (value: unknown, isError = false): CallToolResult => {
  const safe = redactSecrets(value);
  return {
    content: [{ type: 'text', text: typeof safe === 'string' ? safe : JSON.stringify(safe) }],
    ...(isError && { isError: true }),
  };
};

/**
 * A scraped page as an agent wants it: the Markdown itself as the first text item (not escaped in
 * JSON), then the page's other fields (url, name, description, links …) as JSON.
 */
function pageResult(page: Record<string, unknown> & { content: string }): CallToolResult {
  const { content, ...meta } = page;
  return {
    content: [
      { type: 'text', text: content },
      { type: 'text', text: JSON.stringify(redactSecrets(meta)) },
    ],
  };
}

const isPage = (body: unknown): body is Record<string, unknown> & { content: string } =>
  !!body && typeof body === 'object' && typeof (body as { content?: unknown }).content === 'string';

/** An error answer as a tool error: `{error, message, details}` as the API gave it. */
function errorResult(answer: ApiAnswer): CallToolResult {
  const body = answer.body;
  if (body && typeof body === 'object' && 'error' in body) return text(body, true);
  return text({ error: `http_${answer.status}`, message: String(body ?? '') }, true);
}

const statusOf = (body: unknown) =>
  body && typeof body === 'object' && 'status' in body ? String((body as { status: unknown }).status) : null;

/** Waits `ms`, or less when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

export function createMcpServer(options: McpOptions): Server {
  const { api, tools, pollMs = 1000 } = options;

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

  server.setRequestHandler(ListToolsRequestSchema, async () => (await tools()).list);

  /**
   * Polls a job until it ends or `waitSeconds` pass; answers its poll body with its id. Stops at once
   * when `signal` aborts (the client went away or cancelled the call): each poll costs the caller a
   * rate-limit token, and no one would read the answer.
   */
  async function waitForJob(
    pollPath: string,
    jobId: string,
    waitSeconds: number,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const deadline = Date.now() + waitSeconds * 1000;
    let last: unknown = { status: 'queued' };
    while (Date.now() < deadline) {
      await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())), signal);
      if (signal.aborted) break;
      const answer = await api({ method: 'GET', path: pollPath, signal });
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

  async function call(
    tool: Tool,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
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
        ? await api({ method: 'GET', path, query: input, signal })
        : await api({ method: 'POST', path, body: input, signal });
    if (answer.status >= 400) return errorResult(answer);
    const jobId = (answer.body as { jobId?: unknown } | null)?.jobId;
    if (tool.poll && answer.status === 202 && typeof jobId === 'string' && PATH_PARAM.test(jobId)) {
      const wait =
        typeof rawWait === 'number' && Number.isFinite(rawWait)
          ? Math.min(MAX_WAIT_SECONDS, Math.max(0, rawWait))
          : DEFAULT_WAIT_SECONDS;
      return waitForJob(tool.poll.replace('{jobId}', jobId), jobId, wait, signal);
    }
    if (tool.markdown && isPage(answer.body)) return pageResult(answer.body);
    return text(answer.body);
  }

  // extra.signal aborts when the client cancels the call or the transport closes (the SDK's Protocol).
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = (await tools()).byName.get(request.params.name);
    if (!tool) {
      return text({ error: 'not_found', message: `No tool named '${request.params.name}'` }, true);
    }
    try {
      return await call(tool, { ...(request.params.arguments ?? {}) }, extra.signal);
    } catch (err) {
      return text(
        { error: 'service_unavailable', message: `Unfurl did not answer: ${(err as Error).message}` },
        true,
      );
    }
  });

  return server;
}
