// Which Instagram URLs name a post or reel: /p/, /reel/, /reels/, /tv/ (with an optional user
// prefix and any query string), and /share/ links that redirect to one. Pure.
import { invalid } from '../../errors.js';

export type InstagramUrl =
  | { kind: 'post'; shortcode: string; path: 'p' | 'reel' | 'tv' }
  | { kind: 'short'; url: string };

const HOST = /^(?:(?:www|m)\.)?instagram\.com$|^(?:www\.)?instagr\.am$/i;
const POST = /^(?:\/[A-Za-z0-9._]+)?\/(p|reels?|tv)\/([A-Za-z0-9_-]{5,64})\/?$/;

export const isInstagramHost = (host: string) => HOST.test(host);

export function parseInstagramUrl(url: URL): InstagramUrl | null {
  if (!isInstagramHost(url.hostname)) return null;
  if (/^\/share\/(?:reels?|p|tv)?\/?[A-Za-z0-9_-]+\/?$/.test(url.pathname)) {
    return { kind: 'short', url: url.toString() };
  }
  const m = POST.exec(url.pathname);
  if (m) {
    const kind = m[1] === 'tv' ? 'tv' : m[1] === 'p' ? 'p' : 'reel';
    return { kind: 'post', shortcode: m[2]!, path: kind };
  }
  throw invalid('url', 'not a post or reel URL of the photo-sharing site (/p/, /reel/, /reels/, /tv/)');
}

export const instagramPostUrl = (shortcode: string, path: 'p' | 'reel' | 'tv' = 'p') =>
  `https://www.instagram.com/${path}/${shortcode}/`;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The numeric media id a shortcode encodes (base64 over the URL alphabet; private codes carry 28 extra characters). */
export function shortcodeToMediaId(shortcode: string): string {
  const code = shortcode.length > 28 ? shortcode.slice(0, -28) : shortcode;
  let id = 0n;
  for (const ch of code) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) throw invalid('url', 'not a post shortcode');
    id = id * 64n + BigInt(v);
  }
  return id.toString();
}
