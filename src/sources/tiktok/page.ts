// A TikTok page → what we use of it: the rehydration JSON (__UNIVERSAL_DATA_FOR_REHYDRATION__ →
// __DEFAULT_SCOPE__["webapp.video-detail"]; the older SIGI_STATE as a fallback), its status code,
// the video's play URLs and caption tracks (subtitleInfos and claInfo.captionInfos), and what the
// page says of the post (author, counts, cover, hashtags, music). Pure and tolerant: missing parts
// become null/empty.
import { normaliseLang } from '../caption-files.js';
import { asArray, asString, dig, isRecord, type JsonRecord } from '../youtube/tree.js';

export interface TikTokCaptionTrack {
  /** BCP-47 style ("en", "es"). */
  lang: string;
  url: string;
  format: string;
  /** ASR (speech recognition of the original), MT (machine translation), creator (uploaded). */
  source: 'asr' | 'mt' | 'creator' | 'unknown';
  original: boolean;
}

export interface TikTokVideo {
  id: string;
  description: string | null;
  /** The author's unique id (the @name of their URL). */
  author: string | null;
  authorName: string | null;
  authorAvatar: string | null;
  authorVerified: boolean | null;
  /** Unix seconds. */
  createdAt: number | null;
  durationSec: number | null;
  width: number | null;
  height: number | null;
  cover: string | null;
  stats: {
    plays: number | null;
    likes: number | null;
    comments: number | null;
    shares: number | null;
    saves: number | null;
  };
  /** Hashtags of the description, without #. */
  hashtags: string[];
  music: { title: string | null; author: string | null } | null;
  /** Media URLs, best first (no bytevc2, which browsers cannot play). */
  playUrls: string[];
  captions: TikTokCaptionTrack[];
  originalLang: string | null;
}

export type TikTokPage =
  | { kind: 'video'; video: TikTokVideo }
  /** statusCode other than 0 (10216 private post, 10222 private account, 10204 gone, …). */
  | { kind: 'status'; code: number; message: string | null }
  /** A photo post or a classified item with no video in it. */
  | { kind: 'no_video' }
  | { kind: 'unknown' };

const num = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v)) return Number(v);
  return null;
};

/** The JSON of a <script id="…"> element, or null. */
export function scriptJson(html: string, id: string): unknown {
  const re = new RegExp(`<script[^>]*\\bid=["']${id}["'][^>]*>([\\s\\S]*?)</script>`, 'i');
  const body = re.exec(html)?.[1];
  if (!body) return null;
  try {
    return JSON.parse(body);
  } catch {
    return null;
  }
}

function captionTracks(video: JsonRecord): TikTokCaptionTrack[] {
  const out: TikTokCaptionTrack[] = [];
  const seen = new Set<string>();
  const originalCode = asString(dig(video, 'claInfo', 'originalLanguageInfo', 'languageCode'));
  for (const item of asArray(video.subtitleInfos)) {
    if (!isRecord(item)) continue;
    const url = asString(item.Url);
    const code = asString(item.LanguageCodeName);
    if (!url || !code) continue;
    const source = String(item.Source ?? '').toUpperCase();
    const lang = normaliseLang(code);
    out.push({
      lang,
      url,
      format: String(item.Format ?? 'webvtt').toLowerCase(),
      source: source === 'ASR' ? 'asr' : source === 'MT' ? 'mt' : source ? 'creator' : 'unknown',
      original:
        source === 'ASR' ||
        (originalCode !== null && normaliseLang(originalCode) === lang && source !== 'MT'),
    });
    seen.add(lang);
  }
  for (const item of asArray(dig(video, 'claInfo', 'captionInfos'))) {
    if (!isRecord(item)) continue;
    const url = asString(item.url) ?? asString(asArray(item.urlList)[0]);
    const code = asString(item.languageCode) ?? asString(item.language);
    if (!url || !code) continue;
    const lang = normaliseLang(code);
    if (seen.has(lang)) continue;
    seen.add(lang);
    out.push({
      lang,
      url,
      format: String(item.captionFormat ?? 'webvtt').toLowerCase(),
      source: item.isAutoGen === false ? 'creator' : item.isOriginalCaption === true ? 'asr' : 'mt',
      original: item.isOriginalCaption === true,
    });
  }
  return out;
}

