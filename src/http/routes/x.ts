// GET /v1/microblog/post (aliases /v1/twitter/post, /v1/x/post): an X post's metadata from its URL
// on either hostname, 1 credit; deleted, protected and unknown posts are 404 and free.
import { Type } from '@sinclair/typebox';
import { prices } from '../../billing/prices.js';
import { invalid } from '../../errors.js';
import { mcpTool } from '../../mcp/tools.js';
import { aliasedGet } from '../alias-route.js';
import type { HttpContext } from '../context.js';
import { paid } from '../plugins/billing.js';
import { errorResponses, Nullable } from '../schemas/common.js';
import type { RoutePlugin } from '../typed.js';

export const MicroblogPost = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ description: 'https://x.com/<user>/status/<id>' }),
    text: Type.String({ description: 'Links expanded; the trailing media link removed' }),
    author: Type.Object({
      username: Nullable(Type.String()),
      displayName: Nullable(Type.String()),
      profileImageUrl: Nullable(Type.String()),
      verified: Type.Boolean({ description: 'Legacy, paid or organisation verification' }),
    }),
    stats: Type.Object(
      {
        likes: Nullable(Type.Integer()),
        retweets: Nullable(Type.Integer()),
        replies: Nullable(Type.Integer()),
        views: Nullable(Type.Integer()),
        bookmarks: Nullable(Type.Integer()),
      },
      { description: 'null where the source answered does not show the count' },
    ),
    createdAt: Nullable(Type.String({ description: 'ISO 8601 date-time (UTC)' })),
    media: Type.Array(
      Type.Object({
        type: Type.String({ description: 'image, video or gif' }),
        url: Type.String({ description: 'The picture, or the best MP4 of a video or gif' }),
      }),
    ),
    quotedTweet: Nullable(
      Type.Object({
        id: Type.String(),
        text: Type.String(),
        author: Type.Object({ username: Nullable(Type.String()), displayName: Nullable(Type.String()) }),
      }),
    ),
  },
  { $id: 'MicroblogPost', title: 'MicroblogPost' },
);

export const xRoutes: RoutePlugin<Pick<HttpContext, 'platforms' | 'charges'>> = async (
  app,
  { platforms, charges },
) => {
  app.addSchema(MicroblogPost);
  aliasedGet(
    app,
    ['/v1/microblog/post', '/v1/twitter/post', '/v1/x/post'],
    {
      schema: {
        tags: ['Posts'],
        operationId: 'microblogPost',
        ...mcpTool({
          name: 'microblog_post',
          description: "A microblog post's text, author, counts and media by URL.",
        }),
        summary: "A microblog post's metadata",
        description:
          'From the post URL on either hostname (x.com, twitter.com; mobile hosts, /i/status/, t.co links). ' +
          'Every field is present, null where the platform does not show it.',
        querystring: Type.Object({
          url: Type.String({ minLength: 1, maxLength: 2048, description: 'The post URL' }),
        }),
        response: { 200: Type.Ref('MicroblogPost'), ...errorResponses(400, 401, 402, 404, 429, 502) },
      },
    },
    async (request, reply) => {
      const ref = await platforms.recognise(request.query.url);
      if (ref.platform !== 'x')
        throw invalid('url', 'not a post URL of the microblog (x.com or twitter.com)');
      return paid(
        charges,
        request,
        reply,
        prices.syncRequest,
        { operation: 'microblog', description: 'Microblog post' },
        () => platforms.byName.x.post(ref.id),
      );
    },
  );
};
