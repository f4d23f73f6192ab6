// YouTube's browse side: channel metadata, a channel's and a playlist's video
// ids, and a video's comments, 1 credit each. /v1/youtube/* are aliases.
import { Type } from '@sinclair/typebox';
import { prices } from '../../billing/prices.js';
import { invalid } from '../../errors.js';
import { mcpTool } from '../../mcp/tools.js';
import { parseChannelRef, parsePlaylistId, parseVideoId } from '../../sources/youtube/ids.js';
import { aliasedGet } from '../alias-route.js';
import type { HttpContext } from '../context.js';
import { paid } from '../plugins/billing.js';
import { errorResponses, Nullable, StringEnum } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

export const ChannelMetadata = Type.Object(
  {
    id: Type.String({ description: 'The UC… channel id' }),
    name: Nullable(Type.String()),
    handle: Nullable(Type.String({ description: 'With its @; null for channels without one' })),
    description: Nullable(Type.String()),
    url: Nullable(Type.String()),
    subscriberCount: Nullable(Type.Integer({ description: 'As exact as the platform shows it' })),
    videoCount: Nullable(Type.Integer()),
    viewCount: Nullable(Type.Integer()),
    thumbnail: Nullable(Type.String({ description: 'The largest avatar' })),
    banner: Nullable(Type.String({ description: 'The widest banner' })),
  },
  { $id: 'ChannelMetadata', title: 'ChannelMetadata' },
);

export const VideoIdLists = Type.Object(
  {
    videoIds: Type.Array(Type.String(), { description: 'Regular videos' }),
    shortIds: Type.Array(Type.String(), { description: 'Short videos' }),
    liveIds: Type.Array(Type.String(), { description: 'Live videos' }),
  },
  { $id: 'VideoIdLists', title: 'VideoIdLists' },
);

const Comment = Type.Object({
  id: Type.String(),
  text: Type.String(),
  author: Type.Object({
    name: Nullable(Type.String()),
    channelId: Nullable(Type.String()),
    thumbnail: Nullable(Type.String()),
  }),
  likeCount: Nullable(Type.Integer()),
  replyCount: Nullable(Type.Integer()),
  publishedAt: Nullable(Type.String({ description: 'ISO 8601, as approximate as "3 days ago"' })),
  isPinned: Type.Boolean(),
  isHearted: Type.Boolean({ description: 'Hearted by the channel' }),
});

export const Comments = Type.Object(
  { comments: Type.Array(Comment) },
  { $id: 'Comments', title: 'Comments' },
);

const Ref = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });
const Limit = (dflt: number, what: string) =>
  Type.Integer({ minimum: 1, maximum: 1000, default: dflt, description: `Most ${what} (1–1000)` });

const listErrors = errorResponses(400, 401, 402, 404, 429, 502);

export const youtubeListRoutes: RoutePlugin<Pick<HttpContext, 'youtube' | 'charges'>> = async (
  app,
  { youtube, charges },
) => {
  app.addSchema(ChannelMetadata);
  app.addSchema(VideoIdLists);
  app.addSchema(Comments);

  const channelRef = (raw: string) => {
    const ref = parseChannelRef(raw);
    if (!ref) throw invalid('id', 'not a channel id, @handle or channel URL of the video-sharing platform');
    return ref;
  };

  aliasedGet(
    app,
    ['/v1/vidsite/channel', '/v1/youtube/channel'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'channel',
        ...mcpTool({
          name: 'channel',
          description: "A video-sharing-site channel's metadata by id, handle or URL.",
        }),
        summary: "A channel's metadata",
        description:
          'Every field is present, null when the platform does not show it. Counts are exact where the ' +
          "channel's About panel gives them, else as rounded as its header shows them.",
        querystring: Type.Object({ id: Ref('A channel id (UC…), @handle or channel URL') }),
        response: { 200: Type.Ref('ChannelMetadata'), ...listErrors },
      },
    },
    async (request, reply) => {
      const ref = channelRef(request.query.id);
      return paid(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'channel', description: 'Channel metadata' },
        () => youtube.channel(ref),
      );
    },
  );

  aliasedGet(
    app,
    ['/v1/vidsite/channel/videos', '/v1/youtube/channel/videos'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'channelVideos',
        summary: "A channel's video ids",
        description:
          'Ids from the Videos, Shorts and Live tabs, newest first. With `type=all`, `limit` is a total ' +
          'filled with videos first, then shorts, then live. A tab the channel does not have gives an ' +
          'empty list.',
        querystring: Type.Object({
          id: Ref('A channel id (UC…), @handle or channel URL'),
          type: StringEnum(['all', 'video', 'short', 'live'] as const, {
            default: 'all',
            description: 'Which tab: video, short, live, or all of them',
          }),
          limit: Limit(30, 'ids in all'),
        }),
        response: { 200: Type.Ref('VideoIdLists'), ...listErrors },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const ref = channelRef(q.id);
      return paid(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'channel_videos', description: 'Channel videos' },
        () => youtube.channelVideos(ref, { type: q.type, limit: q.limit }),
      );
    },
  );

  aliasedGet(
    app,
    ['/v1/vidsite/playlist/videos', '/v1/youtube/playlist/videos'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'playlistVideos',
        summary: "A playlist's video ids",
        description:
          'Ids in playlist order. Items the platform marks as shorts are in `shortIds`, streams live now ' +
          'in `liveIds`, every other item in `videoIds`; `limit` counts all three. Deleted and private ' +
          'entries are left out.',
        querystring: Type.Object({
          id: Ref('A playlist id or any URL with list='),
          limit: Limit(100, 'ids in all'),
          // Supadata's Python SDK 1.6.0 always sends one (the text of Python's `type`): refusing it would fail every call.
          type: Type.Optional(
            Type.String({
              maxLength: 100,
              description: 'Accepted and ignored (a playlist has no tabs); Supadata SDKs send it',
            }),
          ),
        }),
        response: { 200: Type.Ref('VideoIdLists'), ...listErrors },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const id = parsePlaylistId(q.id);
      if (!id) throw invalid('id', 'not a playlist id or URL of the video-sharing platform');
      return paid(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'playlist_videos', description: 'Playlist videos' },
        () => youtube.playlistVideos(id, { limit: q.limit }),
      );
    },
  );

  aliasedGet(
    app,
    ['/v1/vidsite/comments', '/v1/youtube/comments'],
    {
      schema: {
        tags: ['Videos'],
        operationId: 'comments',
        ...mcpTool({ name: 'comments', description: "A video-sharing-site video's comments." }),
        summary: "A video's comments",
        description:
          "Top-level comments (replies are counted in `replyCount`), in the platform's Top order or " +
          'newest first. A video without comments answers an empty list.',
        querystring: Type.Object({
          id: Ref('A video id or URL'),
          limit: Limit(20, 'comments'),
          sort: StringEnum(['top', 'newest'] as const, { default: 'top', description: 'top or newest' }),
        }),
        response: { 200: Type.Ref('Comments'), ...listErrors },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const videoId = parseVideoId(q.id);
      if (!videoId) throw invalid('id', 'not a video id or URL of the video-sharing platform');
      return paid(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'comments', description: 'Comments' },
        async () => ({
          comments: await youtube.comments(videoId, { limit: q.limit, sort: q.sort }),
        }),
      );
    },
  );
};
