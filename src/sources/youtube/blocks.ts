// The platform's walls, recognised in its answers: the bot check inside a player answer, the
// reCAPTCHA / "unusual traffic" page, redirects to google.com/sorry, and the EU consent page.
// A block is retried through the next proxy (net/upstream.ts); consent is answered with a cookie.
import type { SafeResponse } from '../../net/safe-fetch.js';

/** Sent with every request so the EU consent interstitial is not shown in the first place. */
export const CONSENT_COOKIE = 'SOCS=CAI; CONSENT=YES+cb';

const BOT_CHECK = /not a bot/i;

/** A playability reason that is the bot check ("Sign in to confirm you’re not a bot"). */
export function isBotCheckReason(text: string | null | undefined): boolean {
  return !!text && BOT_CHECK.test(text);
}

const CAPTCHA =
  /class="g-recaptcha"|\/recaptcha\/api\.js|action="\/das_captcha|unusual traffic from your computer/i;

/** The page served instead of the real one when an address is rate-limited. */
export function isRecaptchaPage(html: string): boolean {
  return CAPTCHA.test(html) && !html.includes('ytInitialPlayerResponse');
}

/** The `v` value of the EU consent page's form (→ cookie CONSENT=YES+<v>), or null if it is not one. */
export function consentValue(html: string): string | null {
  if (!/action="https:\/\/consent\.youtube\.com\/s"/.test(html)) return null;
  const m = /<input[^>]*name="v"[^>]*value="([^"]+)"/.exec(html);
  return m ? m[1]! : null;
}

const header = (res: SafeResponse, name: string) => {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * True when an answer is a block: a redirect to the "sorry" page, a captcha page, or a JSON player
 * answer whose playability is the bot check. Cheap substring tests first; JSON only parsed to confirm.
 */
export function isBlocked(res: SafeResponse): boolean {
  if (res.status >= 300 && res.status < 400) return /\/sorry\//.test(header(res, 'location') ?? '');
  const head = res.body.subarray(0, 64).toString('latin1').trimStart();
  if (head.startsWith('<')) return isRecaptchaPage(res.body.toString('utf8'));
  if (!head.startsWith('{') || !res.body.includes('LOGIN_REQUIRED') || !res.body.includes('not a bot')) {
    return false;
  }
  try {
    const answer = JSON.parse(res.body.toString('utf8')) as { playabilityStatus?: { status?: string } };
    const status = answer.playabilityStatus;
    // The reason may sit in `reason` or only in the error screen's runs.
    return status?.status === 'LOGIN_REQUIRED' && isBotCheckReason(JSON.stringify(status));
  } catch {
    return false;
  }
}

/**
 * A caption body's block: besides the walls above, an empty body where captions were offered. Tracks
 * gated behind a proof-of-origin token (which answer empty too) are known from their URL and never
 * fetched, so an empty answer to one we fetch is the platform refusing this exit.
 */
export function isCaptionBlock(res: SafeResponse): boolean {
  if (res.status === 200 && res.body.toString('utf8').trim() === '') return true;
  return isBlocked(res);
}
