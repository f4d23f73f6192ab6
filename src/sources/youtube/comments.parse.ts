// Comments out of `/youtubei/v1/next` answers, in both layouts the platform serves:
// - legacy: `commentThreadRenderer > comment > commentRenderer` holds everything;
// - 2024+: `commentThreadRenderer > commentViewModel > commentViewModel` holds only keys, and the
//   comment itself is a `commentEntityPayload` (heart state: `engagementToolbarStateEntityPayload`)
//   among `frameworkUpdates.entityBatchUpdate.mutations`, found by those keys.
// The first answer also carries `commentsHeaderRenderer` with the count and the sort menu, whose
// items (Top, Newest) hold the tokens that reload the list in that order.

import { parseCount, parseRelativeTime } from './counts.js';
import {
  asArray,
  asString,
  bestImage,
  continuationToken,
  dig,
  findAll,
  findFirst,
  isRecord,
  type JsonRecord,
  textOf,
} from './tree.js';

export type CommentSort = 'top' | 'newest';

export interface CommentAuthor {
  name: string | null;
  channelId: string | null;
  thumbnail: string | null;
}

/** The comment shape of every platform (docs/decisions.md, "The API's shape"). */
export interface VideoComment {
  id: string;
  text: string;
  author: CommentAuthor;
  likeCount: number | null;
  replyCount: number | null;
  /** ISO 8601, as approximate as the platform's "3 days ago". */
  publishedAt: string | null;
  isPinned: boolean;
  isHearted: boolean;
}

export interface CommentsPage {
  comments: VideoComment[];
  /** Token of the next page (a `/next` continuation), null on the last page. */
  continuation: string | null;
  /** Tokens that reload the list sorted by Top / Newest; only the first page has the header. */
  sort: Record<CommentSort, string | null> | null;
  /** The header's comment count, when the page has the header. */
  totalCount: number | null;
}

/** Lists of items an answer carries, each with the targetId it is meant for. */
function itemLists(answer: unknown): Array<{ target: string | null; items: unknown[] }> {
  const lists: Array<{ target: string | null; items: unknown[] }> = [];
  for (const key of [
    'onResponseReceivedEndpoints',
    'onResponseReceivedActions',
    'onResponseReceivedCommands',
  ]) {
    for (const entry of asArray(dig(answer, key))) {
      const action =
        dig(entry, 'reloadContinuationItemsCommand') ?? dig(entry, 'appendContinuationItemsAction');
      if (!isRecord(action)) continue;
      lists.push({ target: asString(action.targetId), items: asArray(action.continuationItems) });
    }
  }
  // 2020–21: continuationContents.itemSectionContinuation {header, contents, continuations}.
  const section = dig(answer, 'continuationContents', 'itemSectionContinuation');
  if (isRecord(section)) {
    lists.push({
      target: null,
      items: [
        ...(section.header ? [section.header] : []),
        ...asArray(section.contents),
        ...asArray(section.continuations),
      ],
    });
  }
  return lists;
}

/** Entity payloads of the answer's mutations, by entity key. */
function entities(answer: unknown): Map<string, JsonRecord> {
  const byKey = new Map<string, JsonRecord>();
  for (const mutation of asArray(dig(answer, 'frameworkUpdates', 'entityBatchUpdate', 'mutations'))) {
    const payload = dig(mutation, 'payload');
    if (!isRecord(payload)) continue;
    for (const name in payload) {
      const entity = payload[name];
      if (!isRecord(entity)) continue;
      const key = asString(dig(mutation, 'entityKey')) ?? asString(entity.key);
      if (key) byKey.set(key, { [name]: entity });
    }
  }
  return byKey;
}

/** The first count that reads, else 0: the platform leaves these empty (or " ") for none. */
function countOr0(...texts: unknown[]): number {
  for (const t of texts) {
    const n = parseCount(textOf(t));
    if (n !== null) return n;
  }
  return 0;
}

