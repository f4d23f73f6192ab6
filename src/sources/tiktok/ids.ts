// Which TikTok URLs name a video: page, embed, share, mobile and legacy forms give the id at once;
// short links (vm./vt. hosts, /t/ paths) must be followed first. Pure.
import { invalid } from '../../errors.js';

export type TikTokUrl =
  | { kind: 'video'; id: string; user: string | null }
  | { kind: 'short'; url: string }
  | { kind: 'photo'; id: string };

const HOST = /^(?:(?:www|m|vm|vt)\.)?tiktok(?:v)?\.com$/i;
const SHORT_HOST = /^(?:vm|vt)\.tiktok\.com$/i;
const ID = '(\\d{8,21})';

const PATHS: Array<[RegExp, (m: RegExpExecArray) => TikTokUrl]> = [
  [new RegExp(`^/@([^/]*)/video/${ID}/?$`), (m) => ({ kind: 'video', id: m[2]!, user: m[1] || null })],
  [new RegExp(`^/@([^/]*)/photo/${ID}/?$`), (m) => ({ kind: 'photo', id: m[2]! })],
  [new RegExp(`^/embed(?:/v2)?/${ID}/?$`), (m) => ({ kind: 'video', id: m[1]!, user: null })],
  [new RegExp(`^/share/video/${ID}/?$`), (m) => ({ kind: 'video', id: m[1]!, user: null })],
  [new RegExp(`^/v/${ID}(?:\\.html)?/?$`), (m) => ({ kind: 'video', id: m[1]!, user: null })],
  [new RegExp(`^/player/v1/${ID}/?$`), (m) => ({ kind: 'video', id: m[1]!, user: null })],
];

export const isTikTokHost = (host: string) => HOST.test(host);

/** null: not a TikTok URL; throws 400 naming `url` for its URLs that name no video. */
export function parseTikTokUrl(url: URL): TikTokUrl | null {
  if (!isTikTokHost(url.hostname)) return null;
  const path = decodeURIComponent(url.pathname);
  if (SHORT_HOST.test(url.hostname) && /^\/[A-Za-z0-9_-]+\/?$/.test(path)) {
    return { kind: 'short', url: url.toString() };
  }
  if (/^\/t\/[A-Za-z0-9_-]+\/?$/.test(path)) return { kind: 'short', url: url.toString() };
  for (const [re, make] of PATHS) {
    const m = re.exec(path);
    if (m) return make(m);
  }
  throw invalid(
    'url',
    'not a video URL of the short-video site (/@user/video/<id>, vm./vt. short links, embed)',
  );
}

/** The page the platform serves a video on. */
export const tiktokVideoUrl = (id: string, user: string | null = null) =>
  `https://www.tiktok.com/@${user ?? '_'}/video/${id}`;