function playUrls(video: JsonRecord): string[] {
  const ranked: Array<{ url: string; rate: number }> = [];
  for (const item of asArray(video.bitrateInfo)) {
    if (!isRecord(item)) continue;
    if (/bytevc2/i.test(String(item.CodecType ?? ''))) continue;
    const rate = num(item.Bitrate) ?? 0;
    for (const url of asArray(dig(item, 'PlayAddr', 'UrlList'))) {
      if (typeof url === 'string' && url) ranked.push({ url, rate });
    }
  }
  // Lowest bitrate first: speech recognition and frames need little, and the download is smaller.
  ranked.sort((a, b) => a.rate - b.rate);
  const urls = ranked.map((r) => r.url);
  for (const key of ['playAddr', 'downloadAddr']) {
    const url = asString(video[key]);
    if (url) urls.push(url);
  }
  return [...new Set(urls)];
}

function itemOf(root: unknown): { status: number | null; message: string | null; item: unknown } {
  const detail = dig(root, '__DEFAULT_SCOPE__', 'webapp.video-detail');
  if (isRecord(detail)) {
    return {
      status: num(detail.statusCode),
      message: asString(detail.statusMsg),
      item: dig(detail, 'itemInfo', 'itemStruct'),
    };
  }
  // SIGI_STATE: ItemModule keyed by id.
  const module = dig(root, 'ItemModule');
  if (isRecord(module)) {
    const first = Object.values(module)[0];
    return { status: first ? 0 : null, message: null, item: first };
  }
  return { status: null, message: null, item: undefined };
}

/** A count from statsV2 (strings, exact) or stats (numbers). */
function stat(item: JsonRecord, key: string): number | null {
  return num(dig(item, 'statsV2', key)) ?? num(dig(item, 'stats', key));
}

function hashtagsOf(item: JsonRecord): string[] {
  const names = [
    ...asArray(item.textExtra).map((t) => asString(dig(t, 'hashtagName'))),
    ...asArray(item.challenges).map((c) => asString(dig(c, 'title'))),
  ];
  return [...new Set(names.filter((n): n is string => !!n))];
}

export function parseTikTokPage(html: string): TikTokPage {
  const root =
    scriptJson(html, '__UNIVERSAL_DATA_FOR_REHYDRATION__') ??
    scriptJson(html, 'SIGI_STATE') ??
    scriptJson(html, 'sigi-persisted-data');
  if (!root) return { kind: 'unknown' };
  const { status, message, item } = itemOf(root);
  if (status !== null && status !== 0) return { kind: 'status', code: status, message };
  if (!isRecord(item)) return status === 0 ? { kind: 'status', code: -1, message } : { kind: 'unknown' };
  const video = isRecord(item.video) ? item.video : null;
  const urls = video ? playUrls(video) : [];
  if (!video || (urls.length === 0 && asArray(video.subtitleInfos).length === 0)) return { kind: 'no_video' };
  const originalCode = asString(dig(video, 'claInfo', 'originalLanguageInfo', 'languageCode'));
  return {
    kind: 'video',
    video: {
      id: asString(item.id) ?? '',
      description: asString(item.desc),
      author: asString(dig(item, 'author', 'uniqueId')),
      authorName: asString(dig(item, 'author', 'nickname')),
      authorAvatar:
        asString(dig(item, 'author', 'avatarLarger')) ??
        asString(dig(item, 'author', 'avatarMedium')) ??
        asString(dig(item, 'author', 'avatarThumb')),
      authorVerified:
        typeof dig(item, 'author', 'verified') === 'boolean'
          ? (dig(item, 'author', 'verified') as boolean)
          : null,
      createdAt: num(item.createTime),
      durationSec: num(video.duration),
      width: num(video.width),
      height: num(video.height),
      cover: asString(video.originCover) ?? asString(video.cover),
      stats: {
        plays: stat(item, 'playCount'),
        likes: stat(item, 'diggCount'),
        comments: stat(item, 'commentCount'),
        shares: stat(item, 'shareCount'),
        saves: stat(item, 'collectCount'),
      },
      hashtags: hashtagsOf(item),
      music: isRecord(item.music)
        ? { title: asString(item.music.title), author: asString(item.music.authorName) }
        : null,
      playUrls: urls,
      captions: captionTracks(video),
      originalLang: originalCode ? normaliseLang(originalCode) : null,
    },
  };
}
