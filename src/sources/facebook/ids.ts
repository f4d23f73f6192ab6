// Which social-network URLs name a video: watch?v=, /videos/, /reel/, video.php, posts and story
// permalinks (a post may carry the video), on www./m./web./mbasic. hosts; share/ links and the fb.watch
// short host redirect to one of those. Pure.
import { invalid } from '../../errors.js';

export type FacebookUrl =
  | { kind: 'video'; id: string; reel: boolean }
  | { kind: 'post'; id: string; url: string }
  | { kind: 'short'; url: string };

const HOST = /^(?:(?:www|m|web|mbasic|business|touch)\.)?facebook\.com$|^(?:www\.)?fb\.com$/i;
const SHORT_HOST = /^(?:www\.)?fb\.watch$/i;
const ID = '(\\d{5,25}|pfbid[A-Za-z0-9]{10,80})';

export const isFacebookHost = (host: string) => HOST.test(host) || SHORT_HOST.test(host);

export function parseFacebookUrl(url: URL): FacebookUrl | null {
  if (SHORT_HOST.test(url.hostname)) {
    if (/^\/[A-Za-z0-9_-]+\/?$/.test(url.pathname)) return { kind: 'short', url: url.toString() };
    throw invalid('url', 'not an fb.watch short link');
  }
  if (!HOST.test(url.hostname)) return null;
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const q = url.searchParams;
  if (/^\/share\/(?:v|r|p)\/[A-Za-z0-9_-]+$/.test(path)) return { kind: 'short', url: url.toString() };
  const v = q.get('v');
  if (/^\/(?:watch|watch\/live|video\.php)$/.test(path) && v && new RegExp(`^${ID}$`).test(v)) {
    return { kind: 'video', id: v, reel: false };
  }
  let m = new RegExp(`^/reels?/${ID}$`).exec(path);
  if (m) return { kind: 'video', id: m[1]!, reel: true };
  m = new RegExp(`^(?:/[^/]+)?/videos/(?:[^/]+/)?${ID}$`).exec(path);
  if (m) return { kind: 'video', id: m[1]!, reel: false };
  m = new RegExp(`^(?:/[^/]+/posts|/groups/[^/]+/permalink)/${ID}$`).exec(path);
  if (m) return { kind: 'post', id: m[1]!, url: canonicalPost(url) };
  const story = q.get('story_fbid');
  if (/^\/(?:story|permalink)\.php$/.test(path) && story && new RegExp(`^${ID}$`).test(story)) {
    return { kind: 'post', id: story, url: canonicalPost(url) };
  }
  throw invalid(
    'url',
    'not a video URL of the social network (watch?v=, /videos/, /reel/, share/ links or fb.watch)',
  );
}

/** The www. form of a post URL, only the query parameters that name the post kept. */
function canonicalPost(url: URL): string {
  const out = new URL(`https://www.facebook.com${url.pathname}`);
  for (const name of ['story_fbid', 'id']) {
    const value = url.searchParams.get(name);
    if (value) out.searchParams.set(name, value);
  }
  return out.toString();
}

export const facebookVideoUrl = (id: string, reel = false) =>
  reel ? `https://www.facebook.com/reel/${id}` : `https://www.facebook.com/watch/?v=${id}`;
