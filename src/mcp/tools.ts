// The MCP tools: each is one operation of the HTTP API that declares itself a tool where its route is
// declared (`mcpTool()` in its schema, published in /openapi.json as `x-mcp-tool`). Everything about a
// tool is read from the server's own OpenAPI document — its name and description, its inputs (the
// route's query, path and body schemas), where its job is polled (the poll operation whose
// `x-job-kinds` lists the operation's `x-job-kind`) — so a tool never drifts from its route, and an
// operation the server does not have is not offered.

export interface ToolSpec {
  name: string;
  description: string;
  method: 'GET' | 'POST';
  /** The operation's OpenAPI path, e.g. `/v1/web/crawl/{jobId}`. */
  path: string;
  /** For job operations: where the job is polled until it ends or the wait runs out. */
  poll?: string;
  /** The answer is a page: its Markdown `content` is answered as text, its other fields as JSON beside it. */
  markdown?: boolean;
}

/** What a route declares about its MCP tool (`x-mcp-tool` of its operation). */
export interface McpToolDeclaration {
  name: string;
  description: string;
  /** The answer is a page (see ToolSpec.markdown). */
  markdown?: boolean;
  /**
   * The operation may answer 202 {jobId}: the tool waits for the job (up to `waitSeconds`) at the poll
   * route of the operation's `x-job-kind`, else at GET /v1/jobs/{jobId}.
   */
  wait?: boolean;
}

/** The schema keys that declare a route's MCP tool: spread them into the route's schema. */
export function mcpTool(tool: McpToolDeclaration): { 'x-mcp-tool': McpToolDeclaration } {
  return { 'x-mcp-tool': tool };
}

/** How a waiting tool's description says what it does with a long job. */
export const WAIT_NOTE =
  'Waits for the job up to `waitSeconds` (default 60); if it is still running, answers its jobId: ' +
  'call job_status with it later.';

/** Where a job whose kind has no poll route of its own is polled. */
const GET_JOB_PATH = '/v1/jobs/{jobId}';

/** The most a job tool waits, and its default wait. */
export const MAX_WAIT_SECONDS = 300;
export const DEFAULT_WAIT_SECONDS = 60;

type JsonSchema = Record<string, unknown>;

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  operationId?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  'x-mcp-tool'?: McpToolDeclaration;
  /** A job operation: the kind of job it creates. */
  'x-job-kind'?: string;
  /** A poll operation: the job kinds polled there. */
  'x-job-kinds'?: string[];
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation | undefined> | undefined>;
}

export interface Tool extends ToolSpec {
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required: string[] };
  /** Input names that go into the path (`{jobId}`). */
  pathParams: string[];
}

const METHODS = ['get', 'post'] as const;

/** Every GET and POST operation of the document, in its order. */
function operations(doc: OpenApiDocument) {
  return Object.entries(doc.paths ?? {}).flatMap(([path, ops]) =>
    METHODS.flatMap((method) => {
      const op = ops?.[method];
      return op ? [{ path, method: method.toUpperCase() as 'GET' | 'POST', op }] : [];
    }),
  );
}

/** The tools this server offers: its operations that declare one (`x-mcp-tool`), with their inputs. */
export function toolsFrom(doc: OpenApiDocument): Tool[] {
  const ops = operations(doc);
  const pollOf = new Map<string, string>();
  for (const { path, method, op } of ops) {
    if (method !== 'GET') continue;
    for (const kind of op['x-job-kinds'] ?? []) if (!pollOf.has(kind)) pollOf.set(kind, path);
  }
  const getJob = ops.find((o) => o.op.operationId === 'getJob')?.path ?? GET_JOB_PATH;
  const tools: Tool[] = [];
  for (const { path, method, op } of ops) {
    const declared = op['x-mcp-tool'];
    if (!declared) continue;
    const kind = op['x-job-kind'];
    const spec: ToolSpec = {
      name: declared.name,
      description: declared.description,
      method,
      path,
      ...(declared.wait && { poll: (kind !== undefined && pollOf.get(kind)) || getJob }),
      ...(declared.markdown && { markdown: true }),
    };
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const pathParams: string[] = [];
    for (const p of op.parameters ?? []) {
      if (p.in !== 'query' && p.in !== 'path') continue;
      properties[p.name] = { ...(p.schema ?? {}), ...(p.description && { description: p.description }) };
      // A parameter with a default is optional to a caller, whatever the document says.
      if (p.required && p.schema?.default === undefined) required.push(p.name);
      if (p.in === 'path') pathParams.push(p.name);
    }
    const body = op.requestBody?.content?.['application/json']?.schema;
    if (body && typeof body.properties === 'object') {
      const fields = body.properties as Record<string, JsonSchema>;
      Object.assign(properties, fields);
      const requiredFields = (body.required as string[] | undefined) ?? [];
      required.push(...requiredFields.filter((name) => fields[name]?.default === undefined));
    }
    if (spec.poll) {
      properties.waitSeconds = {
        type: 'integer',
        minimum: 0,
        maximum: MAX_WAIT_SECONDS,
        default: DEFAULT_WAIT_SECONDS,
        description: 'How long to wait for a job before answering its jobId instead',
      };
    }
    tools.push({ ...spec, inputSchema: { type: 'object', properties, required }, pathParams });
  }
  return tools;
}
