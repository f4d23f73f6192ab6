// The X post shape of the API, and the two public answers it is read from: the web GraphQL
// TweetResultByRestId (every stat; both the ≤2024 `legacy` user shape and the 2025 `core`/`avatar`/
// `verification` one) and the syndication tweet-result JSON (no auth; no retweets, views or bookmarks).
// Pure and tolerant: what a source lacks is null. Unavailable posts come back as their reason.
import { asArray, asString, dig, isRecord, type JsonRecord } from '../youtube/tree.js';

export interface PostAuthor {
  username: string | null;
  displayName: string | null;
  profileImageUrl: string | null;
  verified: boolean;
}

export interface XPost {
  id: string;
  url: string;
  text: string;
  author: PostAuthor;
  stats: {
    likes: number | null;
    retweets: number | null;
    replies: number | null;
    views: number | null;
    bookmarks: number | null;
  };
  createdAt: string | null;
  media: Array<{ type: 'image' | 'video' | 'gif'; url: string }>;
  quotedTweet: {
    id: string;
    text: string;
    author: { username: string | null; displayName: string | null };
  } | null;
}

/** A post's video files (what media download needs), best first. */
export interface PostVideo {
  url: string;
  durationSec: number | null;
  /** The HLS master playlist, where uploaded captions are listed. */
  hlsUrl: string | null;
}

export type ParsedPost =
  | { kind: 'post'; post: XPost; videos: PostVideo[] }
  /** Deleted, protected, suspended, age-gated, or no such post. */
  | { kind: 'unavailable'; reason: string };

const int = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return null;
};

