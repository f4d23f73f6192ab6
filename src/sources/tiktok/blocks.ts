// TikTok's walls, recognised in its answers so net/upstream.ts retries them through
// another proxy: a complete HTML page with no video data at all (the verify/captcha page, or the
// stripped page some exits get), and a page whose item comes back empty under statusCode 0 ("OK,
// nothing"). Not walls: the WAF proof-of-work (client.ts answers it), non-zero status codes (10216/
// 10222 private, 10204 removed), a login redirect (a login-gated video), a photo post, and anything
// that is not an HTML page (caption files).
import type { SafeResponse } from '../../net/safe-fetch.js';
import { parseTikTokPage } from './page.js';
import { parseWafChallenge } from './waf.js';

export function isTikTokBlocked(res: SafeResponse): boolean {
  // A truncated body (short links read 1 MiB at most) cannot show that data is missing.
  if (res.status !== 200 || res.truncated) return false;
  const head = res.body.subarray(0, 64).toString('latin1').trimStart();
  if (!head.startsWith('<')) return false;
  const html = res.body.toString('utf8');
  if (parseWafChallenge(html)) return false;
  const page = parseTikTokPage(html);
  return page.kind === 'unknown' || (page.kind === 'status' && page.code === -1);
}
