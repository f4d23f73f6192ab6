// Finding and describing things on the platforms: one metadata shape for any post or video
// (GET /v1/metadata), a playlist's details and YouTube's search. /v1/youtube/*
// answer as /v1/vidsite/* do, where the hosted service's clients look for them.
import { Type } from '@sinclair/typebox';
import { prices } from '../../billing/prices.js';
import { mcpTool } from '../../mcp/tools.js';
import { wirePlatformName } from '../../sources/post-metadata.js';
import { MAX_SEARCH_LIMIT, maxSearchPages } from '../../sources/youtube/search.fetch.js';
import {
  SEARCH_DURATIONS,
  SEARCH_FEATURES,
  SEARCH_SORTS,
  SEARCH_TYPES,
  SEARCH_UPLOAD_DATES,
} from '../../sources/youtube/search-params.js';
import { aliasedGet } from '../alias-route.js';
import type { HttpContext } from '../context.js';
import { paid } from '../plugins/billing.js';
import { errorResponses, Nullable, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

/** Fields vary by platform and kind: every one the service answers is kept. */
const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** The metadata shape; `platforms`: the names its `platform` takes, in the registry's order. */
const postMetadata = (platforms: readonly string[]) =>
  Type.Object(
    {
      platform: Type.String({ description: `${platforms.slice(0, -1).join(', ')} or ${platforms.at(-1)}` }),
      type: StringEnum(['video', 'image', 'carousel', 'post'] as const),
      id: Type.String(),
      url: Type.String(),
      title: Nullable(Type.String()),
      description: Nullable(Type.String()),
      author: Type.Object({
        username: Nullable(Type.String()),
        displayName: Nullable(Type.String()),
        avatarUrl: Nullable(Type.String()),
        verified: Nullable(Type.Boolean()),
      }),
      stats: Type.Object({
        views: Nullable(Type.Integer()),
        likes: Nullable(Type.Integer()),
        comments: Nullable(Type.Integer()),
        shares: Nullable(Type.Integer()),
      }),
      media: Open(
        '{type: video, url, duration, width, height, thumbnailUrl}, {type: image, …}, {type: carousel, items} or {type: post, text}',
      ),
      tags: Type.Array(Type.String()),
      createdAt: Nullable(Type.String({ description: 'ISO 8601 (UTC)' })),
      additionalData: Open('What else the platform tells about the post'),
    },
    { $id: 'PostMetadata', title: 'PostMetadata' },
  );

const PlaylistMetadata = Type.Object(
  {
    id: Type.String(),
    title: Nullable(Type.String()),
    description: Nullable(Type.String()),
    videoCount: Nullable(Type.Integer()),
    viewCount: Nullable(Type.Integer()),
    lastUpdated: Nullable(Type.String()),
    thumbnail: Nullable(Type.String()),
    channel: Nullable(Type.Object({ id: Nullable(Type.String()), name: Nullable(Type.String()) })),
  },
  { $id: 'PlaylistMetadata', title: 'PlaylistMetadata' },
);

const SearchAnswer = Type.Object({
  query: Type.String(),
  results: Type.Array(
    Open('A video {type: video, …}, channel {type: channel, …} or playlist {type: playlist, …}'),
  ),
  totalResults: Nullable(Type.Integer({ description: "The platform's estimate of all matches" })),
  nextPageToken: Type.Optional(
    Nullable(Type.String({ description: 'Without `limit`: pass it back for the next page' })),
  ),
});

export const discoverRoutes: RoutePlugin<Pick<HttpContext, 'platforms' | 'youtube' | 'charges'>> = async (
  app,
  { platforms, youtube, charges },
) => {
  app.addSchema(postMetadata(platforms.list.map((p) => wirePlatformName(p.name))));
  app.addSchema(PlaylistMetadata);

  app.get(
    '/v1/metadata',
    {
      schema: {
        tags: ['Posts'],
        operationId: 'metadata',
        ...mcpTool({
          name: 'metadata',
          description:
            'One shape of metadata for a post or video on any supported platform (or a media file): title, ' +
            'description, author, stats, media, tags, creation time.',
        }),
        summary: 'Metadata of a post or video on any platform, in one shape',
        description: `${platforms.described}. Values a platform does not show are null. 1 credit.`,
        querystring: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 4096, description: 'The post or video URL' }),
        }),
        response: { 200: Type.Ref('PostMetadata'), ...errorResponses(400, 401, 402, 403, 404, 429, 502) },
      },
    },
    async (request, reply) =>
      paid(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'metadata', description: 'Metadata' },
        () => platforms.metadataOf(request.query.url),
      ),
  );

  aliasedGet(
    app,
    ['/v1/vidsite/playlist', '/v1/youtube/playlist'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'playlist',
        ...mcpTool({
          name: 'playlist',
          description: "A video-sharing-site playlist's metadata: title, description, counts, channel.",
        }),
        summary: "A playlist's details: title, description, counts, channel",
        querystring: Type.Object({
          id: Type.String({
            minLength: 1,
            maxLength: 2048,
            description: 'A playlist id or any URL with list=',
          }),
        }),
        response: { 200: Type.Ref('PlaylistMetadata'), ...errorResponses(400, 401, 402, 404, 429, 502) },
      },
    },
    async (request, reply) =>
      paid(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'playlist', description: 'Playlist metadata' },
        () => youtube.playlist(request.query.id),
      ),
  );

  aliasedGet(
    app,
    ['/v1/vidsite/search', '/v1/youtube/search'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'search',
        ...mcpTool({
          name: 'search',
          description: 'Search the video-sharing site for videos, channels or playlists, with filters.',
        }),
        summary: 'Search the video-sharing platform: videos, channels and playlists',
        description:
          'Without `limit`: one page of results and a `nextPageToken` for the next. With `limit` (1–1000): ' +
          'pages are followed until that many results. 1 credit per page of results fetched (the most the ' +
          '`limit` can take is held first).',
        querystring: Type.Object({
          query: Type.Optional(Type.String({ maxLength: 500, description: 'What to search for' })),
          type: Type.Optional(StringEnum(SEARCH_TYPES, { description: 'What to find (default all)' })),
          uploadDate: Type.Optional(StringEnum(SEARCH_UPLOAD_DATES)),
          duration: Type.Optional(StringEnum(SEARCH_DURATIONS)),
          sortBy: Type.Optional(StringEnum(SEARCH_SORTS)),
          features: Type.Optional(
            Type.Array(StringEnum(SEARCH_FEATURES), {
              maxItems: SEARCH_FEATURES.length,
              description: 'Repeat it for more than one',
            }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_LIMIT })),
          nextPageToken: Type.Optional(Type.String({ maxLength: 8192 })),
        }),
        response: { 200: SearchAnswer, ...errorResponses(400, 401, 402, 429, 502) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const { pages: _pages, ...answer } = await paid(
        charges,
        request,
        reply,
        prices.searchPerPage * maxSearchPages(q.limit),
        { operation: 'search', description: 'Search' },
        () => youtube.search({ ...q }),
        (outcome) => prices.searchPerPage * outcome.pages,
      );
      return answer;
    },
  );
};