function fromRenderer(r: JsonRecord, nowMs: number): VideoComment | null {
  const id = asString(r.commentId);
  const text = textOf(r.contentText);
  if (!id || text === null) return null;
  return {
    id,
    text,
    author: {
      name: textOf(r.authorText),
      channelId: asString(dig(r, 'authorEndpoint', 'browseEndpoint', 'browseId')),
      thumbnail: bestImage(r.authorThumbnail),
    },
    likeCount: countOr0(r.voteCount),
    replyCount: typeof r.replyCount === 'number' ? r.replyCount : countOr0(r.replyCount),
    publishedAt: parseRelativeTime(textOf(r.publishedTimeText), nowMs),
    isPinned: isRecord(r.pinnedCommentBadge),
    isHearted:
      dig(
        r,
        'actionButtons',
        'commentActionButtonsRenderer',
        'creatorHeart',
        'creatorHeartRenderer',
        'isHearted',
      ) === true,
  };
}

function fromEntity(
  payload: JsonRecord,
  toolbarState: unknown,
  viewModel: JsonRecord | null,
  pinned: boolean,
  nowMs: number,
): VideoComment | null {
  const props = payload.properties;
  const id = asString(dig(props, 'commentId')) ?? asString(viewModel?.commentId);
  const text = textOf(dig(props, 'content'));
  if (!id || text === null) return null;
  const author = payload.author;
  const toolbar = payload.toolbar;
  return {
    id,
    text,
    author: {
      name: asString(dig(author, 'displayName')),
      channelId: asString(dig(author, 'channelId')),
      thumbnail: asString(dig(author, 'avatarThumbnailUrl')) ?? bestImage(dig(payload, 'avatar', 'image')),
    },
    likeCount: countOr0(dig(toolbar, 'likeCountNotliked'), dig(toolbar, 'likeCountA11y')),
    replyCount: countOr0(dig(toolbar, 'replyCount')),
    publishedAt: parseRelativeTime(asString(dig(props, 'publishedTime')), nowMs),
    isPinned: pinned || asString(viewModel?.pinnedText) !== null,
    isHearted: dig(toolbarState, 'heartState') === 'TOOLBAR_HEART_STATE_HEARTED',
  };
}

/**
 * One page of comments from a `/next` answer (the first one, a sort reload, or a continuation).
 * `nowMs` anchors the relative publish times. Top-level comments only; replies are counted.
 */
export function parseCommentsPage(answer: unknown, nowMs: number): CommentsPage {
  const byKey = entities(answer);
  const byCommentId = new Map<string, JsonRecord>();
  for (const e of byKey.values()) {
    const p = e.commentEntityPayload;
    const id = asString(dig(p, 'properties', 'commentId'));
    if (isRecord(p) && id) byCommentId.set(id, p);
  }

  const comments: VideoComment[] = [];
  const seen = new Set<string>();
  const push = (c: VideoComment | null) => {
    if (c && !seen.has(c.id)) {
      seen.add(c.id);
      comments.push(c);
    }
  };
  const fromViewModel = (vm: unknown, pinned: boolean) => {
    if (!isRecord(vm)) return;
    const payload =
      dig(byKey.get(asString(vm.commentKey) ?? ''), 'commentEntityPayload') ??
      byCommentId.get(asString(vm.commentId) ?? '');
    if (!isRecord(payload)) return;
    const stateKey = asString(vm.toolbarStateKey) ?? asString(dig(payload, 'properties', 'toolbarStateKey'));
    const state = dig(byKey.get(stateKey ?? ''), 'engagementToolbarStateEntityPayload');
    push(fromEntity(payload, state, vm, pinned, nowMs));
  };

  let continuation: string | null = null;
  let sort: CommentsPage['sort'] = null;
  let totalCount: number | null = null;
  let sawThread = false;

  for (const { target, items } of itemLists(answer)) {
    // Answers for a thread's replies target `comment-replies-item-…`: not top-level comments.
    if (target?.startsWith('comment-replies-item')) continue;
    for (const item of items) {
      if (!isRecord(item)) continue;
      const header = item.commentsHeaderRenderer;
      if (isRecord(header)) {
        sort = sortTokens(header);
        totalCount = parseCount(textOf(header.countText)) ?? parseCount(textOf(header.commentsCount));
        continue;
      }
      const thread = item.commentThreadRenderer;
      if (isRecord(thread)) {
        sawThread = true;
        const legacy = dig(thread, 'comment', 'commentRenderer');
        if (isRecord(legacy)) push(fromRenderer(legacy, nowMs));
        else {
          const pinned = thread.renderingPriority === 'RENDERING_PRIORITY_PINNED_COMMENT';
          fromViewModel(
            dig(thread, 'commentViewModel', 'commentViewModel') ?? thread.commentViewModel,
            pinned,
          );
        }
        continue;
      }
      if (isRecord(item.continuationItemRenderer) || isRecord(item.nextContinuationData)) {
        continuation = continuationToken(item.continuationItemRenderer ?? item) ?? continuation;
      }
    }
  }

  // No thread renderers but comment entities (a layout not seen yet): list the top-level ones.
  if (!sawThread) {
    for (const p of byCommentId.values()) {
      const level = dig(p, 'properties', 'replyLevel');
      if (level === undefined || level === 0) push(fromEntity(p, null, null, false, nowMs));
    }
  }
  return { comments, continuation, sort, totalCount };
}

