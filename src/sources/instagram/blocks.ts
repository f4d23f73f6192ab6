// Instagram's walls, recognised in its answers so net/upstream.ts retries them through
// another proxy: a redirect to its login page (/accounts/login, or back to the home page) or to a
// /challenge/ — what logged-out visitors over the anonymous rate limit get for the post query, the
// home page and share/ links alike — and its JSON refusals ("Please wait a few minutes", require_login,
// checkpoint_required). Not walls: a 404, and post-query answers that name no post or a gated one
// (media.ts: removed, private or age-restricted posts are answers).
import type { SafeResponse } from '../../net/safe-fetch.js';

const header = (res: SafeResponse, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** A location that is the login wall: /accounts/login…, /challenge/…, or the bare home page. */
export function isLoginWall(location: string, base = 'https://www.instagram.com/'): boolean {
  let path: string;
  try {
    path = new URL(location, base).pathname;
  } catch {
    return false;
  }
  return /^\/(accounts\/login|challenge)\b/.test(path) || path === '/';
}

const REFUSAL = /"require_login"\s*:\s*true|"checkpoint_required"|"message"\s*:\s*"Please wait a few minutes/;

export function isInstagramBlocked(res: SafeResponse): boolean {
  if (res.status >= 300 && res.status < 400) {
    const location = header(res, 'location');
    return !!location && isLoginWall(location, res.url);
  }
  // JSON refusals are small; the post query's real answers never carry these keys.
  const head = res.body.subarray(0, 64).toString('latin1').trimStart();
  return head.startsWith('{') && res.body.length < 4096 && REFUSAL.test(res.body.toString('utf8'));
}
