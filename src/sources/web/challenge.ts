// Anti-bot interstitials ("Just a moment…", captcha walls) look like pages but hold none of the
// site's content. Returning them as content — and billing for it — is the complaint users of peer
// services make most, so they are recognised here and answered as upstream errors instead.

export interface ChallengeInput {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The decoded document (only its start is looked at). */
  html: string;
}

const header = (h: ChallengeInput['headers'], name: string) => {
  const v = h[name];
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).toLowerCase();
};

/** Markers that only an interstitial carries, whatever the status. */
const DEFINITE: Array<[RegExp, string]> = [
  [/<title>\s*just a moment\.\.\.\s*<\/title>/i, 'Cloudflare'],
  [/<title>\s*attention required! \| cloudflare\s*<\/title>/i, 'Cloudflare'],
  [/window\._cf_chl_opt|\/cdn-cgi\/challenge-platform\/|cf-browser-verification/i, 'Cloudflare'],
  [/captcha-delivery\.com|geo\.captcha-delivery/i, 'DataDome'],
  [/_Incapsula_Resource|Incapsula incident ID/i, 'Imperva'],
  [/<title>\s*(?:sucuri website firewall|access denied - sucuri)/i, 'Sucuri'],
  [/px-captcha|_pxCaptcha|perimeterx/i, 'PerimeterX'],
  [/<title>\s*ddos-guard\s*<\/title>/i, 'DDoS-Guard'],
  [/awsWafCookieDomainList|aws-waf-token|challenge\.js"[^>]*awswaf/i, 'AWS WAF'],
  [/our systems have detected unusual traffic from your computer network/i, 'Google'],
];

/** Markers that mean a wall only on a refusal status (a real page may embed a captcha form). */
const ON_REFUSAL: Array<[RegExp, string]> = [
  [/<title>\s*access denied\s*<\/title>[\s\S]*reference\s*#/i, 'Akamai'],
  [
    /g-recaptcha|h-captcha|hcaptcha\.com|recaptcha\/api\.js|challenges\.cloudflare\.com\/turnstile/i,
    'captcha',
  ],
  [/verify (?:you are|you're) (?:a )?human|are you a robot|checking your browser/i, 'bot check'],
  [/enable javascript and cookies to continue/i, 'bot check'],
];

/** The vendor of the anti-bot wall this answer is, or null when it looks like a real page. */
export function detectChallenge(input: ChallengeInput): string | null {
  if (header(input.headers, 'cf-mitigated') === 'challenge') return 'Cloudflare';
  // Interstitials are small; the start of a document is where their markers sit.
  const head = input.html.slice(0, 64 * 1024);
  for (const [pattern, vendor] of DEFINITE) if (pattern.test(head)) return vendor;
  if (input.status === 403 || input.status === 429 || input.status === 503 || input.status === 401) {
    for (const [pattern, vendor] of ON_REFUSAL) if (pattern.test(head)) return vendor;
  }
  return null;
}
