// The MCP tools: each is one operation of the HTTP API. Its input schema is read from the server's
// own OpenAPI document (the route's query, path and body schemas), so a tool never drifts from its
// route; a tool whose operation the server does not have is not offered.

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

const WAIT_NOTE =
  'Waits for the job up to `waitSeconds` (default 60); if it is still running, answers its jobId: ' +
  'call job_status with it later.';

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'transcript',
    description:
      "A video's transcript from its URL (on a platform its `url` input lists, or a media file). " +
      'Native captions answer at once; without them (mode auto or generate) ' +
      `speech recognition runs as a job. ${WAIT_NOTE} text=true gives one plain string.`,
    method: 'GET',
    path: '/v1/transcript',
    poll: '/v1/transcript/{jobId}',
  },
  {
    name: 'metadata',
    description:
      'One shape of metadata for a post or video on any supported platform (or a media file): title, ' +
      'description, author, stats, media, tags, creation time.',
    method: 'GET',
    path: '/v1/metadata',
  },
  {
    name: 'video',
    description:
      "A video-sharing-site video's metadata by id or URL: title, channel, counts, tags, duration.",
    method: 'GET',
    path: '/v1/vidsite/video',
  },
  {
    name: 'channel',
    description: "A video-sharing-site channel's metadata by id, handle or URL.",
    method: 'GET',
    path: '/v1/vidsite/channel',
  },
  {
    name: 'playlist',
    description: "A video-sharing-site playlist's metadata: title, description, counts, channel.",
    method: 'GET',
    path: '/v1/vidsite/playlist',
  },
  {
    name: 'search',
    description: 'Search the video-sharing site for videos, channels or playlists, with filters.',
    method: 'GET',
    path: '/v1/vidsite/search',
  },
  {
    name: 'comments',
    description: "A video-sharing-site video's comments.",
    method: 'GET',
    path: '/v1/vidsite/comments',
  },
  {
    name: 'microblog_post',
    description: "A microblog post's text, author, counts and media by URL.",
    method: 'GET',
    path: '/v1/microblog/post',
  },
  {
    name: 'scrape',
    description:
      'A web page as Markdown (main content): the Markdown is the first text item, then a JSON item ' +
      'with its url, title (name), description and links (urls).',
    method: 'GET',
    path: '/v1/web/scrape',
    markdown: true,
  },
  {
    name: 'map',
    description: "The URLs of a site's pages (sitemaps and links), without fetching their content.",
    method: 'GET',
    path: '/v1/web/map',
  },
  {
    name: 'crawl_start',
    description:
      'Start crawling a site (a job): answers its jobId at once. Read the pages with crawl_status as they come.',
    method: 'POST',
    path: '/v1/web/crawl',
  },
  {
    name: 'crawl_status',
    description:
      "A crawl's status and pages: up to 100 pages from `skip`; `next` names the following slice while more remain.",
    method: 'GET',
    path: '/v1/web/crawl/{jobId}',
  },
  {
    name: 'ocr',
    description: `The text shown on screen in a video, as timed segments (a job). ${WAIT_NOTE}`,
    method: 'POST',
    path: '/v1/video/ocr',
    poll: '/v1/video/ocr/{jobId}',
  },
  {
    name: 'describe',
    description: `Describe a video with AI vision over its key frames (a job). ${WAIT_NOTE}`,
    method: 'POST',
    path: '/v1/video/describe',
    poll: '/v1/video/describe/{jobId}',
  },
  {
    name: 'extract',
    description: `Structured data from a video with AI, following a prompt and/or a JSON Schema (a job). ${WAIT_NOTE}`,
    method: 'POST',
    path: '/v1/extract',
    poll: '/v1/extract/{jobId}',
  },
  {
    name: 'job_status',
    description: 'Any job of yours by id: its status, credits and, once ended, its result.',
    method: 'GET',
    path: '/v1/jobs/{jobId}',
  },
  {
    name: 'monitor_create',
    description:
      'Watch a channel or playlist for new videos, or a page or a site for changes, checked on a schedule ' +
      '(`every`: an interval like 1h or a cron expression). The first check sets the baseline; later ' +
      'checks record events (read them with monitor_events). Each check costs what its requests cost.',
    method: 'POST',
    path: '/v1/monitors',
  },
  {
    name: 'monitor_list',
    description:
      "Your monitors, newest first: each one's id, kind, target, schedule, status and counts of checks " +
      'and events. `next` is the cursor of the following page.',
    method: 'GET',
    path: '/v1/monitors',
  },
  {
    name: 'monitor_events',
    description:
      "A monitor's events by its `id`, newest first: video.new, page.changed (with a diff), page.gone, " +
      'page.back, site.changed, check.failed, monitor.paused, monitor.resumed. ' +
      '`next` is the cursor of the following page.',
    method: 'GET',
    path: '/v1/monitors/{id}/events',
  },
  {
    name: 'monitor_check',
    description:
      'Check a monitor by its `id` now, outside its schedule (a job; what it finds is read with ' +
      `monitor_events). ${WAIT_NOTE}`,
    method: 'POST',
    path: '/v1/monitors/{id}/check',
    poll: '/v1/jobs/{jobId}',
  },
  {
    name: 'balance',
    description: 'Your account: its e-mail and credit balance.',
    method: 'GET',
    path: '/v1/account',
  },
];

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
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, OpenApiOperation | undefined> | undefined>;
}

export interface Tool extends ToolSpec {
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required: string[] };
  /** Input names that go into the path (`{jobId}`). */
  pathParams: string[];
}

/** The tools this server can offer: those whose operation its OpenAPI document has, with their inputs. */
export function toolsFrom(doc: OpenApiDocument): Tool[] {
  const tools: Tool[] = [];
  for (const spec of TOOL_SPECS) {
    const op = doc.paths?.[spec.path]?.[spec.method.toLowerCase()];
    if (!op) continue;
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
