// Which X URLs name a post: /<user>/status/<id> on x.com and twitter.com (www., mobile., m.),
// /i/status/ and /i/web/status/, /statuses/, trailing /photo/1 or /video/1, the mirror hosts people
// paste (fxtwitter, vxtwitter, fixupx, fixvx), and t.co short links. Pure.
import { invalid } from '../../errors.js';

export type XUrl = { kind: 'post'; id: string; user: string | null } | { kind: 'short'; url: string };

const HOST =
  /^(?:(?:www|mobile|m)\.)?(?:x|twitter)\.com$|^(?:(?:www|d)\.)?(?:fxtwitter|vxtwitter|fixupx|fixvx|twittpr)\.com$/i;
const STATUS =
  /^\/(?:i\/web|i|([A-Za-z0-9_]{1,20}))\/status(?:es)?\/(\d{1,20})(?:\/(?:photo|video)\/\d+|\/analytics)?\/?$/;

export const isXHost = (host: string) => HOST.test(host) || /^t\.co$/i.test(host);

export function parseXUrl(url: URL): XUrl | null {
  if (/^t\.co$/i.test(url.hostname)) {
    if (/^\/[A-Za-z0-9]+\/?$/.test(url.pathname)) return { kind: 'short', url: url.toString() };
    throw invalid('url', 'not a t.co short link');
  }
  if (!HOST.test(url.hostname)) return null;
  const m = STATUS.exec(url.pathname);
  if (m) return { kind: 'post', id: m[2]!, user: m[1] && m[1] !== 'i' ? m[1] : null };
  throw invalid('url', 'not a post URL of the microblog (/<user>/status/<id> on x.com or twitter.com)');
}

export const xPostUrl = (id: string, user: string | null = null) =>
  `https://x.com/${user ?? 'i'}/status/${id}`;
