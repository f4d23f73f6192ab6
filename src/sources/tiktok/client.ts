// TikTok as our code sees it: video pages fetched through Upstreams (proxies, retries),
// the WAF proof-of-work answered when it shows, redirects followed hop by hop through the override,
// the parsed page cached with the cookies its media URLs need; caption files fetched by URL.
import { cached, type ResultCache } from '../../cache/result-cache.js';
import { AppError } from '../../errors.js';
import type { SafeResponse } from '../../net/safe-fetch.js';
import type { Upstreams } from '../../net/upstream.js';
import { isTikTokBlocked } from './blocks.js';
import { parseTikTokPage, type TikTokPage } from './page.js';
import { answerWafChallenge, parseWafChallenge } from './waf.js';

export const TIKTOK_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const PAGE_HEADERS = {
  'user-agent': TIKTOK_USER_AGENT,
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
};

export interface FetchedTikTokPage {
  page: TikTokPage;
  /** The page URL the answer came from (media want it as Referer). */
  url: string;
  /** Cookies the site set (tt_chain_token and the like): its media URLs check them. */
  cookie: string;
}

export interface TikTokClientDeps {
  upstreams: Upstreams;
  cache: ResultCache;
  ttlMs: number;
}

/** name=value pairs of Set-Cookie headers. */
function cookiesOf(res: SafeResponse): string[] {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return list.map((c) => c.split(';')[0]!.trim()).filter((c) => c.includes('='));
}

const MAX_HOPS = 4;

export class TikTokClient {
  constructor(private readonly deps: TikTokClientDeps) {}

  /** The parsed page of a video (cached per id). */
  page(id: string, pageUrl: string, signal?: AbortSignal): Promise<FetchedTikTokPage> {
    return cached(this.deps.cache, `tt:page:${id}`, this.deps.ttlMs, () => this.load(pageUrl, signal));
  }

  private async load(start: string, signal?: AbortSignal): Promise<FetchedTikTokPage> {
    const jar = new Map<string, string>();
    let url = start;
    let answered = false;
    for (let hop = 0; hop < MAX_HOPS + 2; hop++) {
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await this.deps.upstreams.fetch('tiktok', url, {
        headers: { ...PAGE_HEADERS, ...(cookie && { cookie }) },
        maxRedirects: 0,
        signal,
        blocked: isTikTokBlocked,
      });
      for (const pair of cookiesOf(res)) {
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = res.headers.location;
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(String(location), url);
        if (/^\/login\b/.test(next.pathname)) {
          throw new AppError('forbidden', 'The short-video site wants a login to show this video');
        }
        url = next.toString();
        continue;
      }
      if (res.status === 404) return { page: { kind: 'status', code: 404, message: null }, url, cookie };
      if (res.status !== 200) throw new AppError('upstream_error', `tiktok answered HTTP ${res.status}`);
      const html = res.body.toString('utf8');
      const challenge = parseWafChallenge(html);
      if (challenge) {
        if (answered) throw new AppError('upstream_error', 'tiktok kept answering its WAF challenge');
        const answer = await answerWafChallenge(challenge);
        if (!answer) throw new AppError('upstream_error', 'tiktok sent a WAF challenge with no solution');
        for (const pair of answer.split('; ')) {
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        answered = true;
        continue;
      }
      const page = parseTikTokPage(html);
      const jarCookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      return { page, url, cookie: jarCookie };
    }
    throw new AppError('upstream_error', `tiktok redirected more than ${MAX_HOPS} times`);
  }

  /** A caption file's body ('' when the CDN answered an empty one). */
  async captionFile(url: string, referer: string, cookie: string, signal?: AbortSignal): Promise<string> {
    const res = await this.deps.upstreams.fetch('tiktok', url, {
      headers: { 'user-agent': TIKTOK_USER_AGENT, referer, ...(cookie && { cookie }) },
      signal,
      blocked: isTikTokBlocked,
    });
    if (res.status === 404 || res.status === 403) return '';
    if (res.status !== 200)
      throw new AppError('upstream_error', `tiktok caption file answered HTTP ${res.status}`);
    return res.body.toString('utf8');
  }
}