/** "Tue Mar 21 20:50:14 +0000 2006" or ISO 8601 → ISO 8601 UTC. */
export function isoDate(raw: unknown): string | null {
  if (typeof raw !== 'string' || !raw) return null;
  const m = /^\w{3} (\w{3}) (\d{1,2}) (\d{2}:\d{2}:\d{2}) ([+-]\d{4}) (\d{4})$/.exec(raw.trim());
  const text = m ? `${m[2]} ${m[1]} ${m[5]} ${m[3]} GMT${m[4]}` : raw;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** The profile picture at a usable size (the platform hands out 48-pixel "_normal" ones). */
const biggerAvatar = (url: string | null) => url?.replace(/_normal(\.\w+)$/, '_400x400$1') ?? null;

export const canonicalPostUrl = (id: string, username: string | null) =>
  `https://x.com/${username ?? 'i'}/status/${id}`;

/** Text without the trailing media link, with t.co links expanded. */
function displayText(text: string, range: unknown, urls: unknown, media: unknown): string {
  let out = text;
  const r = asArray(range).map(int);
  if (r.length === 2 && r[0] !== null && r[1] !== null) out = [...text].slice(r[0], r[1]).join('');
  for (const u of asArray(urls)) {
    const short = asString(dig(u, 'url'));
    const long = asString(dig(u, 'expanded_url'));
    if (short && long) out = out.split(short).join(long);
  }
  for (const m of asArray(media)) {
    const short = asString(dig(m, 'url'));
    if (short) out = out.split(short).join('');
  }
  return decodeHtml(out).trim();
}

function decodeHtml(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"');
}

function bestMp4(variants: unknown, urlKey: string, typeKey: string): string | null {
  const mp4 = asArray(variants)
    .filter(isRecord)
    .filter((v) => String(v[typeKey] ?? '') === 'video/mp4' && asString(v[urlKey]))
    .sort((a, b) => (int(b.bitrate) ?? 0) - (int(a.bitrate) ?? 0));
  return mp4.length ? (mp4[0]![urlKey] as string) : null;
}

function mediaOf(list: unknown): { media: XPost['media']; videos: PostVideo[] } {
  const media: XPost['media'] = [];
  const videos: PostVideo[] = [];
  for (const item of asArray(list)) {
    if (!isRecord(item)) continue;
    const type = String(item.type ?? '');
    const image = asString(item.media_url_https);
    if (type === 'photo' && image) media.push({ type: 'image', url: image });
    else if (type === 'video' || type === 'animated_gif') {
      const file = bestMp4(dig(item, 'video_info', 'variants'), 'url', 'content_type');
      const url = file ?? image;
      if (url) media.push({ type: type === 'video' ? 'video' : 'gif', url });
      if (file) {
        const ms = int(dig(item, 'video_info', 'duration_millis'));
        const hls = asArray(dig(item, 'video_info', 'variants'))
          .filter(isRecord)
          .find((v) => /mpegurl/i.test(String(v.content_type ?? '')) && asString(v.url));
        videos.push({
          url: file,
          durationSec: ms === null ? null : ms / 1000,
          hlsUrl: hls ? (hls.url as string) : null,
        });
      }
    }
  }
  return { media, videos };
}

// --- web GraphQL ---------------------------------------------------------------------------------

function graphqlUser(user: unknown): PostAuthor {
  const u = isRecord(user) ? user : {};
  const legacy = isRecord(u.legacy) ? u.legacy : {};
  const core = isRecord(u.core) ? u.core : {};
  return {
    username: asString(core.screen_name) ?? asString(legacy.screen_name),
    displayName: asString(core.name) ?? asString(legacy.name),
    profileImageUrl: biggerAvatar(
      asString(dig(u, 'avatar', 'image_url')) ?? asString(legacy.profile_image_url_https),
    ),
    verified:
      legacy.verified === true || u.is_blue_verified === true || dig(u, 'verification', 'verified') === true,
  };
}

/** Unwraps TweetWithVisibilityResults; null for anything that is not a post. */
function graphqlTweet(node: unknown): JsonRecord | null {
  if (!isRecord(node)) return null;
  if (node.__typename === 'TweetWithVisibilityResults') return graphqlTweet(node.tweet);
  if (node.__typename === 'Tweet' || (node.__typename === undefined && isRecord(node.legacy))) return node;
  return null;
}

function graphqlText(tweet: JsonRecord): string {
  const legacy = isRecord(tweet.legacy) ? tweet.legacy : {};
  const note = asString(dig(tweet, 'note_tweet', 'note_tweet_results', 'result', 'text'));
  if (note) return note.trim();
  return displayText(
    String(legacy.full_text ?? ''),
    legacy.display_text_range,
    dig(legacy, 'entities', 'urls'),
    dig(legacy, 'entities', 'media'),
  );
}

export function parseGraphqlPost(answer: unknown): ParsedPost {
  const result =
    dig(answer, 'data', 'tweetResult', 'result') ?? dig(answer, 'data', 'tweet_result', 'result');
  const tweet = graphqlTweet(result);
  if (!tweet) {
    const reason =
      asString(dig(result, 'reason')) ??
      asString(dig(result, 'tombstone', 'text', 'text')) ??
      (result === undefined ? 'no such post' : String(dig(result, '__typename') ?? 'unavailable'));
    return { kind: 'unavailable', reason };
  }
  const legacy = isRecord(tweet.legacy) ? tweet.legacy : {};
  const author = graphqlUser(dig(tweet, 'core', 'user_results', 'result'));
  const id = asString(tweet.rest_id) ?? asString(legacy.id_str) ?? '';
  const { media, videos } = mediaOf(
    dig(legacy, 'extended_entities', 'media') ?? dig(legacy, 'entities', 'media'),
  );
  const quoted = graphqlTweet(dig(tweet, 'quoted_status_result', 'result'));
  let quotedTweet: XPost['quotedTweet'] = null;
  if (quoted) {
    const qa = graphqlUser(dig(quoted, 'core', 'user_results', 'result'));
    quotedTweet = {
      id: asString(quoted.rest_id) ?? asString(dig(quoted, 'legacy', 'id_str')) ?? '',
      text: graphqlText(quoted),
      author: { username: qa.username, displayName: qa.displayName },
    };
  }
  return {
    kind: 'post',
    post: {
      id,
      url: canonicalPostUrl(id, author.username),
      text: graphqlText(tweet),
      author,
      stats: {
        likes: int(legacy.favorite_count),
        retweets: int(legacy.retweet_count),
        replies: int(legacy.reply_count),
        views: int(dig(tweet, 'views', 'count')),
        bookmarks: int(legacy.bookmark_count),
      },
      createdAt: isoDate(legacy.created_at),
      media,
      quotedTweet,
    },
    videos,
  };
}

// --- syndication ---------------------------------------------------------------------------------

/** The token the syndication endpoint wants: derived from the id, any value computed this way works. */
export function syndicationToken(id: string): string {
  return ((Number(id) / 1e15) * Math.PI).toString(36).replace(/(0+|\.)/g, '');
}

function syndicationUser(user: unknown): PostAuthor {
  const u = isRecord(user) ? user : {};
  return {
    username: asString(u.screen_name),
    displayName: asString(u.name),
    profileImageUrl: biggerAvatar(asString(u.profile_image_url_https)),
    verified: u.verified === true || u.is_blue_verified === true || Boolean(asString(u.verified_type)),
  };
}

function syndicationEntitiesUrls(entities: unknown): unknown {
  // The endpoint has sent `entities.urls` as an array and, since 2026, entities as other shapes.
  const urls = dig(entities, 'urls');
  return Array.isArray(urls) ? urls : [];
}

export function parseSyndicationPost(answer: unknown): ParsedPost {
  if (!isRecord(answer) || Object.keys(answer).length === 0)
    return { kind: 'unavailable', reason: 'no such post' };
  if (answer.__typename === 'TweetTombstone') {
    return { kind: 'unavailable', reason: asString(dig(answer, 'tombstone', 'text', 'text')) ?? 'tombstone' };
  }
  const id = asString(answer.id_str);
  if (!id) return { kind: 'unavailable', reason: String(answer.__typename ?? 'no such post') };
  const author = syndicationUser(answer.user);
  const { media, videos } = mediaOf(answer.mediaDetails);
  const quoted = isRecord(answer.quoted_tweet) ? answer.quoted_tweet : null;
  const videoViews = int(dig(answer, 'video', 'viewCount'));
  return {
    kind: 'post',
    post: {
      id,
      url: canonicalPostUrl(id, author.username),
      text: displayText(
        String(answer.text ?? ''),
        answer.display_text_range,
        syndicationEntitiesUrls(answer.entities),
        dig(answer, 'entities', 'media'),
      ),
      author,
      stats: {
        likes: int(answer.favorite_count),
        retweets: int(answer.retweet_count),
        replies: int(answer.conversation_count) ?? int(answer.reply_count),
        views: videoViews,
        bookmarks: int(answer.bookmark_count),
      },
      createdAt: isoDate(answer.created_at),
      media,
      quotedTweet: quoted
        ? {
            id: asString(quoted.id_str) ?? '',
            text: displayText(
              String(quoted.text ?? ''),
              quoted.display_text_range,
              syndicationEntitiesUrls(quoted.entities),
              dig(quoted, 'entities', 'media'),
            ),
            author: {
              username: asString(dig(quoted, 'user', 'screen_name')),
              displayName: asString(dig(quoted, 'user', 'name')),
            },
          }
        : null,
    },
    videos,
  };
}
