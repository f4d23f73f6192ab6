// Facebook's walls, recognised in its answers so net/upstream.ts retries them through
// another proxy: a redirect to a /checkpoint/ (the "confirm you're human"/"temporarily blocked" wall
// it puts in front of an address), that wall served in place, and an empty page (an HTML 200 with no
// body, or a page with none of the JSON blocks every page of the site carries). Not walls: a /login
// redirect or login form (the video is private or restricted: 403), the "content isn't available"
// page (404), and non-HTML answers (caption files).
import type { SafeResponse } from '../../net/safe-fetch.js';
import { pageJsonBlocks } from './page.js';

const header = (res: SafeResponse, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** A location on the checkpoint wall. */
export function isCheckpoint(location: string, base = 'https://www.facebook.com/'): boolean {
  try {
    return /^\/checkpoint\b/.test(new URL(location, base).pathname);
  } catch {
    return false;
  }
}

const WALL =
  /action="\/checkpoint\/|You(?:'|&#039;|’)re Temporarily Blocked|misusing this feature by going too fast/i;

export function isFacebookBlocked(res: SafeResponse): boolean {
  if (res.status >= 300 && res.status < 400) {
    const location = header(res, 'location');
    return !!location && isCheckpoint(location, res.url);
  }
  if (res.status !== 200 || res.truncated) return false;
  const text = res.body.toString('utf8');
  // Caption files (text/vtt, text/plain) are not judged: an empty one is that track's answer.
  if (text.trim() === '') return res.contentType === 'text/html';
  if (!text.trimStart().startsWith('<')) return false;
  if (WALL.test(text)) return true;
  // Every real page (video, login wall, "isn't available") carries data-sjs JSON; none: stripped.
  return pageJsonBlocks(text).length === 0;
}
