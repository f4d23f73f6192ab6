// Answers in the hosted service's published shapes, for callers that identify as one of its SDKs.
// Its Python SDK builds each answer with `Class(**body)`, so any field it does not declare is a
// TypeError there; other callers keep our fuller answers. The shapes below list the fields the
// hosted API publishes, per route; `project` keeps those and drops the rest (docs/decisions.md,
// "Supadata's SDKs").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/**
 * Which Supadata SDK a User-Agent names, or null. Only SDKs whose answers must be projected are
 * listed: @supadata/js (`supadata-js/…`) reads our answers as they are and stays unmatched.
 */
const SDK_AGENTS: readonly { sdk: SupadataSdk; pattern: RegExp }[] = [
  { sdk: 'python', pattern: /^Supadata-Python-SDK\/[\w.+-]{1,40}$/ },
];

export type SupadataSdk = 'python';

export function supadataSdk(userAgent: string | undefined): SupadataSdk | null {
  if (!userAgent || userAgent.length > 100) return null;
  return SDK_AGENTS.find((a) => a.pattern.test(userAgent))?.sdk ?? null;
}

/** `true`: the value as it is; an object: those fields only, each by its shape; `[s]`: a list of `s`. */
export type Shape = true | { readonly [field: string]: Shape } | readonly [Shape] | ((v: unknown) => unknown);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` with only the fields `shape` declares (absent ones stay absent). Pure. */
export function project(value: unknown, shape: Shape): unknown {
  if (shape === true || value === null || value === undefined) return value;
  if (typeof shape === 'function') return shape(value);
  if (Array.isArray(shape)) return Array.isArray(value) ? value.map((v) => project(v, shape[0])) : value;
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(shape as Record<string, Shape>)) {
    if (field in value) out[field] = project(value[field], inner);
  }
  return out;
}

const channelRef = { id: true, name: true } as const;
const transcript = { content: true, lang: true, availableLangs: true } as const;
const video = {
  id: true,
  title: true,
  description: true,
  duration: true,
  channel: channelRef,
  tags: true,
  thumbnail: true,
  uploadDate: true,
  viewCount: true,
  likeCount: true,
  transcriptLanguages: true,
} as const;
const searchResult = {
  type: true,
  id: true,
  title: true,
  description: true,
  thumbnail: true,
  duration: true,
  viewCount: true,
  uploadDate: true,
  channel: { ...channelRef, thumbnail: true },
  subscriberCount: true,
  videoCount: true,
} as const;
const page = {
  url: true,
  content: true,
  name: true,
  description: true,
  ogUrl: true,
  countCharacters: true,
} as const;

const dims = { url: true, width: true, height: true } as const;

/** The published media variants, chosen by `type`. */
function media(value: unknown): unknown {
  if (!isObject(value)) return value;
  switch (value.type) {
    case 'video':
      return project(value, { type: true, duration: true, thumbnailUrl: true });
    case 'image':
      return project(value, { type: true, url: true });
    case 'carousel':
      return { type: 'carousel', items: project(value.items, [media]) };
    default:
      return { type: value.type };
  }
}

/**
 * The Python SDK's own media classes: a carousel's items under `carousel`, each `{type, video}` or
 * `{type, image}` (it has no `items`, so the published carousel would fail it).
 */
function pythonMedia(value: unknown): unknown {
  if (!isObject(value) || value.type !== 'carousel') return media(value);
  const items = Array.isArray(value.items) ? value.items : [];
  return { type: 'carousel', carousel: items.map(pythonCarouselItem) };
}

function pythonCarouselItem(item: unknown): unknown {
  if (!isObject(item)) return item;
  if (item.type === 'image') return { type: 'image', image: project(item, dims) };
  return { type: item.type, video: project(item, { ...dims, duration: true, thumbnail: true }) };
}

/** Our snake_case error codes in the hosted API's kebab-case (`not_found` → `not-found`). */
const kebab = (v: unknown) => (typeof v === 'string' ? v.replaceAll('_', '-') : v);

const ERROR: Shape = { error: kebab, message: true, details: true, documentationUrl: true };

/** Published success shapes by route (the /v1/vidsite/* twins share the /v1/youtube/* entries). */
const SHAPES: Readonly<Record<string, Shape>> = {
  '/v1/youtube/video': video,
  '/v1/youtube/playlist': {
    id: true,
    title: true,
    description: true,
    videoCount: true,
    viewCount: true,
    lastUpdated: true,
    channel: channelRef,
  },
  '/v1/youtube/channel': {
    id: true,
    name: true,
    handle: true,
    description: true,
    subscriberCount: true,
    videoCount: true,
    thumbnail: true,
    banner: true,
  },
  '/v1/youtube/channel/videos': { videoIds: true, shortIds: true, liveIds: true },
  '/v1/youtube/playlist/videos': { videoIds: true, shortIds: true, liveIds: true },
  '/v1/youtube/transcript': transcript,
  '/v1/youtube/transcript/translate': { content: true, lang: true },
  '/v1/youtube/batch/:jobId': {
    status: true,
    results: [{ videoId: true, transcript, video, errorCode: kebab }],
    stats: { total: true, succeeded: true, failed: true },
    completedAt: true,
  },
  '/v1/transcript': { ...transcript, jobId: true },
  '/v1/web/scrape': { ...page, urls: true },
  '/v1/web/map': { urls: true },
  '/v1/web/crawl/:jobId': { status: true, pages: [page], next: true },
  '/v1/metadata': metadata(media),
  '/v1/youtube/search': {
    query: true,
    results: [searchResult],
    totalResults: true,
    nextPageToken: true,
  },
  '/v1/extract/:jobId': { status: true, error: ERROR, data: true, schema: true },
};

/** Where an SDK's own classes differ from the published shapes, its shapes win. */
const SDK_SHAPES: Readonly<Record<SupadataSdk, Readonly<Record<string, Shape>>>> = {
  python: {
    '/v1/metadata': metadata(pythonMedia),
    // Its search answer class has no `next_page_token`.
    '/v1/youtube/search': { query: true, results: [searchResult], totalResults: true },
  },
};

function metadata(mediaShape: Shape): Shape {
  return {
    platform: true,
    type: true,
    id: true,
    url: true,
    title: true,
    description: true,
    author: { username: true, displayName: true, avatarUrl: true, verified: true },
    stats: { views: true, likes: true, comments: true, shares: true },
    media: mediaShape,
    tags: true,
    createdAt: true,
    additionalData: true,
  };
}

/** The shape of a route's success answer, or undefined where answers are sent as they are. */
export function shapeOf(sdk: SupadataSdk, routeUrl: string | undefined): Shape | undefined {
  if (!routeUrl) return undefined;
  const route = routeUrl.replace(/^\/v1\/vidsite\//, '/v1/youtube/');
  return SDK_SHAPES[sdk][route] ?? SHAPES[route];
}

const CRAWL_POLL = '/v1/web/crawl/:jobId';
/** How long a crawl poll answer to the SDK waits while the crawl runs: its pager loops without pause. */
const CRAWL_PAUSE_MS = 500;

/**
 * The crawl paging token the Python SDK sends back as `?next=`: the skip of the next slice. It
 * accepts our own next URL too. Anything else → null (a 400 naming `next`).
 */
export function skipFromNext(next: string): number | null {
  const raw = /^https?:\/\//.test(next) ? (URL.parse(next)?.searchParams.get('skip') ?? '') : next;
  return /^\d{1,9}$/.test(raw) ? Number(raw) : null;
}

/**
 * A crawl poll for the SDK: `next` as a bare token, and while the crawl runs a `next` that repeats
 * this slice's end, so the SDK's pager keeps polling until the crawl is over (it stops at the first
 * answer without `next`).
 */
export function crawlForSdk(body: Record<string, unknown>, skip: number): Record<string, unknown> {
  const pages = Array.isArray(body.pages) ? body.pages : [];
  const next =
    typeof body.next === 'string'
      ? skipFromNext(body.next)
      : body.status === 'scraping'
        ? skip + pages.length
        : null;
  const { next: _, ...rest } = body;
  return next === null ? rest : { ...rest, next: String(next) };
}

function queryOf(request: FastifyRequest): Record<string, unknown> {
  return isObject(request.query) ? request.query : {};
}

export function registerSupadataShape(app: FastifyInstance): void {
  // Before the query guard (a route-level preValidation): the SDK's `?next=` becomes our `?skip=`.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.routeOptions.url !== CRAWL_POLL || !supadataSdk(request.headers['user-agent'])) return done();
    const query = queryOf(request);
    if (query.next === undefined) return done();
    const skip = typeof query.next === 'string' ? skipFromNext(query.next) : null;
    if (skip === null || query.skip !== undefined) {
      return done(
        new AppError('invalid_request', "Invalid query parameter 'next': a crawl answer's token", 'next'),
      );
    }
    const { next: _, ...rest } = query;
    request.query = { ...rest, skip: String(skip) };
    done();
  });
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    // Read here, not once earlier: answers to requests refused before any route hook (401, 404) count too.
    const sdk = supadataSdk(request.headers['user-agent']);
    if (!sdk || typeof payload !== 'string') return payload;
    if (!String(reply.getHeader('content-type') ?? '').includes('application/json')) return payload;
    const ok = reply.statusCode < 300;
    const shape = ok ? shapeOf(sdk, request.routeOptions.url) : ERROR;
    if (!shape) return payload;
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      return payload;
    }
    let out = project(body, shape);
    if (ok && request.routeOptions.url === CRAWL_POLL && isObject(out)) {
      out = crawlForSdk(out, Number(queryOf(request).skip ?? 0) || 0);
      if (out && (out as { status?: unknown }).status === 'scraping') {
        await new Promise((r) => setTimeout(r, CRAWL_PAUSE_MS));
      }
    }
    return JSON.stringify(out);
  });
}
