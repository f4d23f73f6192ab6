// A video's comments: `/next` with the first-request token built from the id (the token the watch
// page itself carries), the Newest order through the sort menu's token of that first answer (or the
// same token built with the sort option when the menu is missing), then the continuations up to the
// limit. A first answer with no comment section at all is either a
// video without comments (comments off, none yet) or no video: the player tells which.
import { AppError } from '../../errors.js';
import type { Browse } from './browse.js';
import type { YouTubeClient } from './client.js';
import {
  type CommentSort,
  type CommentsPage,
  commentsContinuationToken,
  parseCommentsPage,
  type VideoComment,
} from './comments.parse.js';
import { followPages } from './paging.js';
import { playabilityError } from './player.js';

export interface CommentsOptions {
  /** Most comments (1–1000 at the API). */
  limit: number;
  sort?: CommentSort;
  signal?: AbortSignal;
}

const parse = (answer: unknown): CommentsPage => parseCommentsPage(answer, Date.now());

const isEmpty = (page: CommentsPage) =>
  page.comments.length === 0 && page.sort === null && page.continuation === null;

/** Throws 404 when the platform has no such video (a blocked player is retried with the next client). */
async function ensureVideo(client: YouTubeClient, videoId: string): Promise<void> {
  let err: AppError | null;
  try {
    err = playabilityError(await client.playerFor(videoId, 'metadata'), 'metadata', videoId);
  } catch (thrown) {
    // Every client refused to show it (login wall, …): it exists, it just has nothing to show us.
    if (!(thrown instanceof AppError) || thrown.code === 'not_found' || thrown.code === 'upstream_error') {
      throw thrown;
    }
    return;
  }
  if (err?.code === 'not_found') throw err;
}

/** Top-level comments, each once, in the order asked for. */
export async function fetchComments(
  browse: Browse,
  client: YouTubeClient,
  videoId: string,
  { limit, sort = 'top', signal }: CommentsOptions,
): Promise<VideoComment[]> {
  let first = await browse.page('next', { continuation: commentsContinuationToken(videoId, 'top') }, parse, {
    cacheKey: `yt:comments:${videoId}:top`,
    signal,
  });
  if (isEmpty(first)) {
    await ensureVideo(client, videoId);
    return [];
  }
  if (sort === 'newest') {
    // The sort menu's token; a first answer without the menu is reloaded with the built one.
    const newest = first.sort?.newest ?? commentsContinuationToken(videoId, 'newest');
    first = await browse.page('next', { continuation: newest }, parse, {
      cacheKey: `yt:comments:${videoId}:newest`,
      signal,
    });
  }
  const paged = (page: CommentsPage) => ({ items: page.comments, continuation: page.continuation });
  const { items } = await followPages(
    paged(first),
    async (token) => paged(await browse.page('next', { continuation: token }, parse, { signal })),
    { limit, key: (comment) => comment.id },
  );
  return items;
}
