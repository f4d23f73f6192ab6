// X's walls, recognised in its answers so net/upstream.ts retries them through another
// proxy: its rate-limit refusal (error code 88, "Rate limit exceeded") whatever the status it comes
// with, and any answer that says this address has no calls left (x-rate-limit-remaining: 0). (A 429
// is a block for every platform already.) Not walls: 404s and tombstones (the post is gone or
// protected), "Forbidden"/"Could not authenticate you" (codes 200, 32: the configured web token is
// wrong, which no other exit fixes), and "Bad guest token" (239: the cached token, not the address).
import type { SafeResponse } from '../../net/safe-fetch.js';

const header = (res: SafeResponse, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const RATE_LIMITED = /"code"\s*:\s*88\b|Rate limit exceeded/i;

export function isXBlocked(res: SafeResponse): boolean {
  if (res.status !== 200 && header(res, 'x-rate-limit-remaining')?.trim() === '0') return true;
  // Refusals are small JSON; a post's answer (tens of KiB) may quote the words in its text.
  const head = res.body.subarray(0, 64).toString('latin1').trimStart();
  if (!head.startsWith('{') || res.body.length > 4096) return false;
  let answer: unknown;
  try {
    answer = JSON.parse(res.body.toString('utf8'));
  } catch {
    return false;
  }
  const errors = (answer as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return false;
  // A refusal names no post: errors next to data is a partial answer (a quoted post withheld…).
  if ((answer as { data?: unknown }).data) return false;
  return errors.some((e) => RATE_LIMITED.test(JSON.stringify(e)));
}