/** Sort-menu tokens of the header: the first item is Top, the second Newest (in every language). */
function sortTokens(header: JsonRecord): Record<CommentSort, string | null> {
  const items = asArray(dig(header, 'sortMenu', 'sortFilterSubMenuRenderer', 'subMenuItems'));
  const token = (item: unknown): string | null =>
    asString(dig(item, 'serviceEndpoint', 'continuationCommand', 'token')) ??
    asString(dig(item, 'continuation', 'reloadContinuationData', 'continuation')) ??
    asString(dig(findFirst(item, 'continuationCommand'), 'token'));
  return { top: token(items[0]), newest: token(items[1]) };
}

/**
 * Token of the first comments request, as a watch page carries it: the `comment-item-section`
 * (2021+: a continuationItemRenderer; 2020: nextContinuationData), preferring the one under the
 * video to the engagement panel's. Null when comments are off or the page has none.
 */
export function commentsContinuationFromWatch(initialData: unknown): string | null {
  let fallback: string | null = null;
  for (const section of findAll(initialData, 'itemSectionRenderer')) {
    if (dig(section, 'sectionIdentifier') !== 'comment-item-section') continue;
    const token =
      continuationToken(findFirst(section, 'continuationItemRenderer')) ??
      asString(dig(findFirst(section, 'nextContinuationData'), 'continuation'));
    if (!token) continue;
    const target = asString(dig(section, 'targetId'));
    if (target === null || target === 'comments-section') return token;
    fallback ??= token;
  }
  return fallback;
}

/**
 * Token of the first comments request built without the watch page: the protobuf message the page
 * itself carries ({2: {2: id}, 3: 6, 6: {4: {4: id, 6: sort, 15: 2}, 8: "comments-section"}}),
 * base64url with the padding percent-encoded as the page has it.
 */
export function commentsContinuationToken(videoId: string, sort: CommentSort = 'top'): string {
  // One-byte lengths below hold because an id is 11 characters.
  if (!/^[A-Za-z0-9_-]{11}$/.test(videoId)) throw new TypeError(`not a video id: ${videoId}`);
  const id = Buffer.from(videoId, 'ascii');
  const field = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag, body.length]), body]);
  const varint = (tag: number, value: number) => Buffer.from([tag, value]);
  const options = Buffer.concat([field(0x22, id), varint(0x30, sort === 'newest' ? 1 : 0), varint(0x78, 2)]);
  const params = Buffer.concat([field(0x22, options), field(0x42, Buffer.from('comments-section'))]);
  const message = Buffer.concat([field(0x12, field(0x12, id)), varint(0x18, 6), field(0x32, params)]);
  return message.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=/g, '%3D');
}
