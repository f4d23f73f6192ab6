// TikTok's WAF proof-of-work page: instead of the video page, plain clients get a small
// page whose element id="cs" holds (in its class attribute) base64 JSON {v:{a, c}, …}. The answer is
// the number i (0…1,000,000) for which sha256(base64dec(a) + String(i)) equals base64dec(c); it goes
// back base64-encoded as `d`, the whole JSON base64-encoded again into the cookie named by the class
// of id="wci" (plus the optional cookie named by id="rci" with the value of id="rs"). Pure.
import { createHash } from 'node:crypto';

export interface WafChallenge {
  /** The decoded JSON of id="cs" (kept whole: it goes back with the answer). */
  readonly payload: Record<string, unknown>;
  readonly prefix: Buffer;
  readonly digest: Buffer;
  readonly cookieName: string;
  readonly extraCookie: { name: string; value: string } | null;
}

export const MAX_TRIES = 1_000_001;

/** The class attribute of the element with this id, when the page has one. */
function classOf(html: string, id: string): string | null {
  const re = new RegExp(`<[a-z0-9]+\\b[^>]*\\bid=["']${id}["'][^>]*>`, 'i');
  const tag = re.exec(html)?.[0];
  if (!tag) return null;
  return /\bclass=["']([^"']*)["']/i.exec(tag)?.[1] ?? null;
}

/** The challenge of a WAF page, or null when the page is not one (or is malformed). */
export function parseWafChallenge(html: string): WafChallenge | null {
  const cs = classOf(html, 'cs');
  if (!cs) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cs, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  const v = (payload as { v?: { a?: unknown; c?: unknown } } | null)?.v;
  if (typeof v?.a !== 'string' || typeof v.c !== 'string') return null;
  const rci = classOf(html, 'rci');
  const rs = classOf(html, 'rs');
  return {
    payload: payload as Record<string, unknown>,
    prefix: Buffer.from(v.a, 'base64'),
    digest: Buffer.from(v.c, 'base64'),
    cookieName: classOf(html, 'wci') || '_wafchallengeid',
    extraCookie: rci && rs ? { name: rci, value: rs } : null,
  };
}

/** The number that solves it, or null when none below `limit` does. */
export function solvePow(prefix: Buffer, digest: Buffer, from = 0, limit = MAX_TRIES): number | null {
  for (let i = from; i < limit; i++) {
    const hash = createHash('sha256').update(prefix).update(String(i)).digest();
    if (hash.equals(digest)) return i;
  }
  return null;
}

const SLICE = 20_000;

/**
 * The Cookie header value that answers the challenge, or null when it cannot be solved. Real
 * answers are small, but a worst case is a million hashes: searched in slices that let the event
 * loop breathe between them.
 */
export async function answerWafChallenge(challenge: WafChallenge, limit = MAX_TRIES): Promise<string | null> {
  let i: number | null = null;
  for (let from = 0; from < limit && i === null; from += SLICE) {
    i = solvePow(challenge.prefix, challenge.digest, from, Math.min(limit, from + SLICE));
    if (i === null) await new Promise((resolve) => setImmediate(resolve));
  }
  if (i === null) return null;
  const answered = { ...challenge.payload, d: Buffer.from(String(i)).toString('base64') };
  const cookies = [`${challenge.cookieName}=${Buffer.from(JSON.stringify(answered)).toString('base64')}`];
  if (challenge.extraCookie) cookies.push(`${challenge.extraCookie.name}=${challenge.extraCookie.value}`);
  return cookies.join('; ');
}
